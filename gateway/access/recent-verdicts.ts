// What one gateway remembers of the keys the shared key store judged recently, to keep answering
// them while the store cannot be reached (access/redis-key-verdicts.ts). Used only then: while the
// store answers, every request asks it, so revocations and origin edits apply from the next
// request on. Bounded in entries (least recently used forgotten first) and in age: a key not
// confirmed within `maxAgeMs` may have been revoked since, and is not vouched for. A key revoked
// or expired by then (key-validity.ts: a scheduled revocation counts once its instant has come)
// is remembered as such whatever its age, since both are final.
import type { KeyRecord } from '../keys/key-store.ts';
import { standingAt } from '../keys/key-validity.ts';
import { LruCache } from '../../runtime/lru.ts';

export interface RecentVerdictsOptions {
  /** Keys remembered at most; default 10,000 (about 2 MB). */
  capacity?: number;
  /** How long after its last confirmation a valid key is still vouched for; default 5 minutes. */
  maxAgeMs?: number;
}

interface Seen {
  record: KeyRecord;
  confirmedAt: number;
}

export class RecentVerdicts {
  private readonly seen: LruCache<string, Seen>;
  private readonly maxAgeMs: number;

  constructor({ capacity = 10_000, maxAgeMs = 5 * 60_000 }: RecentVerdictsOptions = {}) {
    this.seen = new LruCache(capacity);
    this.maxAgeMs = maxAgeMs;
  }

  /** The store answered with this record (revoked or not) at `nowMs`. */
  confirm(record: KeyRecord, nowMs: number): void {
    const entry = this.seen.get(record.secretHash);
    if (entry === undefined) {
      this.seen.set(record.secretHash, { record, confirmedAt: nowMs });
      return;
    }
    // Updated in place: no allocation for a key seen before, which is nearly every request.
    entry.record = record;
    entry.confirmedAt = nowMs;
  }

  /** The store knows no key with this hash. */
  forget(secretHash: string): void {
    this.seen.delete(secretHash);
  }

  /** What may be answered for this key without the store: a record revoked or expired at `nowMs`, or one confirmed recently; else undefined. */
  recall(secretHash: string, nowMs: number): KeyRecord | undefined {
    const entry = this.seen.get(secretHash);
    if (entry === undefined) return undefined;
    if (nowMs - entry.confirmedAt <= this.maxAgeMs || standingAt(entry.record, nowMs) !== 'usable') return entry.record;
    return undefined;
  }
}
