// Each organization's current pointer and manifest, kept in memory and refreshed so that a
// snapshot published by another process is served within 2 seconds (docs/design.md "Process model"):
// a publish notification re-reads the pointer at once, and a request finding the pointer older
// than `maxAgeMs` re-reads it first with a conditional read (store.getIfChanged), which costs one
// small round trip and no transfer while nothing changed. Organizations nobody asks for cost
// nothing: there is no background polling.
//
// Storage down (docs/design.md "Gateway"): an organization read before keeps its last good
// snapshot, and while its refreshes fail it is served at once and re-read behind the request,
// so an outage that makes each read wait for timeouts does not slow what the gateway holds. An
// organization never read fails with the StoreUnavailableError (gateway/problem.ts: 503), and
// the next request after the store is back reads it as usual: nothing is remembered of a failure.
// While the store fails, held snapshots are re-read only as often as StoreBackoff allows, for the
// whole gateway rather than for each organization, so that the gateway's own retries do not keep a
// store that fell behind from catching up.
import { pointerKey } from '../../snapshot/layout.ts';
import type { OrganizationState, Pointer } from '../../snapshot/manifest.ts';
import { parsePointer, readManifest, SnapshotIntegrityError } from '../../snapshot/reader.ts';
import type { Log } from '../../runtime/log.ts';
import { type SnapshotSource, StoreUnavailableError, type Version } from '../../snapshot/store.ts';
import { type CacheStats, LruCache } from '../../runtime/lru.ts';
import { manifestView, type ManifestView, weighManifestView } from './manifest-view.ts';
import { OutageWarning } from './outage-warning.ts';
import { StoreBackoff } from './store-backoff.ts';

export interface OrganizationSnapshot {
  readonly state: OrganizationState;
  /** null while suspended or closed, or when an active pointer names no snapshot. */
  readonly manifest: ManifestView | null;
}

interface Entry {
  /** undefined: the organization has no pointer. */
  snapshot: OrganizationSnapshot | undefined;
  version: Version | undefined;
  /** Whether `snapshot` was ever read successfully, i.e. there is something to fall back on. */
  loaded: boolean;
  /** The last re-read failed: until one succeeds, `snapshot` is served without waiting for the next. */
  failing: boolean;
  /** Monotonic milliseconds of the last read that completed. */
  checkedAt: number;
  /** Bumped by every notification, so that a read that began before one does not count as fresh. */
  generation: number;
  refreshing: Promise<void> | undefined;
  /** Monotonic milliseconds of the last read a pin asked for (reread). */
  rereadAt: number;
}

export interface CurrentSnapshotsOptions {
  store: SnapshotSource;
  log: Log;
  /** A pointer older than this is re-read before it is used (1 s: publish-to-serve within 2 s). */
  maxAgeMs?: number;
  /** Heap bytes the held pointers and manifests may take (weighed by weighSnapshotEntry); default 24 MB. */
  maxBytes?: number;
  /** A re-read of a snapshot already held that takes longer is not waited for (default 500 ms). */
  slowReadMs?: number;
  /**
   * The publish channel's delivery epoch (snapshot/notifications.ts). While announcements arrive,
   * a pointer is re-read only when announced or when older than `notifiedMaxAgeMs`; when they may
   * not, every `maxAgeMs`; and when delivery resumed after a gap, every pointer read before is
   * re-read once. Absent: no channel, every `maxAgeMs`.
   */
  deliveryEpoch?: () => number | undefined;
  /** A pointer's longest life while announcements arrive: a safety net, not the path of freshness (default 30 s). */
  notifiedMaxAgeMs?: number;
  /** Real elapsed time, never the injected API clock: freshness is about other processes. */
  monotonicNow?: () => number;
  /** At most one warning per this many milliseconds about unreachable storage. */
  outageWarningIntervalMs?: number;
}

export class CurrentSnapshots {
  private readonly store: SnapshotSource;
  private readonly log: Log;
  private readonly maxAgeMs: number;
  private readonly slowReadMs: number;
  private readonly deliveryEpoch: () => number | undefined;
  private readonly notifiedMaxAgeMs: number;
  /** The delivery epoch seen last, and when pointers read before then stopped being trustworthy. */
  private epochSeen: number | undefined;
  private staleBefore = -Infinity;
  private readonly now: () => number;
  private readonly entries: LruCache<string, Entry>;
  private readonly outage: OutageWarning;
  private readonly backoff: StoreBackoff;

