// An LRU in front of an asynchronous loader: concurrent misses for one key share a single load,
// so a burst of requests for a cold object reads the store once (the gateway's object and event
// view caches). A hit is returned as the value
// itself, not a promise, so a request served from memory takes no asynchronous hop.
import { type CacheStats, LruCache } from './lru.ts';

export class LoadingCache<V> {
  private readonly loaded: LruCache<string, V>;
  private readonly loading = new Map<string, Promise<V>>();

  constructor(capacity: number, weigh: (value: V, key: string) => number) {
    this.loaded = new LruCache(capacity, weigh);
  }

  /** A request that joins a load under way counts as a miss: it waits for the store too. */
  get stats(): CacheStats {
    return this.loaded;
  }

  /** Weighs a held value again, after it grew or shrank (evicting others if it grew); nothing if it is not held. */
  reweigh(key: string, value: V): void {
    if (this.loaded.peek(key) === value) this.loaded.set(key, value);
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
