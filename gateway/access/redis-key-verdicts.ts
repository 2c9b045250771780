// Key verdicts from Redis (docs/design.md "Production shape"): the key's record and its request
// counted against the limit shared by every gateway, in ONE round trip per request — a Lua script
// that reads the record and, for an unrevoked key, runs the sliding-window count
// (access/redis-sliding-window.ts) on the key's bucket. A request then refused with 403 gives its
// slot back in a second script call; those are rare.
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
import { RECORD_FIELDS, RELOADING, recordKey, recordOf, syncedKey } from '../../records/keys/redis-key-store.ts';
import { InMemoryRateLimiter } from './in-memory-rate-limiter.ts';
import type { KeyVerdict, KeyVerdicts, UsableVerdict } from './key-verdicts.ts';
import type { RateDecision } from './rate-limit.ts';
import { withinDeadline } from '../../runtime/deadline.ts';
import type { CacheStats } from '../../runtime/lru.ts';
import { RecentVerdicts, type RecentVerdictsOptions } from './recent-verdicts.ts';
import { SLIDING_WINDOW_LUA } from './redis-sliding-window.ts';

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

const REVOKED_AT = RECORD_FIELDS.indexOf('revokedAt') + 1;
const SCHEDULED = RECORD_FIELDS.indexOf('revocationScheduled') + 1;
const EXPIRES_AT = RECORD_FIELDS.indexOf('expiresAt') + 1;
/** Where a reply holds the copy's mark and the count (0-based): after the record's fields. */
const MARK_AT = RECORD_FIELDS.length;
const COUNT_AT = MARK_AT + 1;
/** The copy's mark: no marker (lost, or never filled), a keeper's number (complete), a keeper refilling it. */
const NO_MARK = 0;
const COMPLETE = 1;
const REFILLING = 2;

// KEYS: the record, the key's rate bucket, the keys-synced marker; ARGV: limit, window, nowMs, now
// as an ISO instant. Answers the copy's mark alone for an unknown key; the record's fields and the
// mark for one revoked (outright, or scheduled and due) or expired at that instant (not counted);
// and those followed by the count (allowed, remaining, resetSeconds, second) for a usable one.
// Usable is key-validity.ts's rule: the stored instants are toISOString's texts, so comparing them
// with now's text compares the instants. The mark is read for every key, so that a gateway learns
// that a keeper keeps this copy before it ever needs to know. The marker lies outside the record's
// hash slot: Marquee runs on one Redis (with replicas or not), not Redis Cluster, whose slots the
// key store's own transactions already span.
const VERDICT_LUA = `${SLIDING_WINDOW_LUA}
local synced = redis.call('GET', KEYS[3])
local mark = ${NO_MARK}
if synced then
  if string.sub(synced, 1, ${RELOADING.length}) == '${RELOADING}' then mark = ${REFILLING} else mark = ${COMPLETE} end
end
local record = redis.call('HMGET', KEYS[1], ${RECORD_FIELDS.map((field) => `'${field}'`).join(', ')})
if not record[1] then return {mark} end
record[${MARK_AT + 1}] = mark
local revokedAt, expiresAt = record[${REVOKED_AT}], record[${EXPIRES_AT}]
if (revokedAt and (not record[${SCHEDULED}] or revokedAt <= ARGV[4])) or (expiresAt and expiresAt <= ARGV[4]) then return record end
local counted = count(KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
for i = 1, 4 do record[${COUNT_AT} + i] = counted[i] end
return record`;

const GIVE_BACK_LUA = `${SLIDING_WINDOW_LUA}
return giveBack(KEYS[1], ARGV[1])`;

type VerdictReply = Array<string | number | null>;

interface VerdictCommands {
  marqueeKeyVerdict(record: string, bucket: string, synced: string, limit: number, windowSeconds: number, nowMs: number, nowIso: string): Promise<VerdictReply>;
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
  private readonly synced: string;
  private readonly states: BackendStates | undefined;
  /** This gateway has seen a keeper's mark on the copy since it started: a copy without one has lost its data. */
  private kept = false;
  private degraded = false;
  private probing = false;
  private isoMs = Number.NaN;
  private iso = '';

