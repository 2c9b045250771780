// The work list of divided runs in Redis (REDIS_URL), shared by every builder of a deployment: each
// run's organizations are entries of a Redis Stream read through one consumer group, so an entry is
// delivered to one builder (XREADGROUP), stays pending under that builder's name until it records
// the result (XACK), and is taken over by another builder with XAUTOCLAIM once it has been idle
// longer than the claim timeout — its builder died, since a live one keeps its claims fresh
// (XCLAIM … JUSTID resets their idle time). Results go to a list every builder reads from where it
// left off; a hash of the organizations done makes the first result count and a late duplicate a
// no-op, atomically with the count that finishes the run (a Lua script). Passes
// test/contracts/work-list.ts.
//
// Keys, under the prefix (default `marquee:`): `run:<id>` (the run, its total, done, finishedAt),
// `run:<id>:work` (the stream), `run:<id>:results` (list), `run:<id>:done` (hash), and
// `runs:unfinished` (a set of run ids). A run's keys expire a day after it finishes, or a week
// after it was opened if no builder is left to finish it.
import type { Redis } from 'ioredis';
import type { Log } from '../../snapshot/log.ts';
import { closeRedis, openRedis, whenReady } from '../../snapshot/redis-connection.ts';
import type { Target } from '../build.ts';
import { type Claim, DEFAULT_CLAIM_TIMEOUT_MS, type OpenedRun, type RunProgress, type RunResult, type WorkList } from './work-list.ts';

const GROUP = 'builders';
const DEFAULT_KEY_PREFIX = 'marquee:';
/** How long one command may wait for Redis: a builder that cannot reach it pauses and asks again. */
const COMMAND_TIMEOUT_MS = 5_000;
/** Entries written per round trip when a run is opened. */
const OPEN_BATCH = 1_000;
const FINISHED_KEPT_MS = 24 * 60 * 60 * 1_000;
const UNFINISHED_KEPT_MS = 7 * FINISHED_KEPT_MS;

// KEYS: run, work, results, done, unfinished. ARGV: run id, entry, organization id, result, finishedAt, kept ms.
const COMPLETE = `
redis.call('XACK', KEYS[2], '${GROUP}', ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[4], ARGV[3], '1') == 0 then return 0 end
redis.call('RPUSH', KEYS[3], ARGV[4])
local done = redis.call('HINCRBY', KEYS[1], 'done', 1)
if done >= tonumber(redis.call('HGET', KEYS[1], 'total')) then
  redis.call('HSET', KEYS[1], 'finishedAt', ARGV[5])
  redis.call('SREM', KEYS[5], ARGV[1])
  for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[6]) end
end
return 1`;

type StreamEntry = [id: string, fields: string[]];

export class RedisWorkList implements WorkList {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly claimTimeoutMs: number;

  constructor(url: string, options: { log: Log; keyPrefix?: string; claimTimeoutMs?: number }) {
    this.prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.claimTimeoutMs = options.claimTimeoutMs ?? DEFAULT_CLAIM_TIMEOUT_MS;
    // No offline queue: a builder that cannot reach Redis is told at once and pauses, rather than
    // piling up commands that would take organizations nobody is building any more.
    this.redis = openRedis(url, 'run work list', options.log, { enableOfflineQueue: false, autoResendUnfulfilledCommands: false, commandTimeout: COMMAND_TIMEOUT_MS });
  }

  async open(run: OpenedRun, organizations: readonly Target[]): Promise<void> {
    await this.ready();
    const keys = this.keys(run.id);
    await this.redis.xgroup('CREATE', keys.work, GROUP, '0', 'MKSTREAM');
    for (let start = 0; start < organizations.length; start += OPEN_BATCH) {
      const pipeline = this.redis.pipeline();
      for (const organization of organizations.slice(start, start + OPEN_BATCH)) pipeline.xadd(keys.work, '*', 'organization', JSON.stringify(organization));
      await execOrThrow(pipeline);
    }
    // Listed as unfinished only once every entry is in: a builder joining sees the whole run.
    const record = { run: JSON.stringify(run), total: String(run.total), done: '0', ...(run.total === 0 ? { finishedAt: run.startedAt } : {}) };
    const transaction = this.redis.multi().hset(keys.run, record);
    for (const key of [keys.run, keys.work, keys.results, keys.done]) transaction.pexpire(key, run.total === 0 ? FINISHED_KEPT_MS : UNFINISHED_KEPT_MS);
    if (run.total > 0) transaction.sadd(this.unfinishedKey(), run.id);
    await execOrThrow(transaction);
  }

