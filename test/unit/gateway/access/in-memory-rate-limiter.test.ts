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

  describe('with maxBytes', () => {
    it('holds at most maxBytes of buckets under a spray of distinct names, evicting the rest', () => {
      const limiter = new InMemoryRateLimiter({ limit: 60, maxBytes: 600_000 });
      for (let i = 0; i < 100_000; i++) limiter.consume(`198.51.${i >> 8}.${i & 255}`, T0 + i);
      expect(limiter.stats.weight).toBeLessThanOrEqual(600_000);
      // A bucket of a 60-second window weighs about 600 bytes.
      expect(limiter.size).toBeGreaterThan(900);
      expect(limiter.stats.evictions).toBe(100_000 - limiter.size);
    });

    it('drops the least recently used bucket: one that keeps failing stays counted', () => {
      // Room for three buckets of a 60-second window and a short name (about 600 bytes each), not four.
      const limiter = new InMemoryRateLimiter({ limit: 3, maxBytes: 2_000 });
      for (let i = 0; i < 3; i++) limiter.consume('busy', T0);
      expect(limiter.consume('busy', T0)).toMatchObject({ allowed: false });
      for (let i = 0; i < 10; i++) {
        limiter.consume(`spray-${i}`, T0);
        // Touched between the others: never the least recently used.
        expect(limiter.consume('busy', T0)).toMatchObject({ allowed: false });
      }
      expect(limiter.size).toBe(3);
    });

    it('refuses a maxBytes that is not above 0', () => {
      expect(() => new InMemoryRateLimiter({ limit: 1, maxBytes: 0 })).toThrow(RangeError);
      expect(() => new InMemoryRateLimiter({ limit: 1, maxBytes: Number.NaN })).toThrow(RangeError);
    });
  });
});
