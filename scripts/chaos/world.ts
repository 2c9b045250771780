// The production shape the campaign runs on: PostgreSQL with the synthetic platform, Redis, s3rver
// behind the conditional-writes proxy (in a child process, scripts/soak/bucket-child.ts, so that
// it can be halted with SIGSTOP), nginx as the CDN in front of it, two `marquee builder` and two
// `marquee serve`, configured only through the environment (docs/production.md), each one reaching
// each backend through a fault proxy of its own (test/support/fault-proxy.ts): `gateway-1→redis`,
// `builder-2→store`, … so that a network fault hits one process's link and nothing else. Gateways
// and builders listen on fixed ports, so a process restarted after a fault is where it was.
// Everything on loopback; `stop` ends all of it, also half-way through the set-up.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlClient } from '../../records/database/sql.ts';
import { type CliRun, marquee } from '../../test/support/cli.ts';
import { type FaultProxy, startFaultProxy } from '../../test/support/fault-proxy.ts';
import type { TestHttpCache } from '../../test/support/http-cache.ts';
import { freePort } from '../../test/support/ports.ts';
import type { TestPostgres } from '../../test/support/postgres.ts';
import type { TestRedis } from '../../test/support/redis.ts';
import { PREFIX, seconds, startBackends, terminateStartingProcesses } from '../soak/world.ts';
import { LINKS, linkName, PROCESSES } from './schedule.ts';
import { Supervised } from './supervised.ts';

/** The targets of docs/production.md: a gateway in 256 MB, a builder in 300 MB. */
const RSS_TARGET_MB = { gateway: 256, builder: 300 } as const;
const ADMIN_TOKEN = 'chaos-admin-token-0123456789abcdef';
/**
 * The gateways' pin window (SNAPSHOT_PIN_SECONDS; 10 minutes by default): short, so that pins the
 * sites (sites.ts) took expire within a short campaign, and long enough for a site's full turn
 * (about 25 reads at its pace) to finish in it while its snapshot is replaced.
 */
export const PIN_WINDOW_SECONDS = 4;
/**
 * The gateways' USAGE_MOVE_SECONDS (10 by default): a gateway killed outright loses at most what it
 * counted since its last move, so the campaign's usage line (usage-invariants.ts) holds each kill to
 * 2 s of its gateway's answers, not 10.
 */
export const USAGE_MOVE_SECONDS = 2;

export interface ChaosWorld {
  /** The campaign's own connection, straight to PostgreSQL (never through a proxy). */
  db: SqlClient;
  postgres: TestPostgres;
  redis: TestRedis;
  cdn: TestHttpCache;
  bucket: { pid: number; endpoint: string; bucket: string };
  /** Every link's proxy, by `process→backend`. */
  links: Map<string, FaultProxy>;
  processes: Map<string, Supervised>;
  gateways: Array<{ name: string; url: string }>;
  /** builder-1's admin API (http://127.0.0.1:port/admin/v1). */
  adminUrl: string;
  /** The environment an operator's `marquee` has (straight to every backend), and a run of it. */
  operatorEnv: Record<string, string>;
  cli(args: string[]): Promise<CliRun>;
  home: string;
  stop(): Promise<void>;
}

interface WorldSize {
  organizations: number;
  eventsPerOrganization: number;
  sessionsPerEvent: number;
}

