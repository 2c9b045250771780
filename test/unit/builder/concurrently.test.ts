import { describe, expect, it } from 'vitest';
import { mapConcurrently } from '../../../builder/concurrently.ts';

describe('mapConcurrently', () => {
  it('runs at most `limit` tasks at once and gives the results in the order of the items, not of completion', async () => {
    let running = 0;
    let most = 0;
    const items = Array.from({ length: 40 }, (_, n) => n);
    const results = await mapConcurrently(items, 5, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, (40 - n) % 7));
      running--;
      return n * 2;
    });
    expect(results).toEqual(items.map((n) => n * 2));
    expect(most).toBe(5);
  });

  it('gives an empty list for no items, and rejects with the first task that fails', async () => {
    expect(await mapConcurrently([], 4, async () => 1)).toEqual([]);
    await expect(
      mapConcurrently([1, 2, 3], 2, async (n) => {
        if (n === 2) throw new Error('two failed');
        return n;
      }),
    ).rejects.toThrow('two failed');
  });
});
