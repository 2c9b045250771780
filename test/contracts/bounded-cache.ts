// The promises every bounded cache of the gateway makes (gateway/cache-budget.ts), as one suite
// each cache runs through its own API, with its own weigh function and real entries:
//
// - an entry's weight is above 0 and counted while it is held; the bytes held are the sum of the
//   held entries' weights, and never above the budget, however far past it the cache is filled;
// - room is made by evicting the least recently used entry first, and a lookup counts as a use;
// - every lookup is a hit or a miss, and every eviction is counted (what /metrics reports).
//
// Entries are named by a number; `use(n)` asks the cache for entry n as a request would, so it is
// held afterwards. Asked again, a held entry is a hit and an evicted one a miss: that is how the
// suite sees what is held without reaching inside.
import { describe, expect, it } from 'vitest';
import type { Awaitable } from '../../runtime/awaitable.ts';
import type { CacheStats } from '../../runtime/lru.ts';
import { type ContractHooks, useHarness } from './harness.ts';

interface BoundedCache {
  use(n: number): Awaitable<unknown>;
  readonly stats: CacheStats;
}

export interface BoundedCacheHarness {
  /** A new, empty cache of `budget` bytes over this harness's entries. */
  create(budget: number): Awaitable<BoundedCache>;
  /** Entries 0 … entries - 1 exist, of weights that differ. */
  readonly entries: number;
}

/** Large enough to hold every entry of any harness. */
const UNBOUNDED = 1024 ** 3;

export function boundedCacheContract<H extends BoundedCacheHarness>(name: string, hooks: ContractHooks<H>): void {
  describe(`bounded cache contract: ${name}`, () => {
    const harness = useHarness(hooks);

    /** Each entry's weight, as the cache itself counts it when it holds nothing else. */
    async function weights(): Promise<number[]> {
      const cache = await harness().create(UNBOUNDED);
      const weights: number[] = [];
      for (let n = 0; n < harness().entries; n++) {
        const before = cache.stats.weight;
        await cache.use(n);
        weights.push(cache.stats.weight - before);
      }
      expect(cache.stats.evictions).toBe(0);
      return weights;
    }

    async function isHeld(cache: BoundedCache, n: number): Promise<boolean> {
      const hits = cache.stats.hits;
      await cache.use(n);
      return cache.stats.hits > hits;
    }

    it('weighs every entry above 0, and not all alike', async () => {
      const weighed = await weights();
      expect(weighed.every((weight) => weight > 0)).toBe(true);
      expect(new Set(weighed).size).toBeGreaterThan(1);
    });

    it('filled to three times its budget: never above it, the bytes held the sum of the held entries, the oldest evicted', async () => {
      const weighed = await weights();
      const total = weighed.reduce((sum, weight) => sum + weight, 0);
      const budget = Math.floor(total / 3);
      const cache = await harness().create(budget);
      expect(cache.stats).toMatchObject({ weight: 0, capacity: budget, hits: 0, misses: 0, evictions: 0 });
      for (let n = 0; n < harness().entries; n++) {
        await cache.use(n);
        expect(cache.stats.weight).toBeLessThanOrEqual(budget);
      }
      // Used once each, in order: the least recently used went first, so what is held is the newest.
      const evicted = cache.stats.evictions;
      expect(evicted).toBeGreaterThan(0);
      expect(cache.stats.weight).toBe(weighed.slice(evicted).reduce((sum, weight) => sum + weight, 0));
      expect(cache.stats.weight + weighed[evicted - 1]!).toBeGreaterThan(budget);
      expect(cache.stats.misses).toBe(harness().entries);
      expect(await isHeld(cache, harness().entries - 1)).toBe(true);
      expect(await isHeld(cache, evicted - 1)).toBe(false);
    });

    it('makes room by evicting the least recently used: a lookup counts as a use', async () => {
      const weighed = await weights();
      const cache = await harness().create(weighed[0]! + weighed[1]! + weighed[2]! + weighed[3]!);
      for (const n of [0, 1, 2, 3]) await cache.use(n);
      expect(cache.stats.evictions).toBe(0);
      // 0 is asked for again: 1 is now the least recently used.
      expect(await isHeld(cache, 0)).toBe(true);
      await cache.use(4);
      expect(cache.stats.evictions).toBeGreaterThan(0);
      expect(await isHeld(cache, 0)).toBe(true);
      expect(await isHeld(cache, 1)).toBe(false);
      expect(cache.stats).toMatchObject({ hits: 2, misses: 6 });
    });
  });
}
