// A real Prometheus (Debian's package) for the monitoring tests: the shipped configuration of
// deploy/prometheus/ copied into a temporary directory with the test's targets and credentials,
// run on loopback, and read through its HTTP API. Stopped by its PID.
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { daemon } from '../../support/daemon.ts';
import { freePort } from '../../support/ports.ts';
import { until } from '../../support/until.ts';

const PROMETHEUS = '/usr/bin/prometheus';
export const PROMTOOL = '/usr/bin/promtool';
export const SHIPPED = fileURLToPath(new URL('../../../deploy/prometheus/', import.meta.url));

export interface MonitoredFleet {
  /** host:port of each gateway's admin port, and of each builder's. */
  gateways: string[];
  builders: string[];
  /** What the gateways' ADMIN_TOKEN is, and a credential the builders take (an auditor's). */
  gatewayToken: string;
  builderCredential: string;
}

/** A rule as GET /api/v1/rules lists it. */
interface LoadedRule {
  type: 'recording' | 'alerting';
  name: string;
  query: string;
  health: string;
  lastError?: string;
  lastEvaluation: string;
  /** Alerting rules: `for:` in seconds. */
  duration?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface ActiveAlert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

export interface TestPrometheus {
  url: string;
  rules(): Promise<LoadedRule[]>;
  alerts(): Promise<ActiveAlert[]>;
  /** An instant query's result; throws with Prometheus's error when the query is refused. */
  query(expression: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  stop(): Promise<void>;
}

/**
 * Intervals short enough for a test to see an alert within seconds: scrapes and evaluations every
 * second, and each alert's `for:` shortened to `holdFor`. The expressions, labels and annotations
 * are the shipped ones; the promtool tests (alert-rules.test.yml) prove the shipped `for:` values.
 */
const TEST_INTERVAL = '1s';

export async function startPrometheus(fleet: MonitoredFleet, { holdFor = '2s' }: { holdFor?: string } = {}): Promise<TestPrometheus> {
  if (!existsSync(PROMETHEUS)) throw new Error(`Prometheus is not installed: ${PROMETHEUS} is missing (Debian package prometheus; sh scripts/ensure-test-services.sh prometheus)`);
  const dir = await mkdtemp(join(tmpdir(), 'marquee-prometheus-'));
  await cp(SHIPPED, join(dir, 'config'), { recursive: true });
  const config = (name: string) => join(dir, 'config', name);
  await rewrite(config('prometheus.example.yml'), [
    [/^(\s+scrape_interval: )\S+$/m, `$1${TEST_INTERVAL}`],
    [/^(\s+evaluation_interval: )\S+$/m, `$1${TEST_INTERVAL}`],
  ]);
  await rewrite(config('alert-rules.yml'), [[/^(\s+for: )\S+$/gm, `$1${holdFor}`]]);
  await writeFile(config('gateways.json'), JSON.stringify([{ targets: fleet.gateways }]));
  await writeFile(config('builders.json'), JSON.stringify([{ targets: fleet.builders }]));
  await writeFile(config('gateway-token'), `${fleet.gatewayToken}\n`, { mode: 0o600 });
  await writeFile(config('builder-credential'), `${fleet.builderCredential}\n`, { mode: 0o600 });

  const port = await freePort();
  const server = daemon(
    'prometheus',
    PROMETHEUS,
    [`--config.file=${config('prometheus.example.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    port,
  );
  await server.start();
  const url = `http://127.0.0.1:${port}`;
  const api = async <T>(path: string): Promise<T> => {
    const answer = (await (await fetch(url + path)).json()) as { status: string; data: T; error?: string };
    if (answer.status !== 'success') throw new Error(`Prometheus refused ${path}: ${answer.error}`);
    return answer.data;
  };
  const stop = async () => {
    await server.stop('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await until('Prometheus to be ready', async () => (await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200, { timeoutMs: 30_000 });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    rules: async () => (await api<{ groups: Array<{ rules: LoadedRule[] }> }>('/api/v1/rules')).groups.flatMap((group) => group.rules),
    alerts: async () => (await api<{ alerts: ActiveAlert[] }>('/api/v1/alerts')).alerts,
    query: async (expression) =>
      (await api<{ result: Array<{ metric: Record<string, string>; value: [number, string] }> }>(`/api/v1/query?query=${encodeURIComponent(expression)}`)).result,
    stop,
  };
}

/** Each replacement must apply: a shipped file that no longer has the line would otherwise be tested unchanged. */
async function rewrite(file: string, replacements: Array<[RegExp, string]>): Promise<void> {
  let text = await readFile(file, 'utf8');
  for (const [pattern, replacement] of replacements) {
    if (!pattern.test(text)) throw new Error(`${file} has no line matching ${pattern}`);
    pattern.lastIndex = 0;
    text = text.replace(pattern, replacement);
  }
  await writeFile(file, text);
}
