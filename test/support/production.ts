// The production shape on one machine, as an operator runs it (docs/production.md): PostgreSQL
// with the sample platform, s3rver as the bucket (behind test/support/conditional-writes.ts, which
// gives it S3's semantics), nginx as the CDN in front of it, Redis, and the
// real `marquee builder` and `marquee serve` processes configured only through the environment.
// Every server is started here on loopback and stopped by `stop`; each part can be halted and
// resumed for fault tests.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type CliRun, marquee, marqueeProcess } from './cli.ts';
import { type ConditionalWritesOptions, startConditionalWrites } from './conditional-writes.ts';
import { startHttpCache, type TestHttpCache } from './http-cache.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import { startRedis, type TestRedis } from './redis.ts';
import { startS3, type TestS3 } from './s3.ts';

export interface MarqueeProcess {
  /** Its process id (benchmarks read its memory from /proc). */
  pid: number;
  output(): string;
  stop(): Promise<void>;
  /** SIGKILL, as a crash or an OOM kill would: no shutdown, no lock released. */
  kill(): Promise<void>;
}

export interface ServeProcess extends MarqueeProcess {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
}

export interface ProductionWorld {
  postgres: TestPostgres;
  redis: TestRedis;
  s3: TestS3;
  cdn: TestHttpCache;
  /** What every marquee process of this world is started with. */
  env: Record<string, string>;
  /** `marquee <args>` with the world's environment. */
  cli(args: string[]): Promise<CliRun>;
  /** One statement against the platform database. */
  sql(text: string, params?: unknown[]): Promise<pg.QueryResult>;
  /** Resolves once it has built every organization and listens for changes; `env` adds to the world's. */
  builder(env?: Record<string, string>, options?: { readyTimeoutMs?: number }): Promise<MarqueeProcess>;
  /** Resolves once the gateway answers. */
  serve(): Promise<ServeProcess>;
  stop(): Promise<void>;
}

const PREFIX = 'marquee/api';

/** What a test holds of a started process. */
function running(started: Awaited<ReturnType<typeof marqueeProcess>>): MarqueeProcess {
  const exited = new Promise<void>((resolve) => started.child.once('exit', () => resolve()));
  return {
    pid: started.child.pid!,
    output: started.output,
    stop: started.stop,
    kill: async () => {
      if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A migrated platform database with the sample organizations, and every backend around it. */
export async function startProductionWorld(options: { bucket?: ConditionalWritesOptions } = {}): Promise<ProductionWorld> {
  const started: Array<{ stop(): Promise<void> }> = [];
  const processes: MarqueeProcess[] = [];
  const home = await mkdtemp(join(tmpdir(), 'marquee-production-'));
  const stopAll = async () => {
    await Promise.all(processes.map((process) => process.stop()));
    for (const part of started.reverse()) await part.stop();
    await rm(home, { recursive: true, force: true });
  };
  try {
    const [postgres, redis, s3] = await Promise.all([startPostgres(), startRedis(), startS3()]);
    started.push(postgres, redis, s3);
    // S3's own semantics in front of s3rver (conditional writes, whole reads during a write); the
    // builder, the gateways and the CDN all talk to it, as they would to S3.
    const bucket = await startConditionalWrites(s3, options.bucket);
    started.push({ stop: () => bucket.close() });
    const cdn = await startHttpCache(bucket.endpoint);
    started.push(cdn);
    const env: Record<string, string> = {
      MARQUEE_HOME: home,
      DATABASE_URL: postgres.url,
      PLATFORM_SCHEMA: '',
      ...s3.env(PREFIX),
      S3_ENDPOINT: bucket.endpoint,
      SNAPSHOT_CDN_URL: `${cdn.url}/${s3.bucket}/${PREFIX}`,
      REDIS_URL: redis.url,
      PORT: '0',
      ADMIN_PORT: '0',
      LOG_FORMAT: 'json',
      TRUST_PROXY: '',
    };
    const cli = (args: string[]) => marquee(args, env);
    for (const args of [
      ['db', 'migrate'],
      ['db', 'seed', '--sample'],
    ]) {
      const run = await cli(args);
      if (run.code !== 0) throw new Error(`marquee ${args.join(' ')} failed (${run.code}): ${run.stderr}`);
    }
    const pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
    // An idle connection lost to a halted server is an event, not a crash of the test process.
    pool.on('error', () => {});
    started.push({ stop: () => pool.end() });
    const keep = <P extends MarqueeProcess>(process: P): P => {
      processes.push(process);
      return process;
    };
    return {
      postgres,
      redis,
      s3,
      cdn,
      env,
      cli,
      sql: (text, params = []) => pool.query(text, params),
      builder: async (extra = {}, options = {}) => keep(running(await marqueeProcess(['builder'], { ...env, ...extra }, /builder running/, options))),
      serve: async () => {
        const started = await marqueeProcess(['serve'], env, /gateway listening on (http:\/\/\S+),/);
        return keep({ ...running(started), url: started.match[1]! });
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
