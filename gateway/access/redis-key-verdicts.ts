// Key verdicts from Redis (docs/design.md "Production shape"): the key's record and its request
// counted against the limit shared by every gateway, in one script call for every request the
// gateway gathered in one turn of its event loop (access/verdict-batch.ts; docs/design.md "Keys
// and the rate limit in one call per turn"): the script reads each record and, for an unrevoked
// key, runs the sliding-window count (access/redis-sliding-window.ts) on the key's bucket. One
// turn's calls are in flight at a time; what arrives meanwhile goes in the next, sent when their
// replies are read, so the busier the gateway, the more each call carries. A request then refused with 403
// gives its slot back in a second script call; those are rare.
//
// While Redis cannot be reached, the gateway keeps answering on its own: a key whose verdict it
// saw within the last minutes (access/recent-verdicts.ts) is judged as then, and its requests
// are counted by an in-process limiter with the same limit; a key it has not seen gets 503 with
// Retry-After (closed for authentication, but never a 401 for a key that may be valid). It logs
// once when it loses Redis and once when it has it back. While degraded it does not wait for
// Redis: one PING at a time probes it in the background, and the first that succeeds sends
// requests back to Redis, without a restart.
//
// A key missing from Redis is unknown (401) only if the copy is complete (docs/design.md "Keys
// outlive any cache"): the same script reads the `keys-synced` marker, which a key keeper sets to
// a change number once it has written every record, and which goes with the data whenever Redis
// loses it (FLUSHALL, FLUSHDB, a restart without persistence, a new instance). Without a number
// there, a missing key may be a valid one not copied back yet: 503 with Retry-After, as while Redis
// cannot be reached, but not answered from memory — a revocation written into the emptied copy
// after this gateway's last look at the key would not be there. A gateway that has never seen the
// marker since it started (a Redis that no keeper fills: seeded by a benchmark, or written by a
// release from before the key keeper) answers a missing key 401, as such a Redis was always read.
import type { Redis } from 'ioredis';
import type { BackendStates } from '../../runtime/backend-states.ts';
import { describeError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import type { Awaitable } from '../../runtime/awaitable.ts';
import { InMemoryRateLimiter } from './in-memory-rate-limiter.ts';
import type { KeyVerdict, KeyVerdicts, UsableVerdict } from './key-verdicts.ts';
import type { RateDecision } from './rate-limit.ts';
import { withinDeadline } from '../../runtime/deadline.ts';
import type { CacheStats } from '../../runtime/lru.ts';
import { RecentVerdicts, type RecentVerdictsOptions } from './recent-verdicts.ts';
import { SLIDING_WINDOW_LUA } from './redis-sliding-window.ts';
import { type BatchJudge, type BatchReply, bucketKey, COMPLETE, REFILLING, VERDICT_BATCH_SCRIPT, VerdictBatch } from './verdict-batch.ts';

export interface RedisKeyVerdictsOptions {
  /** Where losing and regaining Redis is reported. */
  log: Log;
  /** Prefix of every Redis key; the key store's (default `marquee:`). */
  namespace?: string;
  /** Requests per key in any window; default 600 in 60 s (docs/api.md §8). */
  limit?: number;
  windowSeconds?: number;
  /** The memory of recent verdicts used while Redis cannot be reached. */
  recent?: RecentVerdictsOptions;
  /** Heap bytes of the per-key counts kept in this process while Redis cannot be reached; default 4 MB. */
  localRateBytes?: number;
  /** Retry-After of the 503 for a key that cannot be judged; default 5 s, about when a reconnect has been tried. */
  retryAfterSeconds?: number;
  /** A verdict or probe not answered within this (once the sockets have been read) is a Redis that cannot be reached; default VERDICT_DEADLINE_MS. */
  commandTimeoutMs?: number;
  /** The process's backend states: Redis is written `down` the moment a verdict finds it so, and `ok` when a probe finds it back. */
  states?: BackendStates;
}

/** What a gateway does while Redis does not answer, as /readyz says it. */
const REDIS_MEANWHILE = 'answering the keys it checked in the last 5 minutes from memory and counting their requests in this process; 503 with Retry-After for other keys';

/**
 * 2 s, as Kong's rate limiting gives Redis. What the deadline protects is a request's wait for a
 * Redis that stopped answering (a black hole, a stopped process): past it, the gateway answers from
 * memory without waiting. Giving up is dear here, unlike in a rate limiter that fails open (Envoy's
 * 20 ms): one timeout sends the whole gateway to memory, where keys not seen lately get 503 and a
 * revocation made meanwhile is not seen. At 500 ms a machine busy with other work (Redis or the
 * gateway starved of CPU for half a second) tripped it outside any fault (docs/reliability.md).
 */
const VERDICT_DEADLINE_MS = 2_000;

/**
 * Requests a script call carries at most: a script holds Redis for its whole run, every other
 * client waiting (other gateways, builders' locks), so more requests in one turn go in several
 * calls, sent together.
 */
const MAX_BATCH = 256;

const GIVE_BACK_LUA = `${SLIDING_WINDOW_LUA}
return giveBack(KEYS[1], ARGV[1])`;

/**
 * The batch script's command name: redis-access.ts keeps it out of ioredis's auto-pipelining,
 * whose own setImmediate would hold each batch one more turn (this class gathers them already).
 */
export const VERDICT_BATCH_COMMAND = 'marqueeKeyVerdicts';

interface VerdictCommands {
  [VERDICT_BATCH_COMMAND](...args: Array<string | number>): Promise<BatchReply>;
  marqueeKeyGiveBack(bucket: string, second: number): Promise<number>;
}

const UNKNOWN: KeyVerdict = { record: undefined };

export class RedisKeyVerdicts implements KeyVerdicts {
  readonly limit: number;
  readonly windowSeconds: number;
  private readonly redis: Redis & VerdictCommands;
  private readonly namespace: string;
  private readonly log: Log;
  private readonly recent: RecentVerdicts;
  /** Counts while Redis cannot be reached, per key id, in this process only. */
  private readonly local: InMemoryRateLimiter;
  private readonly unavailable: KeyVerdict;
  private readonly commandTimeoutMs: number;
  private readonly states: BackendStates | undefined;
  /** This gateway has seen a keeper's mark on the copy since it started: a copy without one has lost its data. */
  private kept = false;
  private degraded = false;
  private probing = false;
  private isoMs = Number.NaN;
  private iso = '';
  /** The requests gathered for the next script calls, MAX_BATCH a call. */
  private pending: VerdictBatch[] = [];
  /** Calls whose replies are awaited: the next ones wait for them. */
  private inFlight = 0;
  /** A send of `pending` is scheduled. */
  private scheduled = false;
  /** What a batch's reply means here. */
  private readonly judge: BatchJudge = {
    // Redis's record of a key, for the memory used while it cannot be reached.
    found: (secretHash, record, nowMs) => {
      if (record === undefined) this.recent.forget(secretHash);
      else this.recent.confirm(record, nowMs);
    },
    // Unknown beside a complete copy, or beside one no keeper ever marked; otherwise a key that cannot be checked.
    unknown: (mark) => {
      if (mark === COMPLETE || mark === REFILLING) this.kept = true;
      return mark === COMPLETE || !this.kept ? UNKNOWN : this.unavailable;
    },
    withoutRedis: (secretHash, nowMs, error) => {
      this.degrade(error);
      return this.fromMemory(secretHash, nowMs);
    },
  };

  constructor(redis: Redis, options: RedisKeyVerdictsOptions) {
    this.limit = options.limit ?? 600;
    this.windowSeconds = options.windowSeconds ?? 60;
    this.namespace = options.namespace ?? 'marquee:';
    this.log = options.log;
    this.recent = new RecentVerdicts(options.recent);
    this.local = new InMemoryRateLimiter({ limit: this.limit, windowSeconds: this.windowSeconds, maxBytes: options.localRateBytes ?? 4 * 1024 * 1024 });
    this.unavailable = { record: undefined, retryAfterSeconds: options.retryAfterSeconds ?? 5 };
    this.commandTimeoutMs = options.commandTimeoutMs ?? VERDICT_DEADLINE_MS;
    this.states = options.states;
    this.states?.use('redis', { meanwhile: REDIS_MEANWHILE });
    // EVALSHA, falling back to EVAL once after a Redis restart emptied its script cache.
    if (!(VERDICT_BATCH_COMMAND in redis)) {
      redis.defineCommand(VERDICT_BATCH_COMMAND, VERDICT_BATCH_SCRIPT);
      redis.defineCommand('marqueeKeyGiveBack', { numberOfKeys: 1, lua: GIVE_BACK_LUA });
    }
    this.redis = redis as Redis & VerdictCommands;
  }

  /** The bounded memories, for /metrics. */
  get caches(): { verdicts: CacheStats; key_rates: CacheStats } {
    return { verdicts: this.recent.stats, key_rates: this.local.stats };
  }

  /** Keys that would be answered from memory now: none while Redis answers. */
  get answeredFromMemory(): number {
    return this.degraded ? this.recent.answerable(Date.now()) : 0;
  }

  /**
   * The background probe (runtime/backend-probes.ts): resolves when Redis answers a PING, and
   * sends requests back to Redis if they were answered from memory; rejects, and answers from
   * memory from now on, when it does not. Without it, a gateway that gets no request while Redis
   * is away would go on saying Redis is down after its return.
   */
  async ping(): Promise<void> {
    try {
      // Said plainly: a command sent while the connection is down fails with ioredis' words for its offline queue.
      if (this.redis.status !== 'ready') throw new Error(`the connection to Redis is not up (${this.redis.status})`);
      await withinDeadline(this.redis.ping(), this.commandTimeoutMs, 'Redis PING');
    } catch (error) {
      this.degrade(error);
      throw error;
    }
    this.recover();
  }

  verdict(secretHash: string, nowMs: number): Awaitable<KeyVerdict> {
    if (this.degraded) {
      this.probe();
      return this.fromMemory(secretHash, nowMs);
    }
    return new Promise<KeyVerdict>((resolve, reject) => {
      let batch = this.pending.at(-1);
      if (batch === undefined || batch.size >= MAX_BATCH) {
        batch = new VerdictBatch();
        this.pending.push(batch);
      }
      batch.add(secretHash, nowMs, this.isoOf(nowMs), { resolve, reject });
      this.schedule();
    });
  }

  /** Once the requests of this turn have come in (setImmediate runs after the loop has read its sockets), unless calls are in flight. */
  private schedule(): void {
    if (this.scheduled || this.inFlight > 0) return;
    this.scheduled = true;
    setImmediate(this.send);
  }

  private readonly send = (): void => {
    this.scheduled = false;
    const batches = this.pending;
    this.pending = [];
    for (const batch of batches) this.call(batch);
  };

  private call(batch: VerdictBatch): void {
    // Gone meanwhile (a call before this one found Redis down): no waiting for it.
    if (this.degraded) {
      this.probe();
      batch.fail(new Error('Redis cannot be reached'), this.judge);
      return;
    }
    this.inFlight++;
    let reply: Promise<BatchReply>;
    try {
      reply = this.redis[VERDICT_BATCH_COMMAND](...batch.args(this.namespace, this.limit, this.windowSeconds));
    } catch (error) {
      reply = Promise.reject(error);
    }
    const fail = (error: unknown) => batch.fail(error instanceof Error ? error : new Error(String(error)), this.judge);
    withinDeadline(reply, this.commandTimeoutMs, 'Redis key verdicts')
      .then((reply) => batch.settle(reply, this.limit, this.judge), fail)
      // A reply that could not be read to the end: the requests not answered yet are answered without it.
      .catch(fail)
      .finally(() => {
        this.inFlight--;
        if (this.pending.length > 0) this.schedule();
      });
  }

  /** Counted by the verdict in Redis; a verdict from memory is counted here, in this process. */
  settle(verdict: UsableVerdict, nowMs: number): Awaitable<RateDecision> {
    return verdict.rate ?? this.local.consume(verdict.record.id, nowMs);
  }

  release(verdict: UsableVerdict): Awaitable<void> {
    if (verdict.countedIn === undefined || verdict.rate?.allowed !== true) return;
    // A give-back that fails (Redis gone meanwhile) costs the key one slot for a window: not worth an error.
    return this.redis.marqueeKeyGiveBack(bucketKey(this.namespace, verdict.record.secretHash), verdict.countedIn).then(ignore, ignore);
  }

  /** The instant as the script compares it; formatting costs about 1 µs, so one per millisecond, shared by that millisecond's requests. */
  private isoOf(nowMs: number): string {
    if (nowMs !== this.isoMs) {
      this.isoMs = nowMs;
      this.iso = new Date(nowMs).toISOString();
    }
    return this.iso;
  }

  private fromMemory(secretHash: string, nowMs: number): KeyVerdict {
    const record = this.recent.recall(secretHash, nowMs);
    return record === undefined ? this.unavailable : { record };
  }

  private degrade(error: unknown): void {
    if (this.degraded) return;
    this.degraded = true;
    this.states?.failed('redis', describeError(error));
    this.log.warn('Redis cannot be reached: answering the keys seen in the last minutes from memory and counting their requests in this process; other keys get 503', {
      err: error,
    });
  }

  private probe(): void {
    if (this.probing) return;
    this.probing = true;
    withinDeadline(this.redis.ping(), this.commandTimeoutMs, 'Redis PING').then(
      () => {
        this.probing = false;
        this.recover();
      },
      () => {
        this.probing = false;
      },
    );
  }

  private recover(): void {
    this.states?.answered('redis');
    if (!this.degraded) return;
    this.degraded = false;
    this.log.info('Redis is reachable again: keys and rate counts are shared through it again');
  }
}

function ignore(): void {}
