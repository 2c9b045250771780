// The promises of RateLimiter (gateway/access/rate-limit.ts), as one suite every backend runs: the
// in-process limiter and the Redis one shared by several gateways. Every result is
// awaited, so a limiter answering with promises fits. What a backend must do, with the clock
// given as `nowMs` and 1-second granularity (a request counts in its whole second):
//
// - at most `limit` accepted requests per bucket in any `windowSeconds` window; `remaining` is what
//   is still accepted after this request; `limit` is the configured one, on the limiter and in
//   every decision;
// - refused requests are not counted: a client that keeps retrying gets in once a slot frees;
// - `resetSeconds` is the whole number of seconds until the oldest counted second leaves the
//   window, at least 1: exact at second boundaries (59.000 s after → 1, 58.999 s → 2), and the
//   slots of a second free exactly `windowSeconds` after it;
// - the window slides: slots free second by second, not all at once;
// - buckets are independent; a bucket idle for a whole window starts afresh;
// - a clock that steps back counts into the latest second seen: the window never moves back;
// - many consumes at once: exactly `limit` accepted, each with its own `remaining`;
// - all of it at once: agrees with a naive log of accepted requests (property test);
// - with a second view (another gateway on the same buckets): the limit holds across both.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RateDecision, RateLimiter } from '../../gateway/access/rate-limit.ts';
import type { Awaitable } from '../../runtime/awaitable.ts';
import { type ContractHooks, itWith, useHarness } from './harness.ts';

export interface RateLimiterHarness {
  /** A limiter whose buckets no other limiter of this harness shares. */
  limiter(options: { limit: number; windowSeconds: number }): Awaitable<RateLimiter>;
  /** Two limiters on the same buckets, as two gateway processes on one shared store; none else shares them. */
  shared?(options: { limit: number; windowSeconds: number }): Awaitable<[RateLimiter, RateLimiter]>;
}

/** A second boundary. */
const T0 = Date.UTC(2026, 4, 1, 9, 0, 0);
const SECOND = 1_000;

