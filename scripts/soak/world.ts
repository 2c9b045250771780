// The production shape the soak runs on, composed from test/support's launchers because
// startProductionWorld seeds the sample platform and the soak needs the synthetic one: PostgreSQL
// with bench/synthetic-platform.ts, Redis, s3rver behind the conditional-writes proxy (in a child
// process: bucket-child.ts), nginx as the CDN in front of it, one real `marquee builder` (waited
// for until its first full build is published) and two `marquee serve`, configured only through
// the environment as docs/production.md says. Everything on loopback; `stop` ends all of it and
// is safe to call at any point, also half-way through the set-up.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ControlKeys, openKeyStore } from '../../records/keys/key-backends.ts';
import { generateSyntheticPlatform, type SyntheticPlatformOptions } from '../../bench/synthetic-platform.ts';
import { migrate } from '../../builder/platform/migrations.ts';
import { openPostgres } from '../../records/database/postgres.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import type { Log } from '../../runtime/log.ts';
import { type CliRun, marquee, marqueeProcess } from '../../test/support/cli.ts';
import { startHttpCache, type TestHttpCache } from '../../test/support/http-cache.ts';
import { startPostgres, type TestPostgres } from '../../test/support/postgres.ts';
import { startRedis, type TestRedis } from '../../test/support/redis.ts';
import type { BucketInfo } from './bucket-child.ts';
import { type LogTally, tallyLog } from './process-log.ts';

export const PREFIX = 'marquee/api';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A thousand organizations' first build into s3rver on a busy 2-core machine takes minutes; this only bounds a hang. */
const FIRST_BUILD_TIMEOUT_MS = 30 * 60_000;

/** A running marquee process: what the soak samples (its pid) and counts (its log). */
export interface SoakProcess {
  name: string;
  pid: number;
  log: LogTally;
  alive(): boolean;
  output(): string;
}

interface SoakGateway extends SoakProcess {
  url: string;
}

export interface SoakWorld {
  db: SqlClient;
  redisUrl: string;
  /** The key store `marquee keys` writes (the database, then Redis), for keys made in bulk; its warnings reach `say`. */
  openKeys(): Promise<ControlKeys>;
  builder: SoakProcess;
  gateways: SoakGateway[];
  /** s3rver's process (bucket-child.ts), whose CPU the summary shows: nearly every request reaches it. */
  bucketPid: number;
  /** `marquee <args>` with the builder's environment, as an operator's machine has it. */
  cli(args: string[]): Promise<CliRun>;
  stop(): Promise<void>;
}

interface WorldSize {
  organizations: number;
  eventsPerOrganization: number;
  sessionsPerEvent: number;
  /** The builder's BUILD_SCHEDULE: when it builds every organization (each run verifies them all). */
  fullBuilds: string;
}

/**
 * `say` reports progress: the first build of a thousand organizations is long. An abort of
 * `signal` during the set-up ends the marquee processes still starting, so that it fails at once.
 */
export async function startSoakWorld(size: WorldSize, say: (line: string) => void, signal: AbortSignal): Promise<SoakWorld> {
  signal.addEventListener('abort', terminateStartingProcesses);
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const part of stops.splice(0).reverse()) await part().catch((error: Error) => say(`clean-up: ${error.message}`));
  };
  try {
    const { home, postgres, redis, bucket, cdn, db } = await startBackends('soak', size, stops, say, signal);

    const env: Record<string, string> = {
      MARQUEE_HOME: home,
      DATABASE_URL: postgres.url,
      PLATFORM_SCHEMA: '',
      ...bucket.info.env,
      S3_ENDPOINT: bucket.info.endpoint,
      SNAPSHOT_CDN_URL: `${cdn.url}/${bucket.info.bucket}/${PREFIX}`,
      REDIS_URL: redis.url,
      BUILD_SCHEDULE: size.fullBuilds,
      // Every scheduled run verifies every organization in full (its share of FULL_BUILD_EVERY is
      // the whole fleet), so the soak keeps meeting full builds under load, as it did before
      // scheduled runs learned to build only what changed.
      FULL_BUILD_EVERY: '1s',
      PORT: '0',
      ADMIN_PORT: '0',
      LOG_FORMAT: 'json',
      TRUST_PROXY: '',
    };
    const launch = async (name: string, args: string[], processEnv: Record<string, string>, ready: RegExp, readyTimeoutMs?: number) => {
      const running = await marqueeProcess(args, processEnv, ready, readyTimeoutMs === undefined ? {} : { readyTimeoutMs });
      stops.push(running.stop);
      return { running, process: soakProcess(name, running.child, running.output) };
    };

    say(`first build of ${size.organizations} organizations into the bucket (the builder is ready once it is published)…`);
    const building = performance.now();
    const heartbeat = setInterval(() => say(`  still building (${seconds(building)})`), 30_000);
    const builder = await launch('builder', ['builder'], env, /builder running/, FIRST_BUILD_TIMEOUT_MS).finally(() => clearInterval(heartbeat));
    signal.throwIfAborted();
    say(`first build published in ${seconds(building)}`);

    // A gateway holds no database credential in production (docs/production.md).
    const { DATABASE_URL: _, ...gatewayEnv } = env;
    const gateways: SoakGateway[] = [];
    for (const n of [1, 2]) {
      const { running, process } = await launch(`gateway ${n}`, ['serve'], gatewayEnv, /gateway listening on (http:\/\/\S+),/);
      gateways.push({ ...process, url: running.match[1]! });
    }
    signal.throwIfAborted();
    const keyLog: Log = { info: () => {}, warn: (message) => say(`warning: ${message}`), error: (message) => say(`error: ${message}`) };
    const openKeys = () => openKeyStore({ redisUrl: redis.url, home }, async () => db, keyLog);
    return { db, redisUrl: redis.url, openKeys, builder: builder.process, gateways, bucketPid: bucket.pid, cli: (args) => marquee(args, env), stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    signal.removeEventListener('abort', terminateStartingProcesses);
  }
}

