// The shipped monitoring against a real fleet: a `marquee builder` and a `marquee serve` on the
// production shape (PostgreSQL, Redis, S3 behind the CDN), scraped by a real Prometheus with the
// configuration and rules of deploy/prometheus/ (intervals shortened: prometheus-server.ts). Every
// metric a rule or the Grafana dashboard reads is one the processes export, and the dashboard shows
// every metric they export; no series carries an organization or a key; every rule loads and
// evaluates; and with Redis stopped, MarqueeBackendDown goes to firing through Prometheus's HTTP
// API for both processes, and resolves once Redis is back.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminSecret } from '../../support/cli.ts';
import { type ProductionWorld, startProductionWorld } from '../../support/production.ts';
import { until } from '../../support/until.ts';
import { type ActiveAlert, SHIPPED, startPrometheus, type TestPrometheus } from './prometheus-server.ts';
import { metricNamesOf } from './promql-names.ts';

const TOKEN = 'monitoring-admin-token-0123456789abcdef';
const DASHBOARD = new URL('../../../deploy/grafana/marquee.json', import.meta.url);
const OPERATION = new URL('../../../docs/operation.md', import.meta.url);
/** Series Prometheus makes itself: a target's scrape health and the alerts' state. */
const PROMETHEUS_OWN = new Set(['up', 'ALERTS']);

let world: ProductionWorld;
let prometheus: TestPrometheus;
/** Each process's admin port, e.g. http://127.0.0.1:41234. */
let admins: { gateway: string; builder: string };

beforeAll(async () => {
  world = await startProductionWorld();
  // Every process of this world serves /metrics, and a stopped gateway does not drain: nothing waits on it here.
  Object.assign(world.env, { ADMIN_TOKEN: TOKEN, SHUTDOWN_DRAIN_SECONDS: '0' });
  const [builder, gateway, auditor] = await Promise.all([world.builder(), world.serve(), adminSecret(world.env, 'prometheus', 'auditor')]);
  admins = { gateway: adminOf(gateway.output()), builder: adminOf(builder.output()) };
  prometheus = await startPrometheus({
    gateways: [new URL(admins.gateway).host],
    builders: [new URL(admins.builder).host],
    gatewayToken: TOKEN,
    builderCredential: auditor,
  });
}, 180_000);

afterAll(async () => {
  await prometheus?.stop();
  await world?.stop();
});

/** The admin port a process announced in its log. */
function adminOf(output: string): string {
  const found = /"admin":"(http:\/\/[^"]+)"/.exec(output);
  if (!found) throw new Error(`no admin address in:\n${output.slice(-2000)}`);
  return found[1]!;
}

interface Exported {
  /** Every sample name a scrape may hold: each family's name, and a histogram's _bucket, _sum and _count. */
  names: Set<string>;
  /** The families' names (what the dashboard must show). */
  families: Set<string>;
  /** Every label name of every sample. */
  labels: Set<string>;
}

