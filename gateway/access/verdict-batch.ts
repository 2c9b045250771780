// The key verdicts of one turn of a gateway's event loop, judged by Redis in ONE script call
// (docs/design.md "Keys and the rate limit in one call per turn"): what a batch gathers, the
// script, its KEYS and ARGV, and its reply read back into one answer per request. No I/O here: the
// connection, the deadline and what to do without Redis are access/redis-key-verdicts.ts's.
//
// Requests of one key at one millisecond form a group, counted by one call of the sliding window's
// `count` with their number: exactly what as many calls one after the other would decide (the
// first ones allowed, each its own `remaining`). The script runs atomically, so every request of a
// batch is judged on the records and counts as they are when it runs, which is after every one of
// them arrived: a revocation acknowledged before a request came is seen by it, and the per-key
// count is the one shared by every gateway. A group whose count fails (a bucket of the wrong type,
// Redis out of memory) fails alone, caught in the script before anything is counted for it: the
// others' counts stand and are answered from them, so no request is counted in Redis and then
// again in memory, as a whole call failing half-way would have them.
import type { KeyRecord } from '../../records/keys/key-store.ts';
import { RECORD_FIELDS, RELOADING, recordKey, recordOf, syncedKey } from '../../records/keys/redis-key-store.ts';
import type { KeyVerdict } from './key-verdicts.ts';
import type { RateDecision } from './rate-limit.ts';
import { SLIDING_WINDOW_LUA } from './redis-sliding-window.ts';

/** The copy's mark: no marker (lost, or never filled), a keeper's number (complete), a keeper refilling it. */
const NO_MARK = 0;
export const COMPLETE = 1;
export const REFILLING = 2;

const REVOKED_AT = RECORD_FIELDS.indexOf('revokedAt') + 1;
const SCHEDULED = RECORD_FIELDS.indexOf('revocationScheduled') + 1;
const EXPIRES_AT = RECORD_FIELDS.indexOf('expiresAt') + 1;
/** ARGV per group after the limit and the window: the key's place in KEYS' pairs, nowMs, now as an ISO instant, how many. */
const GROUP_ARGS = 4;

// KEYS: the keys-synced marker, then per key its record and its rate bucket; ARGV: limit, window,
// then per group: the key's number (1-based), nowMs, now as an ISO instant, requests. Answers
// {mark, then per key its record's fields, 0 when it has none or the text of the error its read
// met, then per group 0 (not counted: no record, or revoked outright, scheduled and due, or expired
// at that instant), the count {allowed, remaining, resetSeconds, second}, or the text of the error
// the count met}. Usable is
// key-validity.ts's rule: the stored instants are toISOString's texts, so comparing them with
// now's text compares the instants. The mark is read on every call, so that a gateway learns that
// a keeper keeps this copy before it ever needs to know. The keys lie in several hash slots:
// Marquee runs on one Redis (with replicas or not), not Redis Cluster.
const BATCH_LUA = `${SLIDING_WINDOW_LUA}
local synced = redis.call('GET', KEYS[1])
local mark = ${NO_MARK}
if synced then
  if string.sub(synced, 1, ${RELOADING.length}) == '${RELOADING}' then mark = ${REFILLING} else mark = ${COMPLETE} end
end
local reply = {mark}
local records = {}
local keys = (#KEYS - 1) / 2
for k = 1, keys do
  local ok, record = pcall(redis.call, 'HMGET', KEYS[2 * k], ${RECORD_FIELDS.map((field) => `'${field}'`).join(', ')})
  if not ok then
    records[k] = false
    reply[k + 1] = tostring(record.err or record)
  elseif record[1] then
    records[k] = record
    reply[k + 1] = record
  else
    records[k] = false
    reply[k + 1] = 0
  end
end
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
for g = 0, (#ARGV - 2) / ${GROUP_ARGS} - 1 do
  local at = 3 + g * ${GROUP_ARGS}
  local k = tonumber(ARGV[at])
  local record = records[k]
  local answer = 0
  if record then
    local now = ARGV[at + 2]
    local revokedAt, expiresAt = record[${REVOKED_AT}], record[${EXPIRES_AT}]
    if not ((revokedAt and (not record[${SCHEDULED}] or revokedAt <= now)) or (expiresAt and expiresAt <= now)) then
      local ok, counted = pcall(count, KEYS[2 * k + 1], limit, window, tonumber(ARGV[at + 1]), tonumber(ARGV[at + 3]))
      if ok then answer = counted else answer = tostring(counted.err or counted) end
    end
  end
  reply[keys + 2 + g] = answer
end
return reply`;

/** For defineCommand: the batch script, whose KEYS count varies (the first argument says it). */
export const VERDICT_BATCH_SCRIPT = { lua: BATCH_LUA } as const;

/** Where a request's answer goes: the verdict's promise. */
interface Waiter {
  resolve(verdict: KeyVerdict): void;
  reject(error: unknown): void;
}

/** What a batch asks of its verdicts: what Redis's answer means for them, and the answer without it. */
export interface BatchJudge {
  /** Redis has this record for the key (undefined: none) at `nowMs`; told of every key before any request is answered. */
  found(secretHash: string, record: KeyRecord | undefined, nowMs: number): void;
  /** The verdict on a key without a record, beside the copy's mark (NO_MARK, COMPLETE or REFILLING). */
  unknown(mark: number): KeyVerdict;
  /** The verdict on a request Redis could not judge (no reply, or its key's error). */
  withoutRedis(secretHash: string, nowMs: number, error: Error): KeyVerdict;
}