/** The backends a world runs on, each one's stop registered in the world's `stops` as soon as it runs. */
export interface Backends {
  home: string;
  postgres: TestPostgres;
  redis: TestRedis;
  bucket: Awaited<ReturnType<typeof startBucket>>;
  cdn: TestHttpCache;
  /** The world's own connection, straight to PostgreSQL, with the synthetic platform of `size` in it. */
  db: SqlClient;
}

/**
 * A MARQUEE_HOME (marquee-`kind`-…), PostgreSQL with the synthetic platform, Redis syncing once a
 * second as in production, s3rver in a child process and nginx in front of it. One after the
 * other, each stop pushed as soon as its part runs: a part started beside one that failed would
 * otherwise be left behind.
 */
export async function startBackends(
  kind: string,
  size: SyntheticPlatformOptions & { organizations: number },
  stops: Array<() => Promise<unknown>>,
  say: (line: string) => void,
  signal: AbortSignal,
): Promise<Backends> {
  const home = await mkdtemp(join(tmpdir(), `marquee-${kind}-`));
  stops.push(() => rm(home, { recursive: true, force: true }));
  const postgres = await startPostgres();
  stops.push(() => postgres.stop());
  const redis = await startRedis({ appendfsync: 'everysec' });
  stops.push(() => redis.stop());
  const bucket = await startBucket();
  stops.push(() => bucket.stop());
  const cdn = await startHttpCache(bucket.info.endpoint);
  stops.push(() => cdn.stop());
  const db = await openPostgres(postgres.url);
  stops.push(() => db.close());

  const started = performance.now();
  await migrate(db);
  await generateSyntheticPlatform(db, size);
  signal.throwIfAborted();
  say(`synthetic platform: ${size.organizations} organizations × ${size.eventsPerOrganization} events × ${size.sessionsPerEvent} sessions in ${seconds(started)}`);
  return { home, postgres, redis, bucket, cdn, db };
}

/**
 * SIGTERM to this process's marquee children (bin/marquee execs node on dist/bin/cli.js), found by
 * their parent pid: test/support/cli.ts hands a process over only once it is ready, and a builder
 * doing its first build is not. A terminal's Ctrl-C reaches them anyway; a SIGTERM to the soak alone does not.
 */
export function terminateStartingProcesses(): void {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('dist/bin/cli.js')) process.kill(Number(entry), 'SIGTERM');
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
}

function soakProcess(name: string, child: ChildProcess, output: () => string): SoakProcess {
  if (child.pid === undefined) throw new Error(`${name}: no pid`);
  // bin/marquee execs node: the pid is the Node process itself, whose memory is measured.
  return { name, pid: child.pid, log: tallyLog(child.stdout!), alive: () => child.exitCode === null && child.signalCode === null, output };
}

/** bucket-child.ts started and its first line read; `stop` closes its stdin and waits for it to exit. */
export async function startBucket(): Promise<{ info: BucketInfo; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/soak/bucket-child.ts'), PREFIX], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin!.end();
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };
  try {
    const info = await new Promise<BucketInfo>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const end = text.indexOf('\n');
        if (end >= 0) resolve(JSON.parse(text.slice(0, end)) as BucketInfo);
      });
      child.once('exit', (code) => reject(new Error(`the bucket process exited (${code}) before it listened`)));
      child.once('error', reject);
    });
    return { info, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}