/** What a process's /metrics holds. */
async function exportedBy(admin: string): Promise<Exported> {
  const answer = await fetch(`${admin}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(answer.status, `${admin}/metrics`).toBe(200);
  const exported: Exported = { names: new Set(), families: new Set(), labels: new Set() };
  for (const line of (await answer.text()).split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      const [, name, kind] = type as unknown as [string, string, string];
      exported.families.add(name);
      exported.names.add(name);
      const parts = kind === 'histogram' ? ['_bucket', '_sum', '_count'] : kind === 'summary' ? ['_sum', '_count'] : [];
      for (const suffix of parts) exported.names.add(name + suffix);
      continue;
    }
    const sample = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? /.exec(line);
    if (!sample) continue;
    exported.names.add(sample[1]!);
    for (const label of (sample[2] ?? '').matchAll(/([A-Za-z_]\w*)="(?:[^"\\]|\\.)*"/g)) exported.labels.add(label[1]!);
  }
  return exported;
}

async function dashboardQueries(): Promise<string[]> {
  interface Panel {
    targets?: Array<{ expr: string }>;
    panels?: Panel[];
  }
  const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as { panels: Panel[] };
  const each = (panels: Panel[]): string[] => panels.flatMap((panel) => [...(panel.targets ?? []).map((target) => target.expr), ...each(panel.panels ?? [])]);
  // Grafana's own variable; Prometheus is given the range it would choose at a 15 s scrape.
  return each(dashboard.panels).map((expression) => expression.replaceAll('$__rate_interval', '1m'));
}

/** The rules of the shipped files, once Prometheus has evaluated every one of them. */
async function evaluatedRules() {
  return until(
    'every rule to be evaluated once',
    async () => {
      const rules = await prometheus.rules();
      return rules.length > 0 && rules.every((rule) => !rule.lastEvaluation.startsWith('0001-')) && rules;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}

describe('what the rules and the dashboard read', () => {
  it('is exported by the processes, and every metric they export is on the dashboard', async () => {
    const [gateway, builder] = await Promise.all([exportedBy(admins.gateway), exportedBy(admins.builder)]);
    const rules = await evaluatedRules();
    const recorded = new Set(rules.filter((rule) => rule.type === 'recording').map((rule) => rule.name));
    const known = (name: string) => gateway.names.has(name) || builder.names.has(name) || recorded.has(name) || PROMETHEUS_OWN.has(name);

    const queries = await dashboardQueries();
    const unknown = [...rules.map((rule) => rule.query), ...queries].flatMap((query) =>
      metricNamesOf(query)
        .filter((name) => !known(name))
        .map((name) => `${name} in ${query}`),
    );
    expect(unknown).toEqual([]);

    // A recorded series on the dashboard shows the metrics its rule reads, and theirs.
    const recordedFrom = new Map(rules.filter((rule) => rule.type === 'recording').map((rule) => [rule.name, rule.query]));
    const shown = new Set<string>();
    const show = (query: string): void => {
      for (const name of metricNamesOf(query)) {
        const family = name.replace(/_(bucket|sum|count)$/, '');
        if (shown.has(family)) continue;
        shown.add(family);
        const rule = recordedFrom.get(name);
        if (rule !== undefined) show(rule);
      }
    };
    for (const query of queries) show(query);
    const ours = [...gateway.families, ...builder.families].filter((name) => name.startsWith('marquee_'));
    expect(ours.length).toBeGreaterThan(20);
    expect(ours.filter((name) => !shown.has(name))).toEqual([]);
  });

  it('carries no organization and no key: cardinality stays flat however large the platform', async () => {
    for (const admin of [admins.gateway, admins.builder]) {
      const { labels } = await exportedBy(admin);
      expect(
        [...labels].filter((label) => /organization|^org|key/i.test(label)),
        admin,
      ).toEqual([]);
    }
  });
});

describe('the shipped rules in a real Prometheus', () => {
  it('load and evaluate without error; each alert has a severity, a summary, and a description naming its entry in docs/operation.md', async () => {
    const rules = await evaluatedRules();
    const shipped = await Promise.all(['recording-rules.yml', 'alert-rules.yml'].map((file) => readFile(`${SHIPPED}${file}`, 'utf8')));
    const declared = shipped.flatMap((text) => [...text.matchAll(/^\s+- (?:record|alert): (\S+)$/gm)].map((match) => match[1]!));
    expect(rules.map((rule) => rule.name).sort()).toEqual(declared.sort());
    expect(rules.filter((rule) => rule.health !== 'ok').map((rule) => `${rule.name}: ${rule.lastError}`)).toEqual([]);

    const monitoring = /^## Monitoring\n([\s\S]*?)(?=^## )/m.exec(await readFile(OPERATION, 'utf8'))?.[1] ?? '';
    const alerts = rules.filter((rule) => rule.type === 'alerting');
    expect(alerts.length).toBeGreaterThanOrEqual(8);
    for (const alert of alerts) {
      expect(alert.name).toMatch(/^Marquee[A-Z]\w+$/);
      expect(['critical', 'warning'], alert.name).toContain(alert.labels?.severity);
      expect(alert.annotations?.summary, alert.name).toBeTruthy();
      expect(alert.annotations?.description, alert.name).toContain(`See docs/operation.md, "Monitoring", ${alert.name}.`);
      expect(monitoring, `docs/operation.md "Monitoring" describes ${alert.name}`).toContain(`**${alert.name}**`);
    }
  });

  it("accepts every one of the dashboard's queries", async () => {
    const refused: string[] = [];
    for (const query of await dashboardQueries()) await prometheus.query(query).catch((error: Error) => refused.push(error.message));
    expect(refused).toEqual([]);
  });
});

describe('an alert that fires', () => {
  const redisDown = (alerts: ActiveAlert[], state: ActiveAlert['state']) =>
    alerts
      .filter((alert) => alert.labels.alertname === 'MarqueeBackendDown' && alert.labels.backend === 'redis' && alert.state === state)
      .map((alert) => alert.labels.job)
      .sort();

  it('MarqueeBackendDown fires for the gateway and the builder once Redis stops, and resolves once it is back', async () => {
    // Both processes scraped, each seeing Redis answer, and nothing firing yet.
    await until(
      'both processes to report Redis up through Prometheus',
      async () =>
        (await prometheus.query('marquee_backend_up{backend="redis"} == 1'))
          .map((sample) => sample.metric.job)
          .sort()
          .join() === 'marquee-builder,marquee-gateway',
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(redisDown(await prometheus.alerts(), 'firing')).toEqual([]);

    await world.redis.halt();
    await until('MarqueeBackendDown to fire for redis on both processes', async () => redisDown(await prometheus.alerts(), 'firing').join() === 'marquee-builder,marquee-gateway', {
      timeoutMs: 60_000,
      intervalMs: 250,
    });

    await world.redis.resume();
    await until('MarqueeBackendDown to resolve once Redis answers again', async () => redisDown(await prometheus.alerts(), 'firing').length === 0, {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
  }, 180_000);
});
