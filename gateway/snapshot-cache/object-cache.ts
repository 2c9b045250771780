// Snapshot objects by content hash. Objects are immutable (docs/design.md "Store layout"), so a cached
// copy never goes stale; only the memory budget evicts. Bytes are verified once, when read.
// Kept as the Representation a stored resource is served as, so a hit allocates nothing. Each
// lookup of a representation is reported as a hit or a miss, for the metrics.
import { readObjectBytes, SnapshotIntegrityError } from '../../snapshot/reader.ts';
import type { SnapshotSource } from '../../snapshot/store.ts';
import type { Awaitable } from '../awaitable.ts';
import { storedRepresentation, type Representation } from '../../snapshot/representation.ts';
import { LoadingCache } from '../../runtime/loading-cache.ts';

export class ObjectCache {
  private readonly cache: LoadingCache<Representation>;

  constructor(
    private readonly store: SnapshotSource,
    maxBytes: number,
    /** Told of every representation looked up: true when served from memory (GatewayMetrics.objectLookup). */
    private readonly lookedUp: (hit: boolean) => void = () => {},
  ) {
    this.cache = new LoadingCache(maxBytes, (representation) => representation.bytes.length);
  }

  /**
   * Keyed by hash alone: equal hash means equal bytes, whichever organization's prefix they were
   * read from, and a request can only name hashes that its own organization's manifest lists.
   * A cached object is returned as is; only a load is a promise.
   */
  representation(orgId: string, hash: string): Awaitable<Representation> {
    const found = this.cache.get(hash, async () => storedRepresentation(await this.read(orgId, hash), hash));
    // A request that joins a load already under way waits for the store too: a miss.
    this.lookedUp(!(found instanceof Promise));
    return found;
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
