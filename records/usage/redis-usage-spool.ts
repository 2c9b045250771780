// The shared place for usage counts across machines (usage-spool.ts), in Redis: each batch under a
// key of its own with an expiry, its id in a set of waiting batches; once an intake has committed
// its counts, one transaction replaces the batch by a short-lived "counted" mark and takes its id
// out of the set. So at any instant a batch is waiting or marked counted, unless Redis lost it (a
// FLUSHALL, a restart without persistence): neither, which tells its gateway to put it again —
// the database's record of counted batches (usage-store.ts) keeps a batch put twice from counting twice.
import type { Redis } from 'ioredis';
import type { Settlement, UsageSpool, WaitingBatch } from './usage-spool.ts';

/** How long a batch waits for an intake: builders away (or the database down) longer than this lose it. */
const BATCH_TTL_SECONDS = 3 * 24 * 3600;
/** How long a counted mark stays: gateways settle every few seconds, so an hour is ample. */
const COUNTED_TTL_SECONDS = 3600;

/**
 * Takes out of the waiting set (KEYS[1]) the ids (ARGV[2..]) whose batch (ARGV[1] .. id) is still
 * missing now. Checked and removed in one step: between an intake's read that found no batch (Redis
 * lost its data) and its removal, the batch's gateway may have put it again, and a plain SREM would
 * then leave its batch stored but waiting in no set — never counted, and never put again, since its
 * gateway sees it still there. Answers how many it removed.
 */
const FORGET_MISSING_LUA = `
local removed = 0
for i = 2, #ARGV do
  if redis.call('EXISTS', ARGV[1] .. ARGV[i]) == 0 then removed = removed + redis.call('SREM', KEYS[1], ARGV[i]) end
end
return removed`;

interface SpoolCommands {
  marqueeUsageForgetMissing(waitingSet: string, batchPrefix: string, ...ids: string[]): Promise<number>;
}

export class RedisUsageSpool implements UsageSpool {
  private readonly redis: Redis & SpoolCommands;
  private readonly waitingSet: string;
  private readonly batchPrefix: string;
  private readonly countedPrefix: string;

  constructor(redis: Redis, { namespace = 'marquee:' }: { namespace?: string } = {}) {
    if (!('marqueeUsageForgetMissing' in redis)) redis.defineCommand('marqueeUsageForgetMissing', { numberOfKeys: 1, lua: FORGET_MISSING_LUA });
    this.redis = redis as Redis & SpoolCommands;
    this.waitingSet = `${namespace}usage:waiting`;
    this.batchPrefix = `${namespace}usage:batch:`;
    this.countedPrefix = `${namespace}usage:counted:`;
  }

  async put(batch: WaitingBatch): Promise<void> {
    await this.redis
      .multi()
      .set(this.batchPrefix + batch.id, batch.payload, 'EX', BATCH_TTL_SECONDS)
      .sadd(this.waitingSet, batch.id)
      .exec()
      .then(failedIn);
  }

  async settle(ids: readonly string[]): Promise<Settlement> {
    if (ids.length === 0) return { counted: [], lost: [] };
    const pipeline = this.redis.pipeline();
    // The batch first: an intake that counts it between the two replaces it by its mark in one
    // transaction, so a batch gone is then seen marked, never taken for lost.
    for (const id of ids) pipeline.exists(this.batchPrefix + id).exists(this.countedPrefix + id);
    const found = failedIn(await pipeline.exec());
    const settled: { counted: string[]; lost: string[] } = { counted: [], lost: [] };
    ids.forEach((id, index) => {
      if (found[2 * index + 1] === 1) settled.counted.push(id);
      else if (found[2 * index] === 0) settled.lost.push(id);
    });
    return settled;
  }

  async waiting(limit: number): Promise<WaitingBatch[]> {
    const ids = await this.redis.srandmember(this.waitingSet, limit);
    if (ids.length === 0) return [];
    const payloads = await this.redis.mget(ids.map((id) => this.batchPrefix + id));
    const batches: WaitingBatch[] = [];
    const missing: string[] = [];
    ids.forEach((id, index) => {
      const payload = payloads[index];
      if (payload === null || payload === undefined) missing.push(id);
      else batches.push({ id, payload });
    });
    // An id whose batch expired, or was lost with Redis's data, waits for nothing — unless its
    // gateway has put it again meanwhile (FORGET_MISSING_LUA).
    if (missing.length > 0) await this.redis.marqueeUsageForgetMissing(this.waitingSet, this.batchPrefix, ...missing);
    return batches;
  }

  countWaiting(): Promise<number> {
    return this.redis.scard(this.waitingSet);
  }

  async markCounted(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const transaction = this.redis.multi();
    for (const id of ids) transaction.set(this.countedPrefix + id, '1', 'EX', COUNTED_TTL_SECONDS).del(this.batchPrefix + id);
    transaction.srem(this.waitingSet, ...ids);
    failedIn(await transaction.exec());
  }
}

/** The replies of a MULTI or a pipeline; the first error among them is thrown. */
function failedIn(results: [Error | null, unknown][] | null): unknown[] {
  if (results === null) throw new Error('a Redis transaction was discarded');
  const failed = results.find(([error]) => error !== null);
  if (failed !== undefined) throw failed[0];
  return results.map(([, value]) => value);
}
