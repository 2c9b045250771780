// GET /changes (docs/api.md §10): what changed between two snapshots of the key's organization,
// from the two manifests alone — the paths whose stored source changed, each with the ETag a GET
// of it answers now (as webhook messages list them), the paths removed — and when the clock will
// next change an answer with no publish at all. Without `since`, every path with its ETag: the
// initial sync. Pure but for reading the event index's clock states (events/views.ts).
import { API_BASE, isClockDependent, resourceAt } from '../snapshot/resource-catalog.ts';
import { DEFAULT_EVENTS_QUERY } from '../snapshot/clock-rendering/events-query.ts';
import { detailTag } from '../snapshot/clock-rendering/detail-view.ts';
import type { EventIndexView } from '../snapshot/clock-rendering/index-view.ts';
import { computedRepresentation, heldBytes, type Representation } from '../snapshot/representation.ts';
import { canonicalJson } from '../snapshot/canonical.ts';
import { keyOrderOf } from '../snapshot/key-order.ts';
import type { Changes } from '../snapshot/schema-types.ts';
import { type CacheStats, LruCache } from '../runtime/lru.ts';
import type { ManifestView } from './snapshot-cache/manifest-view.ts';

const CHANGES_ORDER = keyOrderOf('changes');

/** An answer's heap bytes besides its body: the Representation, its strings and headers, the key and the LRU's slot. */
const ANSWER_BYTES = 1000;

interface HeldAnswer {
  readonly representation: Representation;
  /** The clock window it holds in: the index's, or forever without one. */
  readonly from: number;
  readonly until: number;
}

/**
 * Answers kept, within a byte budget, for as long as the clock cannot change them: an answer is
 * fixed by its two manifests and the index's clock window, so a site asking again, or many sites
 * of one organization asking after the same publish, cost a lookup rather than a walk over every
 * path (20,000 for 5,000 events).
 */
export class ChangeAnswers {
  private readonly answers: LruCache<string, HeldAnswer>;

  constructor(maxBytes: number) {
    this.answers = new LruCache(maxBytes, (held, key) => ANSWER_BYTES + key.length + heldBytes(held.representation));
  }

  /** Hits, misses, evictions and bytes, for /metrics. */
  get stats(): CacheStats {
    return this.answers;
  }

  answer(manifest: ManifestView, since: ManifestView | null, index: EventIndexView | undefined, now: number): Representation {
    const key = `${manifest.hash} ${since?.hash ?? '-'}`;
    const held = this.answers.get(key);
    if (held !== undefined && now >= held.from && now < held.until) return held.representation;
    const { from, until } = index?.clockWindowAt(now) ?? { from: Number.NEGATIVE_INFINITY, until: Number.POSITIVE_INFINITY };
    // A coded form kept later makes the answer heavier: weighed again while it is still held.
    const representation = changesAnswer(manifest, since, index, now, (grown) => {
      const current = this.answers.peek(key);
      if (current?.representation === grown) this.answers.set(key, current);
    });
    this.answers.set(key, { representation, from, until });
    return representation;
  }
}

/**
 * The answer for `manifest` compared with `since` (null: the initial sync) at `now`. `index` is
 * the manifest's event index, parsed (undefined when it has none): it gives the clock states the
 * list and the details are tagged with, and the next clock change.
 */
function changesAnswer(
  manifest: ManifestView,
  since: ManifestView | null,
  index: EventIndexView | undefined,
  now: number,
  onKept: (representation: Representation) => void,
): Representation {
  const changed: Changes['changed'] = [];
  const removed: string[] = [];
  for (const [path, hash] of manifest.resources) {
    if (since?.resources.get(path) === hash) continue;
    changed.push({ path: `${API_BASE}${path}`, etag: `"${answeredTag(path, hash, index, now)}"` });
  }
  if (since !== null) for (const path of since.resources.keys()) if (!manifest.resources.has(path)) removed.push(`${API_BASE}${path}`);
  changed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  removed.sort();
  const next = index?.nextChangeAfter(now) ?? Number.POSITIVE_INFINITY;
  const body: Changes = {
    snapshotId: manifest.snapshotId,
    since: since?.snapshotId ?? null,
    changed,
    removed,
    nextClockChangeAt: Number.isFinite(next) ? new Date(next).toISOString().replace(/\.000Z$/, 'Z') : null,
  };
  // The body is fixed by the two manifests and the clock's next change: so is its tag.
  return computedRepresentation(canonicalJson(body, CHANGES_ORDER), manifest.hash, `changes ${since?.hash ?? '-'} ${next}`, onKept);
}

/** The ETag, unquoted, that GET of `path` answers now: its content hash, or for what the clock changes, the tag the gateway computes. */
function answeredTag(path: string, hash: string, index: EventIndexView | undefined, now: number): string {
  const resource = resourceAt(path);
  if (resource === undefined || !isClockDependent(resource.kind)) return hash;
  // The builder publishes the index with every event; a snapshot without it is broken.
  if (index === undefined) throw new Error(`a snapshot with ${path} has no event index`);
  if (resource.kind === 'eventIndex') return index.page(now, DEFAULT_EVENTS_QUERY).etag;
  const state = index.clockStateOf(resource.eventId!, now);
  if (state === undefined) throw new Error(`the event index does not list the event at ${path}`);
  return detailTag(hash, state);
}