  constructor(redis: Redis, options: RedisKeyVerdictsOptions) {
    this.limit = options.limit ?? 600;
    this.windowSeconds = options.windowSeconds ?? 60;
    this.namespace = options.namespace ?? 'marquee:';
    this.synced = syncedKey(this.namespace);
    this.log = options.log;
    this.recent = new RecentVerdicts(options.recent);
    this.local = new InMemoryRateLimiter({ limit: this.limit, windowSeconds: this.windowSeconds, maxBytes: options.localRateBytes ?? 4 * 1024 * 1024 });
    this.unavailable = { record: undefined, retryAfterSeconds: options.retryAfterSeconds ?? 5 };
    this.commandTimeoutMs = options.commandTimeoutMs ?? VERDICT_DEADLINE_MS;
    this.states = options.states;
    this.states?.use('redis', { meanwhile: REDIS_MEANWHILE });
    // EVALSHA, falling back to EVAL once after a Redis restart emptied its script cache.
    if (!('marqueeKeyVerdict' in redis)) {
      redis.defineCommand('marqueeKeyVerdict', { numberOfKeys: 3, lua: VERDICT_LUA });
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
    const reply = this.redis.marqueeKeyVerdict(
      recordKey(this.namespace, secretHash),
      this.bucketOf(secretHash),
      this.synced,
      this.limit,
      this.windowSeconds,
      nowMs,
      this.isoOf(nowMs),
    );
    return withinDeadline(reply, this.commandTimeoutMs, 'Redis key verdict').then(
      (reply) => this.fromReply(reply, secretHash, nowMs),
      (error: unknown) => {
        this.degrade(error);
        return this.fromMemory(secretHash, nowMs);
      },
    );
  }

  /** Counted by the verdict in Redis; a verdict from memory is counted here, in this process. */
  settle(verdict: UsableVerdict, nowMs: number): Awaitable<RateDecision> {
    return verdict.rate ?? this.local.consume(verdict.record.id, nowMs);
  }

  release(verdict: UsableVerdict): Awaitable<void> {
    if (verdict.countedIn === undefined || verdict.rate?.allowed !== true) return;
    // A give-back that fails (Redis gone meanwhile) costs the key one slot for a window: not worth an error.
    return this.redis.marqueeKeyGiveBack(this.bucketOf(verdict.record.secretHash), verdict.countedIn).then(ignore, ignore);
  }

  /** The instant as the script compares it; formatting costs about 1 µs, so one per millisecond, shared by that millisecond's requests. */
  private isoOf(nowMs: number): string {
    if (nowMs !== this.isoMs) {
      this.isoMs = nowMs;
      this.iso = new Date(nowMs).toISOString();
    }
    return this.iso;
  }

  /** Same hash tag as the record, so that the verdict's script touches one Redis Cluster slot. */
  private bucketOf(secretHash: string): string {
    return `${this.namespace}key-rate:{${secretHash}}`;
  }

  private fromReply(reply: VerdictReply, secretHash: string, nowMs: number): KeyVerdict {
    const mark = reply.length === 1 ? reply[0] : reply[MARK_AT];
    if (mark === COMPLETE || mark === REFILLING) this.kept = true;
    if (reply.length === 1) {
      this.recent.forget(secretHash);
      return mark === COMPLETE || !this.kept ? UNKNOWN : this.unavailable;
    }
    const record = recordOf(reply as Array<string | null>, secretHash)!;
    this.recent.confirm(record, nowMs);
    if (reply.length === COUNT_AT) return { record };
    const rate: RateDecision = { allowed: reply[COUNT_AT] === 1, limit: this.limit, remaining: reply[COUNT_AT + 1] as number, resetSeconds: reply[COUNT_AT + 2] as number };
    return { record, rate, countedIn: reply[COUNT_AT + 3] as number };
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