/** What the reply said of one key: its record (undefined: none), that Redis could not read it, or a record too incomplete to read back. */
type KeyOutcome = { record: KeyRecord | undefined } | { failed: Error } | { unreadable: unknown };

/** Requests of one key at one instant. */
interface Group {
  readonly key: BatchKey;
  readonly nowMs: number;
  readonly iso: string;
  readonly waiters: Waiter[];
}

interface BatchKey {
  readonly secretHash: string;
  /** 1-based, as the script numbers them. */
  readonly number: number;
  /** Its latest group: a request of the same key at the same instant joins it. */
  last: Group | undefined;
}

export class VerdictBatch {
  /** Requests gathered. */
  size = 0;
  private readonly keys: BatchKey[] = [];
  private readonly groups: Group[] = [];
  private readonly byHash = new Map<string, BatchKey>();

  /** Adds a request of the key with this hash at `nowMs` (`iso`: the same instant as toISOString writes it). */
  add(secretHash: string, nowMs: number, iso: string, waiter: Waiter): void {
    this.size++;
    let key = this.byHash.get(secretHash);
    if (key?.last?.nowMs === nowMs) {
      key.last.waiters.push(waiter);
      return;
    }
    if (key === undefined) {
      key = { secretHash, number: this.keys.length + 1, last: undefined };
      this.keys.push(key);
      this.byHash.set(secretHash, key);
    }
    key.last = { key, nowMs, iso, waiters: [waiter] };
    this.groups.push(key.last);
  }

  /** The script's arguments: how many KEYS, the KEYS, then ARGV. */
  args(namespace: string, limit: number, windowSeconds: number): Array<string | number> {
    const args: Array<string | number> = [1 + 2 * this.keys.length, syncedKey(namespace)];
    for (const { secretHash } of this.keys) args.push(recordKey(namespace, secretHash), bucketKey(namespace, secretHash));
    args.push(limit, windowSeconds);
    for (const group of this.groups) args.push(group.key.number, group.nowMs, group.iso, group.waiters.length);
    return args;
  }

  /**
   * Answers every request from the script's reply. A key Redis could not read or count is answered
   * without Redis; a record that cannot be read back (incomplete) rejects its key's requests alone.
   */
  settle(reply: BatchReply, limit: number, judge: BatchJudge): void {
    const found: KeyOutcome[] = this.keys.map((key) => {
      const fields = reply[key.number];
      if (typeof fields === 'string') return { failed: new Error(`Redis could not read key with hash ${key.secretHash.slice(0, 8)}…: ${fields}`) };
      try {
        const record = Array.isArray(fields) ? recordOf(fields as Array<string | null>, key.secretHash) : undefined;
        judge.found(key.secretHash, record, key.last!.nowMs);
        return { record };
      } catch (error) {
        return { unreadable: error };
      }
    });
    const unknown = judge.unknown(Number(reply[0]));
    const first = 1 + this.keys.length;
    this.groups.forEach((group, g) => {
      const outcome = found[group.key.number - 1]!;
      const counted = reply[first + g];
      if ('unreadable' in outcome) {
        for (const waiter of group.waiters) waiter.reject(outcome.unreadable);
        return;
      }
      const failed =
        'failed' in outcome ? outcome.failed : typeof counted === 'string' ? new Error(`Redis could not count a request of key ${outcome.record?.id}: ${counted}`) : undefined;
      if (failed !== undefined) {
        for (const waiter of group.waiters) waiter.resolve(judge.withoutRedis(group.key.secretHash, group.nowMs, failed));
        return;
      }
      const { record } = outcome as { record: KeyRecord | undefined };
      if (record === undefined) {
        for (const waiter of group.waiters) waiter.resolve(unknown);
        return;
      }
      if (!Array.isArray(counted)) {
        const verdict = { record };
        for (const waiter of group.waiters) waiter.resolve(verdict);
        return;
      }
      const [allowed, remainingAfter, resetSeconds, second] = counted as number[];
      group.waiters.forEach((waiter, i) => {
        // The first `allowed` were accepted, each leaving one more than the next; the others found the window full.
        const rate: RateDecision =
          i < allowed!
            ? { allowed: true, limit, remaining: remainingAfter! + allowed! - 1 - i, resetSeconds: resetSeconds! }
            : { allowed: false, limit, remaining: remainingAfter!, resetSeconds: resetSeconds! };
        waiter.resolve({ record, rate, countedIn: second! });
      });
    });
  }

  /** Answers every request without Redis: the batch got no reply. */
  fail(error: Error, judge: BatchJudge): void {
    for (const group of this.groups) for (const waiter of group.waiters) waiter.resolve(judge.withoutRedis(group.key.secretHash, group.nowMs, error));
  }
}

export type BatchReply = Array<number | string | null | Array<string | number | null>>;

/** A key's rate bucket; the same hash tag as its record. */
export function bucketKey(namespace: string, secretHash: string): string {
  return `${namespace}key-rate:{${secretHash}}`;
}