export async function startChaosWorld(size: WorldSize, outputDir: string, say: (line: string) => void, signal: AbortSignal): Promise<ChaosWorld> {
  signal.addEventListener('abort', terminateStartingProcesses);
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const part of stops.splice(0).reverse()) await part().catch((error: Error) => say(`clean-up: ${error.message}`));
  };
  try {
    const logs = join(outputDir, 'logs');
    await mkdir(logs, { recursive: true });
    const { home, postgres, redis, bucket, cdn, db } = await startBackends('chaos', size, stops, say, signal);

    const backends: Record<string, { host: string; port: number }> = {
      postgres: { host: '127.0.0.1', port: Number(new URL(postgres.url).port) },
      redis: { host: '127.0.0.1', port: redis.port },
      store: { host: '127.0.0.1', port: Number(new URL(bucket.info.endpoint).port) },
      cdn: { host: '127.0.0.1', port: Number(new URL(cdn.url).port) },
    };
    const links = new Map<string, FaultProxy>();
    for (const process of PROCESSES) {
      for (const backend of LINKS[process]) {
        const proxy = await startFaultProxy(backends[backend]!);
        stops.push(() => proxy.close());
        links.set(linkName(process, backend), proxy);
      }
    }
    const via = (process: string, backend: string) => `127.0.0.1:${links.get(linkName(process, backend))!.port}`;
    const common: Record<string, string> = {
      MARQUEE_HOME: home,
      PLATFORM_SCHEMA: '',
      ...bucket.info.env,
      LOG_FORMAT: 'json',
      TRUST_PROXY: '',
      ADMIN_TOKEN,
      // Receivers are on loopback, over plain HTTP (read by builders and by the operator's CLI).
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_ALLOW_INSECURE: '1',
    };
    const operatorEnv = { ...common, DATABASE_URL: postgres.url, REDIS_URL: redis.url, S3_ENDPOINT: bucket.info.endpoint };
    const envOf = (process: string, port: number, adminPort: number): Record<string, string> => {
      const uses = LINKS[process as (typeof PROCESSES)[number]];
      return {
        ...common,
        PORT: String(port),
        ADMIN_PORT: String(adminPort),
        REDIS_URL: `redis://${via(process, 'redis')}`,
        S3_ENDPOINT: `http://${via(process, 'store')}`,
        ...(uses.includes('postgres')
          ? {
              DATABASE_URL: `postgres://postgres@${via(process, 'postgres')}/postgres`,
            }
          : {}),
        ...(uses.includes('cdn') ? { SNAPSHOT_CDN_URL: `http://${via(process, 'cdn')}/${bucket.info.bucket}/${PREFIX}` } : {}),
        ...(process.startsWith('gateway') ? { SNAPSHOT_PIN_SECONDS: String(PIN_WINDOW_SECONDS), USAGE_MOVE_SECONDS: String(USAGE_MOVE_SECONDS) } : {}),
      };
    };
    const processes = new Map<string, Supervised>();
    const supervise = async (name: string, args: string[], ready: RegExp, target: number, readyTimeoutMs?: number) => {
      const port = await freePort();
      const adminPort = await freePort();
      const supervised = new Supervised(name, args, envOf(name, port, adminPort), ready, join(logs, `${name}.log`), target, readyTimeoutMs);
      processes.set(name, supervised);
      stops.push(() => supervised.stop());
      await supervised.start();
      return { port, adminPort };
    };

    say(`first build of ${size.organizations} organizations (builder-1 is ready once it is published)…`);
    const building = performance.now();
    const heartbeat = setInterval(() => say(`  still building (${seconds(building)})`), 30_000);
    const builder1 = await supervise('builder-1', ['builder'], /builder running/, RSS_TARGET_MB.builder, 30 * 60_000).finally(() => clearInterval(heartbeat));
    // The rest start together: none waits for another once the first build is published.
    const gatewayNames = ['gateway-1', 'gateway-2'];
    const [, ...gatewayPorts] = await Promise.all([
      supervise('builder-2', ['builder'], /builder running/, RSS_TARGET_MB.builder, 30 * 60_000),
      ...gatewayNames.map((name) => supervise(name, ['serve'], /gateway listening on (http:\/\/\S+),/, RSS_TARGET_MB.gateway)),
    ]);
    signal.throwIfAborted();
    say(`first build published, the other builder and both gateways running in ${seconds(building)}`);
    const gateways: ChaosWorld['gateways'] = gatewayNames.map((name, i) => ({ name, url: `http://127.0.0.1:${gatewayPorts[i]!.port}` }));
    return {
      db,
      postgres,
      redis,
      cdn,
      bucket: { pid: bucket.pid, endpoint: bucket.info.endpoint, bucket: bucket.info.bucket },
      links,
      processes,
      gateways,
      adminUrl: `http://127.0.0.1:${builder1.adminPort}/admin/v1`,
      operatorEnv,
      cli: (args) => marquee(args, operatorEnv),
      home,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    signal.removeEventListener('abort', terminateStartingProcesses);
  }
}
