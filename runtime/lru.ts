// A bounded least-recently-used map, weighted (e.g. by bytes), so that the gateway's memory stays
// bounded however many organizations, objects and keys it has served. It also counts its hits,
// misses and evictions, which the gateway reports on /metrics (gateway/metrics.ts).
//
// A hit on the entry used last leaves the order as it is: moving an entry (a Map delete and set)
// is most of a hit's cost, and a gateway request hits several of these caches, mostly on the entry
// its previous request used.

/** What a cache reports of itself (gateway/metrics.ts reads it when /metrics is scraped). */
export interface CacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly evictions: number;
  /** The sum of the held entries' weights. */
  readonly weight: number;
  readonly capacity: number;
}

interface Entry<V> {
  readonly value: V;
  readonly weight: number;
}

/** No entry is known to be the most recently used one. */
const NONE = Symbol('none');

export class LruCache<K, V> implements CacheStats {
  private readonly entries = new Map<K, Entry<V>>();
  private total = 0;
  /** The key at the newest end of the order, when known. */
  private newest: K | typeof NONE = NONE;
  /** get() calls that found an entry / found none. */
  hits = 0;
  misses = 0;
  /** Entries dropped to make room (not those deleted or replaced). */
  evictions = 0;

  constructor(
    readonly capacity: number,
    private readonly weigh: (value: V, key: K) => number = () => 1,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get weight(): number {
    return this.total;
  }

  /** The value, marked most recently used; counted as a hit or a miss. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Map iteration follows insertion order: re-inserting marks the entry most recently used.
    if (key !== this.newest) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.newest = key;
    }
    return entry.value;
  }

  /** The value, without marking it used or counting a lookup (for bookkeeping, not for serving). */
  peek(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Held (or replaced) as the most recently used, weighed now; the least recently used make room. */
  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.weigh(value, key);
    // Something larger than the whole budget would only evict everything else and then itself.
    if (weight > this.capacity) return;
    this.entries.set(key, { value, weight });
    this.newest = key;
    this.total += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.capacity) break;
      this.entries.delete(oldest);
      this.total -= entry.weight;
      this.evictions++;
    }
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.weight;
    if (key === this.newest) this.newest = NONE;
  }

  /** Least recently used first. Deleting the entry just visited is allowed. */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    for (const [key, entry] of this.entries) yield [key, entry.value];
  }
}
