// The in-process limiter beyond the RateLimiter contract (test/contracts/rate-limiter.ts, run on it
// by test/unit/contracts/rate-limiter.test.ts): its memory bounds and its constructor's checks.
import { describe, expect, it } from 'vitest';
import { InMemoryRateLimiter } from '../../../../gateway/access/in-memory-rate-limiter.ts';

const T0 = Date.UTC(2026, 4, 1, 9, 0, 0);

describe('InMemoryRateLimiter', () => {
  it('forgets idle buckets (bounded memory)', async () => {
    const limiter = new InMemoryRateLimiter({ limit: 10 });
    for (let i = 0; i < 1000; i++) await limiter.consume(`address-${i}`, T0);
    expect(limiter.size).toBe(1000);
    await limiter.consume('later', T0 + 60_000);
    expect(limiter.size).toBe(1);
  });

  it('refuses a nonsensical limit', () => {
    expect(() => new InMemoryRateLimiter({ limit: 0 })).toThrow(RangeError);
    expect(() => new InMemoryRateLimiter({ limit: 10, windowSeconds: 1.5 })).toThrow(RangeError);
  });

  describe('with maxBuckets', () => {
    it('holds at most maxBuckets buckets under a spray of distinct names', () => {
      const limiter = new InMemoryRateLimiter({ limit: 60, maxBuckets: 1000 });
      for (let i = 0; i < 100_000; i++) limiter.consume(`198.51.${i >> 8}.${i & 255}`, T0 + i);
      expect(limiter.size).toBe(1000);
    });

    it('drops the least recently used bucket: one that keeps failing stays counted', () => {
      const limiter = new InMemoryRateLimiter({ limit: 3, maxBuckets: 3 });
      for (let i = 0; i < 3; i++) limiter.consume('busy', T0);
      expect(limiter.consume('busy', T0)).toMatchObject({ allowed: false });
      for (let i = 0; i < 10; i++) {
        limiter.consume(`spray-${i}`, T0);
        // Touched between the others: never the least recently used.
        expect(limiter.consume('busy', T0)).toMatchObject({ allowed: false });
      }
      expect(limiter.size).toBe(3);
    });

    it('refuses a maxBuckets that is not a positive integer', () => {
      expect(() => new InMemoryRateLimiter({ limit: 1, maxBuckets: 0 })).toThrow(RangeError);
      expect(() => new InMemoryRateLimiter({ limit: 1, maxBuckets: 1.5 })).toThrow(RangeError);
    });
  });
});
