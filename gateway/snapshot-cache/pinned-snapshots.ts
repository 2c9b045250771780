// Pinned reads (docs/api.md §10): a request that names a
// snapshot in `Marquee-Snapshot-Id` is answered from it while it is current or stopped being
// current less than the pin window ago. Manifests are immutable, so any gateway can serve any
// snapshot it can read: one it never held is read through the store (the CDN in production) and
// checked against the hash its successor's manifest names. When a snapshot stopped being current
// is its successor's publishedAt, found by walking back from the current manifest along
// previousSnapshotId: only snapshots published within the window are ever read, so the walk is
// short, and once found the instant never changes (a successor is forever), so it is kept.
import { after, type Awaitable } from '../../runtime/awaitable.ts';
import { type CacheStats, LruCache } from '../../runtime/lru.ts';
import { sha256Hex } from '../../snapshot/hash.ts';
import { manifestKey } from '../../snapshot/layout.ts';
import type { Manifest } from '../../snapshot/manifest.ts';
import { SnapshotIntegrityError } from '../../snapshot/reader.ts';
import type { SnapshotSource } from '../../snapshot/store.ts';
import { manifestView, type ManifestView, weighManifestView } from './manifest-view.ts';

interface Pinned {
  readonly view: ManifestView;
  /** When it stopped being current (its successor's publish); undefined until a walk found it. */
  endedAt: number | undefined;
}

/** No window is so long that a pin should read more manifests than this to find its successor. */
const MAX_WALK = 1000;
const ENTRY_BYTES = 300;

export class PinnedSnapshots {
  private readonly snapshots: LruCache<string, Pinned>;
  private readonly loading = new Map<string, Promise<Pinned | undefined>>();

  constructor(
    private readonly store: SnapshotSource,
    /** How long a snapshot may still be read after it stopped being current; 0: only the current one. */
    private readonly windowMs: number,
    maxBytes: number,
  ) {
    this.snapshots = new LruCache(maxBytes, (entry, key) => ENTRY_BYTES + key.length + weighManifestView(entry.view));
  }

  /** Hits, misses, evictions and bytes, for /metrics. */
  get stats(): CacheStats {
    return this.snapshots;
  }

  /**
   * The manifest of snapshot `snapshotId` of organization `orgId` if a request at `now` may read it:
   * the current one, or one that stopped being current less than the window ago. undefined: it may
   * not (too old, pruned, or never this organization's). Synchronous once known.
   */
  resolve(orgId: string, current: ManifestView, snapshotId: string, now: number): Awaitable<ManifestView | undefined> {
    if (snapshotId === current.snapshotId) return current;
    if (this.windowMs <= 0) return undefined;
    const known = this.snapshots.get(key(orgId, snapshotId));
    if (known?.endedAt !== undefined) return this.withinWindow(known, now);
    return this.find(orgId, current, snapshotId, now);
  }

  /**
   * Any snapshot of the organization by id, whether or not a pin may read it (GET /changes compares
   * with it); undefined when the store does not have it (pruned, or never the organization's).
   */
  manifestOf(orgId: string, snapshotId: string): Awaitable<ManifestView | undefined> {
    return after(this.manifest(orgId, snapshotId, null), (pinned) => pinned?.view);
  }

  private withinWindow(pinned: Pinned, now: number): ManifestView | undefined {
    return now - pinned.endedAt! < this.windowMs ? pinned.view : undefined;
  }

  /** Walks back from the current snapshot to the one whose predecessor is `snapshotId`: its publish ended the pinned one. */
  private async find(orgId: string, current: ManifestView, snapshotId: string, now: number): Promise<ManifestView | undefined> {
    let successor = current;
    for (let step = 0; step < MAX_WALK; step++) {
      // Everything before `successor` stopped being current at its publish or earlier.
      if (now - successor.publishedAt >= this.windowMs) return undefined;
      const previous = successor.previousSnapshotId;
      if (previous === null) return undefined;
      const pinned = await this.manifest(orgId, previous, successor.previousHash);
      if (pinned === undefined) return undefined;
      pinned.endedAt = successor.publishedAt;
      if (previous === snapshotId) return this.withinWindow(pinned, now);
      successor = pinned.view;
    }
    return undefined;
  }

  /** A manifest by id, read once and kept with its hash; checked against the hash its successor names, when it names one. */
  private manifest(orgId: string, snapshotId: string, expectedHash: string | null): Awaitable<Pinned | undefined> {
    const cacheKey = key(orgId, snapshotId);
    const held = this.snapshots.get(cacheKey);
    if (held !== undefined) return checked(held, orgId, expectedHash);
    let pending = this.loading.get(cacheKey);
    if (pending === undefined) {
      pending = this.read(orgId, snapshotId).finally(() => this.loading.delete(cacheKey));
      this.loading.set(cacheKey, pending);
    }
    return pending.then((pinned) => pinned && checked(pinned, orgId, expectedHash));
  }

  private async read(orgId: string, snapshotId: string): Promise<Pinned | undefined> {
    const bytes = await this.store.get(manifestKey(orgId, snapshotId));
    // Pruned by retention, or never the organization's: a pin on it cannot be served.
    if (bytes === undefined) return undefined;
    const manifest = JSON.parse(bytes.toString('utf8')) as Manifest;
    if (manifest.organizationId !== orgId || manifest.snapshotId !== snapshotId) {
      throw new SnapshotIntegrityError(`manifest ${snapshotId} under organization ${orgId} is snapshot ${manifest.snapshotId} of ${manifest.organizationId}`);
    }
    const pinned: Pinned = { view: manifestView(manifest, sha256Hex(bytes)), endedAt: undefined };
    this.snapshots.set(key(orgId, snapshotId), pinned);
    return pinned;
  }
}

/** The manifest, if its bytes are those its successor names (when it names them): a chain edited in the store is not served. */
function checked(pinned: Pinned, orgId: string, expectedHash: string | null): Pinned {
  if (expectedHash !== null && pinned.view.hash !== expectedHash) {
    throw new SnapshotIntegrityError(`manifest ${pinned.view.snapshotId} of organization ${orgId} does not match hash ${expectedHash}`);
  }
  return pinned;
}

const key = (orgId: string, snapshotId: string) => `${orgId}/${snapshotId}`;
