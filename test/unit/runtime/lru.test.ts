import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LoadingCache } from '../../../runtime/loading-cache.ts';
import { LruCache } from '../../../runtime/lru.ts';

describe('LruCache', () => {
  it('evicts the least recently used entries once the weight exceeds the capacity', () => {
    const cache = new LruCache<string, string>(10, (value) => value.length);
    cache.set('a', 'aaaa');
    cache.set('b', 'bbbb');
    expect(cache.get('a')).toBe('aaaa'); // a is now the most recent
    cache.set('c', 'cccc');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('aaaa');
    expect(cache.get('c')).toBe('cccc');
    expect(cache.weight).toBe(8);
  });

  it('does not keep a value heavier than the whole capacity', () => {
    const cache = new LruCache<string, string>(3, (value) => value.length);
    cache.set('a', 'aa');
    cache.set('big', 'bbbb');
    expect(cache.get('big')).toBeUndefined();
    expect(cache.get('a')).toBe('aa');
  });

  it('moves an entry hit to the newest end, leaves the order alone for the one used last, and never evicts that one (property)', () => {
    const cache = new LruCache<string, number>(4);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, 1);
    cache.get('c');
    expect([...cache].map(([key]) => key)).toEqual(['a', 'b', 'd', 'c']);
    cache.get('c'); // used last already: nothing moves
    expect([...cache].map(([key]) => key)).toEqual(['a', 'b', 'd', 'c']);
    cache.delete('c');
    cache.get('a');
    expect([...cache].map(([key]) => key)).toEqual(['b', 'd', 'a']);

    const operation = fc.oneof(
      fc.record({ op: fc.constant('set' as const), key: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ op: fc.constant('get' as const), key: fc.integer({ min: 0, max: 12 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 8 }), fc.array(operation, { maxLength: 300 }), (capacity, operations) => {
        const cache = new LruCache<number, number>(capacity);
        let used: number | undefined;
        for (const { op, key } of operations) {
          if (op === 'set') cache.set(key, key);
          else if (cache.get(key) === undefined) continue;
          // The key just used survives a set of any other key.
          if (used !== undefined && used !== key) expect(cache.peek(used)).toBeDefined();
          used = key;
        }
      }),
    );
  });

  it('replaces a key without counting it twice', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('a', 2);
    cache.set('b', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBe(2);
  });
});

describe('LruCache accounting', () => {
  it('counts hits, misses and evictions, not deletes or replacements; peek counts nothing and keeps the order', () => {
    const cache = new LruCache<string, string>(8, (value) => value.length);
    cache.set('a', 'aaaa');
    cache.set('b', 'bbbb');
    expect(cache.peek('a')).toBe('aaaa');
    cache.set('c', 'cc'); // a is still the least recently used: peek did not touch it
    expect(cache.peek('a')).toBeUndefined();
    expect(cache.get('b')).toBe('bbbb');
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', 'bb');
    cache.delete('c');
    expect({ hits: cache.hits, misses: cache.misses, evictions: cache.evictions, weight: cache.weight }).toEqual({ hits: 1, misses: 1, evictions: 1, weight: 2 });
  });

  it('holds the sum of its entries’ weights, never more than its capacity, and 0 once every entry is deleted (property)', () => {
    const operation = fc.oneof(
      fc.record({ op: fc.constant('set' as const), key: fc.integer({ min: 0, max: 20 }), weight: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ op: fc.constant('get' as const), key: fc.integer({ min: 0, max: 20 }) }),
      fc.record({ op: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 20 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.array(operation, { maxLength: 200 }), (capacity, operations) => {
        const cache = new LruCache<number, number>(capacity, (weight) => weight);
        // The model: keys from least to most recently used, with their weights.
        let model: Array<[number, number]> = [];
        for (const operation of operations) {
          if (operation.op === 'set') {
            cache.set(operation.key, operation.weight);
            model = model.filter(([key]) => key !== operation.key);
            if (operation.weight <= capacity) model.push([operation.key, operation.weight]);
            while (model.reduce((sum, [, weight]) => sum + weight, 0) > capacity) model.shift();
          } else if (operation.op === 'get') {
            const held = model.find(([key]) => key === operation.key);
            expect(cache.get(operation.key)).toBe(held?.[1]);
            if (held) model = [...model.filter(([key]) => key !== operation.key), held];
          } else {
            cache.delete(operation.key);
            model = model.filter(([key]) => key !== operation.key);
          }
          expect(cache.weight).toBeLessThanOrEqual(capacity);
          expect(cache.weight).toBe(model.reduce((sum, [, weight]) => sum + weight, 0));
          expect([...cache].map(([key]) => key)).toEqual(model.map(([key]) => key));
        }
        for (const [key] of [...cache]) cache.delete(key);
        expect(cache.weight).toBe(0);
        expect(cache.size).toBe(0);
      }),
    );
  });
});

describe('LoadingCache', () => {
  it('shares one load among concurrent misses and caches the result', async () => {
    const cache = new LoadingCache<string>(10, () => 1);
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'value';
    };
    expect(await Promise.all([cache.get('k', load), cache.get('k', load), cache.get('k', load)])).toEqual(['value', 'value', 'value']);
    expect(await cache.get('k', load)).toBe('value');
    expect(loads).toBe(1);
  });

  it('does not cache a failed load', async () => {
    const cache = new LoadingCache<string>(10, () => 1);
    await expect(cache.get('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('k', async () => 'back')).toBe('back');
  });
});