export function rateLimiterContract<H extends RateLimiterHarness>(name: string, hooks: ContractHooks<H>): void {
  describe(`RateLimiter contract: ${name}`, () => {
    const harness = useHarness(hooks);
    const limiter = async (limit: number, windowSeconds = 60) => harness().limiter({ limit, windowSeconds });

    async function consumeMany(rate: RateLimiter, bucket: string, count: number, nowMs: number): Promise<RateDecision[]> {
      const decisions = [];
      for (let i = 0; i < count; i++) decisions.push(await rate.consume(bucket, nowMs));
      return decisions;
    }

    it('reports its limit and window, and the limit in every decision', async () => {
      const rate = await limiter(7, 13);
      expect(rate.limit).toBe(7);
      expect(rate.windowSeconds).toBe(13);
      for (const decision of await consumeMany(rate, 'key', 9, T0)) expect(decision.limit).toBe(7);
    });

    it('accepts 600 in a minute, counting remaining down, and refuses the 601st until the first second leaves', async () => {
      const rate = await limiter(600);
      expect(await rate.consume('key', T0)).toEqual({ allowed: true, limit: 600, remaining: 599, resetSeconds: 60 });
      const rest = await consumeMany(rate, 'key', 599, T0 + 250);
      expect(rest.map((d) => d.remaining)).toEqual(Array.from({ length: 599 }, (_, i) => 598 - i));
      expect(rest.every((d) => d.allowed && d.resetSeconds === 60)).toBe(true);
      expect(await rate.consume('key', T0 + 30_000)).toEqual({ allowed: false, limit: 600, remaining: 0, resetSeconds: 30 });
      expect(await rate.consume('key', T0 + 59_999)).toEqual({ allowed: false, limit: 600, remaining: 0, resetSeconds: 1 });
      // The first second leaves the window exactly 60 s after it began: all of its 600 slots free.
      expect(await rate.consume('key', T0 + 60_000)).toEqual({ allowed: true, limit: 600, remaining: 599, resetSeconds: 60 });
    });

    it('gives resetSeconds exactly at second boundaries, never below 1 when refusing', async () => {
      const rate = await limiter(1);
      // Counted in its whole second: a request at T0 + 0.5 s frees its slot at T0 + 60 s.
      expect(await rate.consume('key', T0 + 500)).toMatchObject({ allowed: true, resetSeconds: 60 });
      const at = async (ms: number) => rate.consume('key', T0 + ms);
      expect(await at(1)).toMatchObject({ allowed: false, resetSeconds: 60 });
      expect(await at(999)).toMatchObject({ allowed: false, resetSeconds: 60 });
      expect(await at(1_000)).toMatchObject({ allowed: false, resetSeconds: 59 });
      expect(await at(58_999)).toMatchObject({ allowed: false, resetSeconds: 2 });
      expect(await at(59_000)).toMatchObject({ allowed: false, resetSeconds: 1 });
      expect(await at(59_001)).toMatchObject({ allowed: false, resetSeconds: 1 });
      expect(await at(59_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
      expect(await at(60_000)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 60 });
    });

    it('slides: slots free second by second, exactly one window after each counted second', async () => {
      const rate = await limiter(3);
      await rate.consume('key', T0);
      await rate.consume('key', T0 + 10_500);
      expect(await rate.consume('key', T0 + 20_000)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 40 });
      expect(await rate.consume('key', T0 + 59_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
      // T0's request leaves; the one at T0 + 10 s is now the oldest (frees at T0 + 70 s).
      expect(await rate.consume('key', T0 + 60_000)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 10 });
      expect(await rate.consume('key', T0 + 69_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
      expect(await rate.consume('key', T0 + 70_000)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 10 });
    });

    it('holds in any window, not only in fixed minutes: 300 + 300 half a minute apart', async () => {
      const rate = await limiter(600);
      await consumeMany(rate, 'key', 300, T0);
      await consumeMany(rate, 'key', 300, T0 + 30_000);
      expect(await rate.consume('key', T0 + 59_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
      // At T0 + 60 s only the first 300 are out of the window.
      const next = await consumeMany(rate, 'key', 301, T0 + 60_000);
      expect(next.filter((d) => d.allowed)).toHaveLength(300);
      expect(next.at(-1)).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 30 });
      expect(await rate.consume('key', T0 + 89_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
      expect(await rate.consume('key', T0 + 90_000)).toMatchObject({ allowed: true, remaining: 299 });
    });

    it('does not count refused requests', async () => {
      const rate = await limiter(2);
      await consumeMany(rate, 'key', 2, T0);
      const refused = await consumeMany(rate, 'key', 50, T0 + 1_000);
      expect(refused.every((d) => !d.allowed && d.remaining === 0)).toBe(true);
      expect(await rate.consume('key', T0 + 60_000)).toMatchObject({ allowed: true, remaining: 1 });
      expect(await rate.consume('key', T0 + 60_000)).toMatchObject({ allowed: true, remaining: 0 });
    });

    it('keeps buckets apart', async () => {
      const rate = await limiter(1);
      expect(await rate.consume('a', T0)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await rate.consume('a', T0)).toMatchObject({ allowed: false });
      expect(await rate.consume('b', T0)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await rate.consume('a:b', T0)).toMatchObject({ allowed: true });
      expect(await rate.consume('', T0)).toMatchObject({ allowed: true });
    });

    it('starts a bucket afresh after it stayed idle for a whole window', async () => {
      const rate = await limiter(5);
      for (let i = 0; i < 200; i++) await consumeMany(rate, `address-${i}`, 5, T0);
      expect(await rate.consume('address-0', T0 + 59_999)).toMatchObject({ allowed: false });
      expect(await rate.consume('address-1', T0 + 60_000)).toEqual({ allowed: true, limit: 5, remaining: 4, resetSeconds: 60 });
      expect(await rate.consume('address-2', T0 + 86_400_000)).toEqual({ allowed: true, limit: 5, remaining: 4, resetSeconds: 60 });
    });

    it('counts a clock that steps back into the latest second: the window never moves back', async () => {
      const rate = await limiter(2);
      await rate.consume('key', T0 + 5_000);
      expect(await rate.consume('key', T0)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await rate.consume('key', T0 - 3_600_000)).toMatchObject({ allowed: false, remaining: 0 });
      // Both requests count in T0 + 5 s, so both slots free at T0 + 65 s.
      expect(await rate.consume('key', T0 + 64_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
      expect(await rate.consume('key', T0 + 65_000)).toMatchObject({ allowed: true, remaining: 1 });
    });

    it('honours a window other than a minute', async () => {
      const rate = await limiter(2, 5);
      await consumeMany(rate, 'key', 2, T0);
      expect(await rate.consume('key', T0 + 4_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
      expect(await rate.consume('key', T0 + 5_000)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 5 });
    });

    it('accepts exactly `limit` of many consumes made at once, each with its own remaining', async () => {
      const rate = await limiter(600);
      const decisions = await Promise.all(Array.from({ length: 1_400 }, (_, i) => rate.consume(i % 2 ? 'key' : 'other', T0 + (i % 10) * 100)));
      for (const bucket of [0, 1]) {
        const mine = decisions.filter((_, i) => i % 2 === bucket);
        const accepted = mine.filter((d) => d.allowed);
        expect(accepted.map((d) => d.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 600 }, (_, i) => i));
        const refused = mine.filter((d) => !d.allowed);
        expect(refused).toHaveLength(100);
        expect(refused.every((d) => d.remaining === 0 && d.resetSeconds === 60)).toBe(true);
      }
    });

    itWith(hooks, 'shared')('holds the limit across two views of the same buckets, counted at once', async () => {
      const [one, two] = await harness().shared!({ limit: 50, windowSeconds: 60 });
      const decisions = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 ? one : two).consume('key', T0 + (i % 7) * 100)));
      expect(
        decisions
          .filter((d) => d.allowed)
          .map((d) => d.remaining)
          .sort((a, b) => a - b),
      ).toEqual(Array.from({ length: 50 }, (_, i) => i));
      // Either view sees what the other counted, and the window frees for both.
      expect(await one.consume('key', T0 + 59_999)).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 1 });
      expect(await two.consume('key', T0 + 60_000)).toMatchObject({ allowed: true, remaining: 49 });
      expect(await one.consume('other', T0 + 60_000)).toMatchObject({ allowed: true, remaining: 49 });
    });

    it('property: agrees with a naive log of accepted requests', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 5 }),
          fc.constantFrom(1, 7, 60),
          fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: 1, maxLength: 80 }),
          async (limit, windowSeconds, gaps) => {
            const rate = await limiter(limit, windowSeconds);
            // Reference: every accepted request's second; one is accepted when fewer than `limit`
            // accepted ones fall in its window, the seconds (s - windowSeconds, s].
            const accepted: number[] = [];
            let now = T0;
            for (const gap of gaps) {
              now += gap;
              const second = Math.floor(now / SECOND);
              const inWindow = accepted.filter((s) => s > second - windowSeconds);
              const allowed = inWindow.length < limit;
              if (allowed) inWindow.push(second);
              const oldest = Math.min(...inWindow);
              expect(await rate.consume('key', now)).toEqual({
                allowed,
                limit,
                remaining: limit - inWindow.length,
                resetSeconds: Math.max(1, Math.ceil(((oldest + windowSeconds) * SECOND - now) / SECOND)),
              });
              if (allowed) accepted.push(second);
            }
          },
        ),
        { numRuns: 200 },
      );
    });
  });
}
