// What one gateway remembers of the keys the shared key store judged recently, to keep answering
// them while the store cannot be reached (access/redis-key-verdicts.ts). Used only then: while the
// store answers, every request asks it, so revocations and origin edits apply from the next
// request on. Bounded in bytes (least recently used forgotten first) and in age: a key not
// confirmed within `maxAgeMs` may have been revoked since, and is not vouched for. A key revoked
// or expired by then (key-validity.ts: a scheduled revocation counts once its instant has come)
// is remembered as such whatever its age, since both are final.
import type { KeyRecord } from '../../records/keys/key-store.ts';
import { standingAt } from '../../records/keys/key-validity.ts';
import { type CacheStats, LruCache } from '../../runtime/lru.ts';

export interface RecentVerdictsOptions {
  /** Heap bytes the remembered keys may take (weighSeen); default 4 MB, about 6,000 keys. */
  maxBytes?: number;
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

  constructor({ maxBytes = 4 * 1024 * 1024, maxAgeMs = 5 * 60_000 }: RecentVerdictsOptions = {}) {
    this.seen = new LruCache(maxBytes, weighSeen);
    this.maxAgeMs = maxAgeMs;
  }

  /** Hits, misses, evictions and bytes, for /metrics (each request that Redis answered looks its key up once). */
  get stats(): CacheStats {
    return this.seen;
  }

  /** The store answered with this record (revoked or not) at `nowMs`. */
  confirm(record: KeyRecord, nowMs: number): void {
    const entry = this.seen.get(record.secretHash);
    if (entry === undefined) {
      this.seen.set(record.secretHash, { record, confirmedAt: nowMs });
      return;
    }
    // Updated in place: no allocation for a key seen before, which is nearly every request. Weighed
    // again only when what the weight counts changed (a label or origins edited).
    const weight = weighRecord(entry.record);
    entry.record = record;
    entry.confirmedAt = nowMs;
    if (weighRecord(record) !== weight) this.seen.set(record.secretHash, entry);
  }

  /** The store knows no key with this hash. */
  forget(secretHash: string): void {
    this.seen.delete(secretHash);
  }

  /** How many keys `recall` would answer at `nowMs` (/metrics, while the store cannot be reached); walks the memory, without touching its order. */
  answerable(nowMs: number): number {
    let count = 0;
    for (const [, entry] of this.seen) if (nowMs - entry.confirmedAt <= this.maxAgeMs || standingAt(entry.record, nowMs) !== 'usable') count++;
    return count;
  }

  /** What may be answered for this key without the store: a record revoked or expired at `nowMs`, or one confirmed recently; else undefined. */
  recall(secretHash: string, nowMs: number): KeyRecord | undefined {
    const entry = this.seen.get(secretHash);
    if (entry === undefined) return undefined;
    if (nowMs - entry.confirmedAt <= this.maxAgeMs || standingAt(entry.record, nowMs) !== 'usable') return entry.record;
    return undefined;
  }
}

/**
 * A remembered key's heap bytes: the record's strings (ids, hash, instants; one byte a character)
 * and objects, the entry and the LRU's Map slot in SEEN_BYTES, plus what varies from key to key.
 * Measured with bench/cache-weights.ts.
 */
function weighSeen(seen: Seen): number {
  return weighRecord(seen.record);
}

function weighRecord(record: KeyRecord): number {
  let bytes = SEEN_BYTES + (record.label?.length ?? 0);
  for (const origin of record.origins) bytes += ORIGIN_BYTES + origin.length;
  return bytes;
}

const SEEN_BYTES = 1050;
const ORIGIN_BYTES = 32;
