// Snapshot objects by content hash. Objects are immutable (docs/design.md "Store layout"), so a cached
// copy never goes stale; only the memory budget evicts. Bytes are verified once, when read.
// Kept as the Representation a stored resource is served as, so a hit allocates nothing.
import { readObjectBytes, SnapshotIntegrityError } from '../../snapshot/reader.ts';
import type { SnapshotSource } from '../../snapshot/store.ts';
import type { Awaitable } from '../../runtime/awaitable.ts';
import { storedRepresentation, type Representation } from '../../snapshot/representation.ts';
import { LoadingCache } from '../../runtime/loading-cache.ts';
import type { CacheStats } from '../../runtime/lru.ts';

export class ObjectCache {
  private readonly cache: LoadingCache<Representation>;

  constructor(
    private readonly store: SnapshotSource,
    maxBytes: number,
  ) {
    this.cache = new LoadingCache(maxBytes, weighRepresentation);
  }

  /** Hits (served from memory), misses (read from the store), evictions and bytes, for /metrics. */
  get stats(): CacheStats {
    return this.cache.stats;
  }

  /**
   * Keyed by hash alone: equal hash means equal bytes, whichever organization's prefix they were
   * read from, and a request can only name hashes that its own organization's manifest lists.
   * A cached object is returned as is; only a load is a promise.
   */
  representation(orgId: string, hash: string): Awaitable<Representation> {
    return this.cache.get(hash, async () => storedRepresentation(await this.read(orgId, hash), hash));
  }

  /**
   * Read and verified, not kept: for objects that are kept parsed instead (event indexes and
   * details), so memory does not hold both copies.
   */
  async read(orgId: string, hash: string): Promise<Buffer> {
    const bytes = await readObjectBytes(this.store, orgId, hash);
    if (!bytes) throw new SnapshotIntegrityError(`object ${hash} of organization ${orgId} is missing`);
    return bytes;
  }
}

/**
 * A representation's heap bytes, estimated: its body, plus the Buffer object, the tag strings and
 * the header array, and the key and the LRU's Map slot (REPRESENTATION_BYTES, measured with
 * bench/cache-weights.ts).
 */
function weighRepresentation(representation: Representation): number {
  return REPRESENTATION_BYTES + representation.bytes.length;
}

const REPRESENTATION_BYTES = 500;