  constructor(options: CurrentSnapshotsOptions) {
    this.store = options.store;
    this.log = options.log;
    this.maxAgeMs = options.maxAgeMs ?? 1000;
    this.slowReadMs = options.slowReadMs ?? 500;
    this.deliveryEpoch = options.deliveryEpoch ?? (() => undefined);
    this.notifiedMaxAgeMs = options.notifiedMaxAgeMs ?? 30_000;
    this.now = options.monotonicNow ?? (() => performance.now());
    this.entries = new LruCache(options.maxBytes ?? 24 * 1024 * 1024, weighSnapshotEntry);
    this.outage = new OutageWarning(options.log, 'snapshot pointer refresh failed: storage unreachable', options.outageWarningIntervalMs, this.now);
    this.backoff = new StoreBackoff({ now: this.now });
  }

  /**
   * The organization's current snapshot; undefined when it has no pointer at all. A pointer read
   * less than maxAgeMs ago is returned as is (a clock compare, no I/O, no asynchronous hop); only
   * a re-read is a promise.
   */
  get(orgId: string): OrganizationSnapshot | undefined | Promise<OrganizationSnapshot | undefined> {
    let entry = this.entries.get(orgId);
    if (!entry) {
      entry = { snapshot: undefined, version: undefined, loaded: false, failing: false, checkedAt: -Infinity, generation: 0, refreshing: undefined, rereadAt: -Infinity };
      this.entries.set(orgId, entry);
    }
    if (this.isFresh(entry)) return entry.snapshot;
    const read = entry;
    // The store is failing: serve what is held without asking it again, until the pause is over.
    if (read.loaded && !this.backoff.mayReread()) return read.snapshot;
    if (read.loaded && read.failing) {
      // reload() never rejects for a loaded entry: it falls back and logs.
      void this.refresh(orgId, read);
      return read.snapshot;
    }
    const refreshed = this.refresh(orgId, read).then(() => read.snapshot);
    return read.loaded ? this.notLongerThanSlowRead(refreshed, read) : refreshed;
  }

