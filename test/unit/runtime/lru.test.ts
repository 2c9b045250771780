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

  it('replaces a key without counting it twice', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('a', 2);
    cache.set('b', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBe(2);
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
