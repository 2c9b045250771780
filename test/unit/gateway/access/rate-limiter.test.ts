// Sliding-window semantics of the in-process limiter, under an injected clock.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryRateLimiter } from '../../../../gateway/access/rate-limiter.ts';

const T0 = Date.UTC(2026, 4, 1, 9, 0, 0);

async function consumeMany(limiter: InMemoryRateLimiter, bucket: string, count: number, nowMs: number) {
  let last;
  for (let i = 0; i < count; i++) last = await limiter.consume(bucket, nowMs);
  return last!;
}

describe('InMemoryRateLimiter', () => {
  it('accepts 600 in a minute and refuses the 601st with the seconds until a slot frees', async () => {
    const limiter = new InMemoryRateLimiter({ limit: 600 });
    const first = await limiter.consume('key', T0);
    expect(first).toEqual({ allowed: true, limit: 600, remaining: 599, resetSeconds: 60 });
    const last = await consumeMany(limiter, 'key', 599, T0 + 250);
    expect(last).toEqual({ allowed: true, limit: 600, remaining: 0, resetSeconds: 60 });

    expect(await limiter.consume('key', T0 + 30_000)).toEqual({ allowed: false, limit: 600, remaining: 0, resetSeconds: 30 });
    expect(await limiter.consume('key', T0 + 59_001)).toMatchObject({ allowed: false, resetSeconds: 1 });
    expect(await limiter.consume('key', T0 + 59_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
    // The oldest second (T0) leaves the window exactly 60 s later: all 600 of its slots free.
    expect(await limiter.consume('key', T0 + 60_000)).toEqual({ allowed: true, limit: 600, remaining: 599, resetSeconds: 60 });
  });

  it('frees slots second by second, exactly 60 s after each counted second', async () => {
    const limiter = new InMemoryRateLimiter({ limit: 3 });
    await limiter.consume('key', T0);
    await limiter.consume('key', T0 + 10_500);
    expect(await limiter.consume('key', T0 + 20_000)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 40 });
    expect(await limiter.consume('key', T0 + 59_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
    // T0's request leaves; the one at T0+10 s is now the oldest (frees at T0+70 s).
    expect(await limiter.consume('key', T0 + 60_000)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 10 });
    expect(await limiter.consume('key', T0 + 69_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
    expect(await limiter.consume('key', T0 + 70_000)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 10 });
  });

  it('does not count refused requests', async () => {
    const limiter = new InMemoryRateLimiter({ limit: 2 });
    await consumeMany(limiter, 'key', 2, T0);
    await consumeMany(limiter, 'key', 50, T0 + 1_000);
    expect(await limiter.consume('key', T0 + 60_000)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('keeps buckets apart', async () => {
    const limiter = new InMemoryRateLimiter({ limit: 1 });
    expect((await limiter.consume('a', T0)).allowed).toBe(true);
    expect((await limiter.consume('a', T0)).allowed).toBe(false);
    expect((await limiter.consume('b', T0)).allowed).toBe(true);
  });

  it('forgets idle buckets (bounded memory)', async () => {
    const limiter = new InMemoryRateLimiter({ limit: 10 });
    for (let i = 0; i < 1000; i++) await limiter.consume(`address-${i}`, T0);
    expect(limiter.size).toBe(1000);
    await limiter.consume('later', T0 + 60_000);
    expect(limiter.size).toBe(1);
  });

  it('counts a clock that steps back into the latest second', async () => {
    const limiter = new InMemoryRateLimiter({ limit: 2 });
    await limiter.consume('key', T0 + 5_000);
    expect(await limiter.consume('key', T0)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.consume('key', T0 + 64_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
    expect(await limiter.consume('key', T0 + 65_000)).toMatchObject({ allowed: true });
  });

  it('refuses a nonsensical limit', () => {
    expect(() => new InMemoryRateLimiter({ limit: 0 })).toThrow(RangeError);
    expect(() => new InMemoryRateLimiter({ limit: 10, windowSeconds: 1.5 })).toThrow(RangeError);
  });

  it('property: agrees with a naive log of accepted requests', async () => {
    // Reference: keep every accepted time; a request is accepted when fewer than `limit` accepted
    // ones fall in its window, i.e. in seconds (s - 59 … s).
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: 1, maxLength: 80 }),
        async (limit, gaps) => {
          const limiter = new InMemoryRateLimiter({ limit });
          const accepted: number[] = [];
          let now = T0;
          for (const gap of gaps) {
            now += gap;
            const second = Math.floor(now / 1000);
            const inWindow = accepted.filter((s) => s > second - 60);
            const allowed = inWindow.length < limit;
            if (allowed) inWindow.push(second);
            const oldest = Math.min(...inWindow);
            const decision = await limiter.consume('key', now);
            expect(decision).toEqual({
              allowed,
              limit,
              remaining: limit - inWindow.length,
              resetSeconds: inWindow.length === 0 ? 0 : Math.max(1, Math.ceil(((oldest + 60) * 1000 - now) / 1000)),
            });
            if (allowed) accepted.push(second);
          }
        },
      ),
      { numRuns: 300 },
    );
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
