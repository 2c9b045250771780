// In-process sliding-window rate limiter: at most `limit` accepted requests per bucket in any
// `windowSeconds` window, at 1-second granularity. On the ground floor so that every port may
// count with it: the admin port's failed logins (admin/login-throttle.ts) and the gateway's keys
// and invalid credentials (gateway/access/in-memory-rate-limiter.ts names it for the gateway).
//
// Each bucket keeps a ring of per-second counters, the running total over the window and the
// oldest second still holding requests. Moving the window clears at most `windowSeconds` slots,
// and each slot once per elapsed second, so a consume is O(1) amortised. Refused requests are
// not counted: a client that keeps retrying still gets in once a slot frees.
//
// With `maxBytes`, memory stays bounded however many distinct bucket names arrive (an address
// spray against a failed-credentials limiter): the least recently used bucket makes room. A
// bucket dropped so forgets its counts, which can only let its key or address in sooner, never
// refuse it wrongly.
import { type CacheStats, LruCache } from './lru.ts';

/** What a consume decided; the gateway's RateLimiter (gateway/access/rate-limit.ts) answers it too. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests still accepted in the current window after this one. */
  remaining: number;
  /** Whole seconds until the window frees a slot (≥ 1 when not allowed). */
  resetSeconds: number;
}

interface Bucket {
  counts: Uint32Array;
  total: number;
  /** The latest second the ring has been moved to. */
  second: number;
  /** The oldest second inside the window with a non-zero count; -1 when the window is empty. */
  oldest: number;
}

export interface RateLimiterOptions {
  limit: number;
  windowSeconds?: number;
  /** Heap bytes the buckets may take (weighBucket); the least recently used is dropped for a new one. Unbounded by default. */
  maxBytes?: number;
}

/**
 * A bucket's heap bytes besides its counters (4 bytes a second) and its name: the bucket object,
 * the Uint32Array and its backing store, the name's header and the LRU's Map slot. Measured with
 * bench/cache-weights.ts.
 */
const BUCKET_BYTES = 380;

export class InMemoryRateLimiter {
  readonly limit: number;
  readonly windowSeconds: number;
  private readonly buckets: LruCache<string, Bucket>;
  private lastSweepSecond = -Infinity;

  constructor({ limit, windowSeconds = 60, maxBytes = Infinity }: RateLimiterOptions) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, not ${limit}`);
    if (!Number.isInteger(windowSeconds) || windowSeconds < 1) throw new RangeError(`windowSeconds must be a positive integer, not ${windowSeconds}`);
    if (!(maxBytes > 0)) throw new RangeError(`maxBytes must be above 0, not ${maxBytes}`);
    this.limit = limit;
    this.windowSeconds = windowSeconds;
    this.buckets = new LruCache(maxBytes, (bucket, name) => BUCKET_BYTES + 4 * bucket.counts.length + name.length);
  }

  /** Buckets currently held (for tests of the bounded memory). */
  get size(): number {
    return this.buckets.size;
  }

  /** Hits (a bucket held), misses (a new bucket), evictions and bytes, for /metrics. */
  get stats(): CacheStats {
    return this.buckets;
  }

  consume(bucketName: string, nowMs: number): RateDecision {
    const second = Math.floor(nowMs / 1000);
    this.sweep(second);
    let bucket = this.buckets.get(bucketName);
    if (bucket === undefined) {
      bucket = { counts: new Uint32Array(this.windowSeconds), total: 0, second, oldest: -1 };
      this.buckets.set(bucketName, bucket);
    }
    this.advance(bucket, second);
    const allowed = bucket.total < this.limit;
    if (allowed) {
      bucket.counts[bucket.second % this.windowSeconds]! += 1;
      bucket.total += 1;
      if (bucket.oldest === -1) bucket.oldest = bucket.second;
    }
    return {
      allowed,
      limit: this.limit,
      remaining: this.limit - bucket.total,
      resetSeconds: this.resetSeconds(bucket, nowMs),
    };
  }

  /** Moves the ring forward to `second`, dropping the seconds that leave the window. */
  private advance(bucket: Bucket, second: number): void {
    // A clock that steps back counts into the latest second: the window never moves back.
    if (second <= bucket.second) return;
    const window = this.windowSeconds;
    if (second - bucket.second >= window) {
      bucket.counts.fill(0);
      bucket.total = 0;
    } else {
      for (let s = bucket.second + 1; s <= second; s++) {
        const slot = s % window;
        bucket.total -= bucket.counts[slot]!;
        bucket.counts[slot] = 0;
      }
    }
    bucket.second = second;
    if (bucket.total === 0) {
      bucket.oldest = -1;
      return;
    }
    let oldest = Math.max(bucket.oldest, second - window + 1);
    while (bucket.counts[oldest % window] === 0) oldest++;
    bucket.oldest = oldest;
  }

  /** Whole seconds until the oldest counted second leaves the window and frees its slots. */
  private resetSeconds(bucket: Bucket, nowMs: number): number {
    if (bucket.oldest === -1) return 0;
    const freesAtMs = (bucket.oldest + this.windowSeconds) * 1000;
    return Math.max(1, Math.ceil((freesAtMs - nowMs) / 1000));
  }

  /** Drops buckets idle for a whole window (they hold nothing); at most once a window. */
  private sweep(second: number): void {
    if (second - this.lastSweepSecond < this.windowSeconds) return;
    this.lastSweepSecond = second;
    for (const [name, bucket] of this.buckets) {
      if (second - bucket.second >= this.windowSeconds) this.buckets.delete(name);
    }
  }
}
