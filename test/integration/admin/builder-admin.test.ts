// `marquee builder` on PostgreSQL as production runs it, with ADMIN_TOKEN: a build asked for
// through the admin API is queued at once and watched running (done of total) to its results;
// history and diff through the API equal the CLI's --json; /metrics counts the builds that ran.
// Without ADMIN_TOKEN the builder serves no admin port.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateSyntheticPlatform } from '../../../bench/synthetic-platform.ts';
import { migrate } from '../../../builder/platform/migrations.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { acceptsConnections, freePort } from '../../support/ports.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { adminContractFetch } from '../../support/admin-contract.ts';
import { until } from '../../support/until.ts';

const TOKEN = 'test-admin-token-0123456789abcdef';
/** Enough organizations that a build lasts long enough to be seen running. */
const ORGANIZATIONS = 120;

let postgres: TestPostgres;
let home: string;
let env: Record<string, string>;
beforeAll(async () => {
  postgres = await startPostgres();
  home = await mkdtemp(join(tmpdir(), 'marquee-builder-admin-'));
  const db = await openPostgres(postgres.url);
  try {
    await migrate(db);
    await generateSyntheticPlatform(db, { organizations: ORGANIZATIONS, eventsPerOrganization: 4, sessionsPerEvent: 3 });
  } finally {
    await db.close();
  }
  env = { MARQUEE_HOME: home, DATABASE_URL: postgres.url, LOG_FORMAT: 'json', BUILD_SCHEDULE: '0 0 1 1 *' };
}, 120_000);
afterAll(async () => {
  await postgres?.stop();
  await rm(home, { recursive: true, force: true });
});

interface Run {
  id: string;
  trigger: string;
  state: string;
  done: number;
  total: number;
  organizations: Array<{ id: string; slug: string; result: string }>;
}

const bearer = { Authorization: `Bearer ${TOKEN}` };