  /**
   * A re-read that takes longer than slowReadMs (a store or CDN that answers, but slowly) is not
   * waited for: the request gets the snapshot held, the re-read finishes behind it. Without this,
   * every organization's first request after each second would wait out the store's timeouts.
   */
  private notLongerThanSlowRead(refreshed: Promise<OrganizationSnapshot | undefined>, entry: Entry): Promise<OrganizationSnapshot | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const held = new Promise<OrganizationSnapshot | undefined>((resolve) => {
      timer = setTimeout(() => resolve(entry.snapshot), this.slowReadMs);
    });
    return Promise.race([refreshed, held]).finally(() => clearTimeout(timer));
  }

  /**
   * Whether a pointer read at `entry.checkedAt` may be used without reading it again: younger than
   * maxAgeMs, or, when its last read succeeded and the publish channel has delivered without a gap
   * since, younger than notifiedMaxAgeMs (a publish since would have been announced and invalidated it).
   */
  private isFresh(entry: Entry): boolean {
    const age = this.now() - entry.checkedAt;
    if (age < this.maxAgeMs) return true;
    // A failed re-read may have missed an announced publish: it is retried after maxAgeMs, once
    // the store's pause (StoreBackoff) allows.
    if (entry.failing) return false;
    const epoch = this.deliveryEpoch();
    if (epoch === undefined) return false;
    if (epoch !== this.epochSeen) {
      this.epochSeen = epoch;
      this.staleBefore = this.now();
    }
    return entry.checkedAt >= this.staleBefore && age < this.notifiedMaxAgeMs;
  }

  /** Hits, misses, evictions and bytes, for /metrics. */
  get stats(): CacheStats {
    return this.entries;
  }

  /**
   * The pointer read again now, for a request pinned to a snapshot newer than the one held: another
   * gateway served it first, within this one's maxAgeMs. A read under way is joined rather than
   * doubled, and reads asked for this way come at most once per REREAD_MS per organization, so pins
   * that name no real snapshot cannot turn every request into a store read.
   */
  async reread(orgId: string): Promise<OrganizationSnapshot | undefined> {
    const entry = this.entries.peek(orgId);
    if (entry === undefined || !entry.loaded || entry.failing || !this.backoff.mayReread()) return entry?.snapshot;
    if (entry.refreshing === undefined && this.now() - entry.rereadAt >= REREAD_MS) {
      entry.rereadAt = this.now();
      await this.refresh(orgId, entry);
    } else {
      await entry.refreshing;
    }
    return entry.snapshot;
  }

  /** A build published for this organization (snapshot/notifications.ts): re-read now. */
  invalidate(orgId: string): void {
    // Not a lookup: an organization nobody asks for is neither promoted nor counted.
    const entry = this.entries.peek(orgId);
    if (!entry) return;
    entry.generation++;
    entry.checkedAt = -Infinity;
    // A read already under way may have seen the old pointer: read again after it.
    const after = entry.refreshing ?? Promise.resolve();
    after
      .then(() => this.refresh(orgId, entry))
      .catch(() => {
        // Already logged by reload(); the next request retries.
      });
  }

  private refresh(orgId: string, entry: Entry): Promise<void> {
    entry.refreshing ??= this.reload(orgId, entry).finally(() => {
      entry.refreshing = undefined;
    });
    return entry.refreshing;
  }

  private async reload(orgId: string, entry: Entry): Promise<void> {
    const startedAt = this.now();
    const generation = entry.generation;
    try {
      const read = await this.store.getIfChanged(pointerKey(orgId), entry.version);
      if (read !== 'unchanged') {
        if (read === undefined) {
          entry.snapshot = undefined;
          entry.version = undefined;
        } else {
          entry.snapshot = await this.load(orgId, parsePointer(orgId, read.bytes), entry.snapshot);
          entry.version = read.version;
        }
        // Weighed again with what it now holds, unless it was evicted meanwhile (then it is not put back).
        if (this.entries.peek(orgId) === entry) this.entries.set(orgId, entry);
      }
      entry.loaded = true;
      entry.failing = false;
      this.backoff.answered();
    } catch (error) {
      const fields = { organizationId: orgId, serving: entry.loaded ? 'the last good snapshot' : 'nothing' };
      if (error instanceof StoreUnavailableError) {
        this.backoff.unreachable();
        this.outage.report(error, fields);
      } else {
        // A broken snapshot: the store answered.
        this.backoff.answered();
        this.log.warn('snapshot pointer refresh failed', { ...fields, err: error });
      }
      // Nothing to fall back on: the request fails (503 for an outage, 500 for a broken snapshot).
      // Otherwise keep serving the last good snapshot and retry once the pause allows rather than
      // failing every request while the store is down.
      if (!entry.loaded) throw error;
      entry.failing = true;
    }
    if (entry.generation === generation) entry.checkedAt = startedAt;
  }

  private async load(orgId: string, pointer: Pointer, previous: OrganizationSnapshot | undefined): Promise<OrganizationSnapshot> {
    if (pointer.state !== 'active' || pointer.snapshotId === null || pointer.manifestHash === null) {
      return { state: pointer.state, manifest: null };
    }
    if (previous?.manifest?.hash === pointer.manifestHash) return { state: pointer.state, manifest: previous.manifest };
    const manifest = await readManifest(this.store, orgId, pointer.snapshotId, pointer.manifestHash);
    if (!manifest) throw new SnapshotIntegrityError(`pointer of organization ${orgId} names missing manifest ${pointer.snapshotId}`);
    if (manifest.organizationId !== orgId) {
      throw new SnapshotIntegrityError(`manifest ${pointer.snapshotId} under organization ${orgId} belongs to ${manifest.organizationId}`);
    }
    return { state: pointer.state, manifest: manifestView(manifest, pointer.manifestHash) };
  }
}

/**
 * An entry's heap bytes, estimated: the entry, its pointer fields and the LRU's Map slot, plus the
 * manifest view it holds. Measured with bench/cache-weights.ts (heap used before and after holding
 * a few thousand entries, after a forced GC): ENTRY_BYTES is an organization without a snapshot.
 */
function weighSnapshotEntry(entry: Entry, orgId: string): number {
  return ENTRY_BYTES + 2 * orgId.length + (entry.snapshot?.manifest ? weighManifestView(entry.snapshot.manifest) : 0);
}

const ENTRY_BYTES = 600;
/** The least time between two reads of one organization's pointer asked for by pins newer than the snapshot held. */
const REREAD_MS = 50;
