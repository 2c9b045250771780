// Snapshot objects by content hash. Objects are immutable (DESIGN.md "Store layout"), so a cached
// copy never goes stale; only the memory budget evicts. Bytes are verified once, when read.
import { readObjectBytes, SnapshotIntegrityError } from '../../snapshot/reader.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';
import { LoadingCache } from './loading-cache.ts';

export class ObjectCache {
  private readonly cache: LoadingCache<Buffer>;

  constructor(private readonly store: SnapshotStore, maxBytes: number) {
    this.cache = new LoadingCache(maxBytes, (bytes) => bytes.length);
  }

  /**
   * Keyed by hash alone: equal hash means equal bytes, whichever organization's prefix they were
   * read from, and a request can only name hashes that its own organization's manifest lists.
   */
  bytes(orgId: string, hash: string): Promise<Buffer> {
    return this.cache.get(hash, async () => {
      const bytes = await readObjectBytes(this.store, orgId, hash);
      if (!bytes) throw new SnapshotIntegrityError(`object ${hash} of organization ${orgId} is missing`);
      return bytes;
    });
  }
}
