// GATEWAY_CACHE_MB split among the gateway's caches: every cache gets a share, and together they
// never take more than the total.
import { describe, expect, it } from 'vitest';
import { CACHE_NAMES, cacheBudgets, DEFAULT_CACHE_BYTES } from '../../../gateway/cache-budget.ts';

describe('cacheBudgets', () => {
  it('gives every cache a share of the total, together all of it (to the byte, rounded down)', () => {
    for (const total of [DEFAULT_CACHE_BYTES, 16 * 1024 * 1024, 40_000, 1024 ** 4]) {
      const budgets = cacheBudgets(total);
      expect(Object.keys(budgets).sort()).toEqual([...CACHE_NAMES].sort());
      for (const name of CACHE_NAMES) expect(budgets[name], name).toBeGreaterThan(0);
      const sum = Object.values(budgets).reduce((a, b) => a + b, 0);
      expect(sum).toBeLessThanOrEqual(total);
      expect(sum).toBeGreaterThan(total - CACHE_NAMES.length);
    }
  });

  it('gives pointers and manifests (current and pinned), objects and event views most of it', () => {
    const budgets = cacheBudgets(100 * 1024 * 1024);
    expect(budgets.snapshots + budgets.pinned + budgets.objects + budgets.views).toBeGreaterThanOrEqual(0.8 * 100 * 1024 * 1024);
  });
});