it('queues a build at once, shows it running with its progress, then finished with every result; history, diff and metrics agree', async () => {
  const builder = await marqueeProcess(['builder'], { ...env, ADMIN_TOKEN: TOKEN, ADMIN_PORT: '0' }, /admin API and console on (http:\/\/[^"\s]+)/);
  try {
    const admin = builder.match[1]!;
    // Every answer of the admin API is checked against its OpenAPI document.
    const fetch = adminContractFetch(() => admin);
    const get = async <T>(path: string): Promise<T> => {
      const response = await fetch(admin + path, { headers: bearer });
      expect(response.status, path).toBe(200);
      return (await response.json()) as T;
    };
    // The first build (the builder's own, trigger schedule) is a run too; wait for it to finish.
    await until("the builder's own build to finish", async () => (await get<Run[]>('/admin/v1/builds')).some((run) => run.trigger === 'schedule' && run.state === 'finished'), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });

    const asked = await fetch(`${admin}/admin/v1/builds`, { method: 'POST', headers: { ...bearer, 'Content-Type': 'application/json' }, body: '{}' });
    expect(asked.status).toBe(202);
    const queued = (await asked.json()) as Run;
    expect(queued).toMatchObject({ trigger: 'manual', state: 'queued', done: 0 });
    expect(asked.headers.get('location')).toBe(`/admin/v1/builds/${queued.id}`);

    const seen: Run[] = [];
    await until(
      'the asked build to finish',
      async () => {
        const run = await get<Run>(`/admin/v1/builds/${queued.id}`);
        seen.push(run);
        return run.state === 'finished';
      },
      { timeoutMs: 60_000, intervalMs: 5 },
    );
    const midway = seen.filter((run) => run.state === 'running' && run.done > 0 && run.done < run.total);
    expect(midway.length, `states seen: ${seen.map((r) => `${r.state} ${r.done}/${r.total}`).join(', ')}`).toBeGreaterThan(0);
    expect(midway[0]!.total).toBe(ORGANIZATIONS);
    const finished = seen.at(-1)!;
    expect(finished).toMatchObject({ state: 'finished', done: ORGANIZATIONS, total: ORGANIZATIONS });
    expect(finished.organizations).toHaveLength(ORGANIZATIONS);
    // Nothing changed since the builder's own build.
    expect(new Set(finished.organizations.map((o) => o.result))).not.toContain('failed');
    expect(finished.organizations.filter((o) => o.result === 'published')).toEqual([]);

    const list = await get<Run[]>('/admin/v1/builds');
    expect(list[0]!.id).toBe(queued.id);

    // One organization by slug, and an unknown one named in the problem.
    const organizations = await get<Array<{ id: string; slug: string; snapshotId: string | null; lastBuild: { runId: string } | null }>>('/admin/v1/organizations');
    expect(organizations).toHaveLength(ORGANIZATIONS);
    const published = organizations.find((o) => o.snapshotId !== null)!;
    expect(published.lastBuild?.runId).toBe(queued.id);
    const unknown = await fetch(`${admin}/admin/v1/builds`, {
      method: 'POST',
      headers: { ...bearer, 'Content-Type': 'application/json' },
      body: JSON.stringify({ organizations: [published.slug, 'no-such-organization'] }),
    });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await unknown.json()).toMatchObject({ status: 404, errorCode: 'ORGANIZATION_NOT_FOUND', detail: expect.stringContaining('no-such-organization') });

    // history and diff: the API's answer is the CLI's --json.
    const history = await get<Array<{ snapshotId: string }>>(`/admin/v1/organizations/${published.slug}/snapshots`);
    const cliHistory = await marquee(['history', '--org', published.slug, '--json'], env);
    expect(cliHistory.code, cliHistory.stderr).toBe(0);
    expect(history).toEqual(JSON.parse(cliHistory.stdout));
    const snapshotId = history[0]!.snapshotId;
    const diff = await get(`/admin/v1/organizations/${published.id}/diff?from=${snapshotId}&to=current`);
    const cliDiff = await marquee(['diff', '--org', published.id, snapshotId, 'current', '--json'], env);
    expect(diff).toEqual(JSON.parse(cliDiff.stdout));
    const missing = await fetch(`${admin}/admin/v1/organizations/${published.slug}/diff?from=20000101T000000000Z-000000000000&to=current`, { headers: bearer });
    expect(missing.status).toBe(404);

    // /metrics: the two runs' results, counted by result and trigger; the backends this builder uses; fleet figures, never a series per organization.
    const metrics = await (await fetch(`${admin}/metrics`, { headers: bearer })).text();
    const samples = parsePrometheus(metrics);
    const builds = (trigger: string) => samples.filter((s) => s.name === 'marquee_builds_total' && s.labels.trigger === trigger).reduce((sum, s) => sum + s.value, 0);
    expect(builds('manual')).toBe(ORGANIZATIONS);
    expect(builds('schedule')).toBe(ORGANIZATIONS);
    expect(samples.find((s) => s.name === 'marquee_build_duration_seconds_count' && s.labels.trigger === 'manual')?.value).toBe(1);
    expect(samples.filter((s) => 'organization' in s.labels || 'key' in s.labels)).toEqual([]);
    const value = (name: string, labels: Record<string, string> = {}) =>
      samples.find((s) => s.name === name && Object.entries(labels).every(([label, wanted]) => s.labels[label] === wanted))?.value;
    expect([value('marquee_backend_up', { backend: 'database' }), value('marquee_backend_up', { backend: 'store' })]).toEqual([1, 1]);
    expect(value('marquee_backend_up', { backend: 'redis' })).toBeUndefined();
    expect(value('marquee_backend_last_success_age_seconds', { backend: 'database' })).toBeLessThan(60);
    for (const name of ['marquee_snapshot_oldest_age_seconds', 'marquee_snapshots_stale', 'marquee_webhook_backlog', 'marquee_usage_batches_waiting']) {
      expect(value(name), name).toBeGreaterThanOrEqual(0);
    }
    expect(samples.some((s) => s.name === 'process_resident_memory_bytes')).toBe(true);
  } finally {
    await builder.stop();
  }
}, 180_000);

it('serves no admin port without ADMIN_TOKEN, and says so in one line', async () => {
  const port = await freePort();
  const builder = await marqueeProcess(['builder'], { ...env, ADMIN_PORT: String(port) }, /builder running/);
  try {
    expect(builder.output()).toContain('ADMIN_TOKEN is not set: the admin API, the console and /metrics are not served');
    expect(await acceptsConnections(port)).toBe(false);
  } finally {
    await builder.stop();
  }
}, 120_000);

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format's sample lines (comments and HELP/TYPE skipped); throws on a line that is neither. */
function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}
