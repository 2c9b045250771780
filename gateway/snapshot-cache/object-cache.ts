// Snapshot objects by content hash. Objects are immutable (docs/design.md "Store layout"), so a cached
// copy never goes stale; only the memory budget evicts. Bytes are verified once, when read.
// Kept as the Representation a stored resource is served as, so a hit allocates nothing. Its coded
// forms are read from the store the first time a request accepts one (snapshot/codings.ts), and
// weigh on the budget from then on.
import { readCodedObject, readObjectBytes, SnapshotIntegrityError } from '../../snapshot/reader.ts';
import { type Coding, compress } from '../../snapshot/codings.ts';
import type { SnapshotSource } from '../../snapshot/store.ts';
import type { Awaitable } from '../../runtime/awaitable.ts';
import { heldBytes, storedRepresentation, type Representation } from '../../snapshot/representation.ts';
import { LoadingCache } from '../../runtime/loading-cache.ts';
import type { CacheStats } from '../../runtime/lru.ts';
import type { Log } from '../../runtime/log.ts';

export class ObjectCache {
  private readonly cache: LoadingCache<Representation>;

  constructor(
    private readonly store: SnapshotSource,
    maxBytes: number,
    private readonly log?: Log,
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
    return this.cache.get(hash, async () => {
      const json = await this.read(orgId, hash);
      const representation: Representation = storedRepresentation(
        json,
        hash,
        (coding) => this.coded(orgId, hash, coding, json, representation),
        (grown) => this.cache.reweigh(hash, grown),
      );
      return representation;
    });
  }

  /**
   * The builder's form of the object in `coding`. None in br, as builds store by default (gzip alone,
   * snapshot/codings.ts STORED_CODINGS): the client gets the stored gzip, which every client that
   * accepts br accepts too. Only an object stored without any form (published before coded forms
   * were, or with SNAPSHOT_CODINGS=none) is compressed here, once, in the one coding it is asked for
   * first, and kept with the object: the gateway never compresses one object per request.
   */
  private async coded(orgId: string, hash: string, coding: Coding, json: Buffer, representation: Representation): Promise<Buffer | undefined> {
    const stored = await this.stored(orgId, hash, coding, json);
    if (stored !== undefined) return stored;
    if (coding === 'br' && (await representation.coded('gzip')) !== null) return undefined;
    return compress(coding, json);
  }

  /** The stored form in `coding`; undefined when there is none, or it is unsound (logged, and compressed here instead). */
  private async stored(orgId: string, hash: string, coding: Coding, json: Buffer): Promise<Buffer | undefined> {
    let stored: Buffer | undefined;
    try {
      stored = await readCodedObject(this.store, orgId, hash, coding, json);
    } catch (error) {
      // The JSON is sound (it matched its hash): the client still gets it, coded here. Said once
      // per object held; `marquee audit` names the form to replace. A store that cannot be reached
      // is not this: that error stands, and the request falls back to another coding.
      if (!(error instanceof SnapshotIntegrityError)) throw error;
      this.log?.error('a stored coded form does not decode to its object: served in another form instead; marquee audit names it', {
        organizationId: orgId,
        hash,
        coding,
      });
    }
    return stored;
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
  return REPRESENTATION_BYTES + heldBytes(representation);
}

const REPRESENTATION_BYTES = 500;