  async unfinished(): Promise<OpenedRun[]> {
    await this.ready();
    const ids = await this.redis.smembers(this.unfinishedKey());
    const runs: OpenedRun[] = [];
    for (const id of ids) {
      const run = await this.redis.hget(this.keys(id).run, 'run');
      // Expired with nobody left to finish it: no longer a run anyone can take part in.
      if (run === null) await this.redis.srem(this.unfinishedKey(), id);
      else runs.push(JSON.parse(run) as OpenedRun);
    }
    return runs;
  }

  async take(runId: string, builder: string, count: number): Promise<Claim[]> {
    await this.ready();
    const { work } = this.keys(runId);
    if ((await this.redis.exists(work)) === 0) return [];
    const [, abandoned] = (await this.redis.xautoclaim(work, GROUP, builder, this.claimTimeoutMs, '0-0', 'COUNT', count)) as [string, StreamEntry[]];
    const claims = abandoned.map(claimOf);
    if (claims.length < count) {
      const read = (await this.redis.xreadgroup('GROUP', GROUP, builder, 'COUNT', count - claims.length, 'STREAMS', work, '>')) as Array<[string, StreamEntry[]]> | null;
      for (const [, entries] of read ?? []) claims.push(...entries.map(claimOf));
    }
    return claims;
  }

  async keep(runId: string, builder: string, entries: readonly string[]): Promise<void> {
    if (entries.length === 0) return;
    await this.ready();
    await this.redis.xclaim(this.keys(runId).work, GROUP, builder, 0, ...entries, 'JUSTID');
  }

  async complete(runId: string, entry: string, result: RunResult): Promise<void> {
    await this.ready();
    const keys = this.keys(runId);
    await this.redis.eval(
      COMPLETE,
      5,
      keys.run,
      keys.work,
      keys.results,
      keys.done,
      this.unfinishedKey(),
      runId,
      entry,
      result.id,
      JSON.stringify(result),
      new Date().toISOString(),
      FINISHED_KEPT_MS,
    );
  }

  async progress(runId: string, from = 0): Promise<RunProgress | undefined> {
    await this.ready();
    const keys = this.keys(runId);
    const answers = await execOrThrow(this.redis.multi().hgetall(keys.run).lrange(keys.results, from, -1));
    const [record, results] = answers as [Record<string, string>, string[]];
    if (record.run === undefined) return undefined;
    return {
      run: JSON.parse(record.run) as OpenedRun,
      done: Number(record.done),
      finishedAt: record.finishedAt ?? null,
      results: results.map((text) => JSON.parse(text) as RunResult),
    };
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }

  private ready(): Promise<void> {
    return whenReady(this.redis, COMMAND_TIMEOUT_MS);
  }

  private keys(runId: string) {
    const run = `${this.prefix}run:${runId}`;
    return { run, work: `${run}:work`, results: `${run}:results`, done: `${run}:done` };
  }

  private unfinishedKey(): string {
    return `${this.prefix}runs:unfinished`;
  }
}

function claimOf([entry, fields]: StreamEntry): Claim {
  return { entry, organization: JSON.parse(fields[fields.indexOf('organization') + 1]!) as Target };
}

/** A pipeline's or transaction's replies; the first command's error is thrown. */
async function execOrThrow(batch: { exec(): Promise<Array<[Error | null, unknown]> | null> }): Promise<unknown[]> {
  const replies = (await batch.exec()) ?? [];
  for (const [error] of replies) if (error) throw error;
  return replies.map(([, reply]) => reply);
}
