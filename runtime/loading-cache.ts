// An LRU in front of an asynchronous loader: concurrent misses for one key share a single load,
// so a burst of requests for a cold object reads the store once (the gateway's object and event
// view caches). A hit is returned as the value
// itself, not a promise, so a request served from memory takes no asynchronous hop.
import { LruCache } from './lru.ts';

export class LoadingCache<V> {
  private readonly loaded: LruCache<string, V>;
  private readonly loading = new Map<string, Promise<V>>();

  constructor(capacity: number, weigh: (value: V) => number) {
    this.loaded = new LruCache(capacity, weigh);
  }

  get(key: string, load: () => Promise<V>): V | Promise<V> {
    const hit = this.loaded.get(key);
    if (hit !== undefined) return hit;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = load()
        .then((value) => {
          this.loaded.set(key, value);
          return value;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }
}
