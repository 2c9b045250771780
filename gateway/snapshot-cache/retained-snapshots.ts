// Whether the store still keeps a snapshot of an organization: what GET /changes?since= compares
// with (docs/api.md §10). The store's answer, never this gateway's memory: a gateway that served a
// snapshot holds its manifest (pinned-snapshots.ts) after retention removed it from the store, and
// answering from that copy gave 200 on one gateway and 410 SNAPSHOT_EXPIRED on another behind the
// same load balancer. Nothing the pointer or a manifest carries says what retention removed
// (builder/retention.ts decides from the organization's list of snapshots, by count and age), so
// the store is asked whether the manifest is there — at most once per `maxAgeMs` per snapshot, the
// freshness the gateway keeps for pointers too, and never again once it answered no: a snapshot id
// names one publish, and retention never brings a manifest back. Every gateway then gives the same
// answer, give or take that second.
import type { Awaitable } from '../../runtime/awaitable.ts';
import { type CacheStats, LruCache } from '../../runtime/lru.ts';
import { manifestKey } from '../../snapshot/layout.ts';
import type { SnapshotSource } from '../../snapshot/store.ts';

interface Verdict {
  readonly kept: boolean;
  /** Monotonic milliseconds of the store's answer. */
  readonly checkedAt: number;
}

/** A verdict's heap bytes besides its key: the object, the LRU's slot. */
const VERDICT_BYTES = 120;

export interface RetainedSnapshotsOptions {
  /** A "kept" older than this is asked again (the pointer's freshness, 1 s). */
  maxAgeMs: number;
  maxBytes: number;
  /** Real elapsed time, never the API clock: freshness is about other processes. */
  monotonicNow?: () => number;
}

export class RetainedSnapshots {
  private readonly verdicts: LruCache<string, Verdict>;
  private readonly asking = new Map<string, Promise<boolean>>();
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly store: SnapshotSource,
    options: RetainedSnapshotsOptions,
  ) {
    this.verdicts = new LruCache(options.maxBytes, (_verdict, key) => VERDICT_BYTES + key.length);
    this.maxAgeMs = options.maxAgeMs;
    this.now = options.monotonicNow ?? (() => performance.now());
  }

  /** Hits, misses, evictions and bytes, for /metrics. */
  get stats(): CacheStats {
    return this.verdicts;
  }

  /** Whether the store keeps snapshot `snapshotId` of organization `orgId`; synchronous while the verdict is fresh. */
  isKept(orgId: string, snapshotId: string): Awaitable<boolean> {
    const key = `${orgId}/${snapshotId}`;
    const held = this.verdicts.get(key);
    if (held !== undefined && (!held.kept || this.now() - held.checkedAt < this.maxAgeMs)) return held.kept;
    let pending = this.asking.get(key);
    if (pending === undefined) {
      pending = this.ask(key, orgId, snapshotId, held).finally(() => this.asking.delete(key));
      this.asking.set(key, pending);
    }
    return pending;
  }

  /**
   * The store's answer. When the store cannot be reached, a snapshot it kept a moment ago is taken
   * as kept still (what the gateway holds is served through an outage, docs/api.md §7 503); one
   * never asked about fails with the store's error (503).
   */
  private async ask(key: string, orgId: string, snapshotId: string, held: Verdict | undefined): Promise<boolean> {
    let kept: boolean;
    try {
      kept = await this.store.has(manifestKey(orgId, snapshotId));
    } catch (error) {
      if (held?.kept) return true;
      throw error;
    }
    this.verdicts.set(key, { kept, checkedAt: this.now() });
    return kept;
  }
}
