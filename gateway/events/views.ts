// Parsed, clock-aware views of stored event objects, by content hash: parsing an index of 5,000
// events once instead of per request is what the /events target depends on. A view keeps what it
// renders (an index its pages for the current clock window, a detail its at most six renderings),
// so its weight grows after it is loaded: it is weighed again after each rendering that grew it.
import type { Representation } from '../../snapshot/representation.ts';
import type { EventsQuery } from '../../snapshot/clock-rendering/events-query.ts';
import type { ObjectCache } from '../snapshot-cache/object-cache.ts';
import { after, type Awaitable } from '../awaitable.ts';
import { LoadingCache } from '../../runtime/loading-cache.ts';
import type { CacheStats } from '../../runtime/lru.ts';
import { EventDetailView } from '../../snapshot/clock-rendering/detail-view.ts';
import { EventIndexView } from '../../snapshot/clock-rendering/index-view.ts';

interface Weighted<V> {
  readonly view: V;
  /** The parsed view's heap bytes, without its renderings. */
  readonly parsed: number;
  weight: number;
}

/**
 * Heap bytes of a parsed view per stored byte, measured with bench/cache-weights.ts (heap used
 * before and after holding a few thousand views, after a forced GC, less their renderings): an
 * index's summaries split into clock templates, and its window's lists, about 2.7; a detail's
 * template about 1.
 */
const INDEX_BYTES_PER_STORED_BYTE = 2.5;
const DETAIL_BYTES_PER_STORED_BYTE = 1.2;
/** The view object, its key and the LRU's slot. */
const VIEW_BYTES = 1000;

type Rendered = { readonly renderedBytes: number };

export class EventViews {
  private readonly indexes: LoadingCache<Weighted<EventIndexView>>;
  private readonly details: LoadingCache<Weighted<EventDetailView>>;

  /** `maxBytes` is shared equally by event indexes and event details. */
  constructor(
    private readonly objects: ObjectCache,
    maxBytes: number,
  ) {
    this.indexes = new LoadingCache(maxBytes / 2, (entry) => entry.weight);
    this.details = new LoadingCache(maxBytes / 2, (entry) => entry.weight);
  }

  /** Both halves as one cache, for /metrics. */
  get stats(): CacheStats {
    const [indexes, details] = [this.indexes.stats, this.details.stats];
    return {
      hits: indexes.hits + details.hits,
      misses: indexes.misses + details.misses,
      evictions: indexes.evictions + details.evictions,
      weight: indexes.weight + details.weight,
      capacity: indexes.capacity + details.capacity,
    };
  }

  /** GET /events: a page of the index `hash`. Synchronous when the view is held (no asynchronous hop). */
  page(orgId: string, hash: string, now: number, query: EventsQuery): Awaitable<Representation> {
    const entry = this.indexes.get(hash, () => this.load(orgId, hash, EventIndexView.parse, INDEX_BYTES_PER_STORED_BYTE));
    return after(entry, (held) => rendered(this.indexes, hash, held, held.view.page(now, query)));
  }

  /** GET /events/{id}: the detail `hash` as at `now`. */
  detail(orgId: string, hash: string, now: number): Awaitable<Representation> {
    const entry = this.details.get(hash, () => this.load(orgId, hash, EventDetailView.parse, DETAIL_BYTES_PER_STORED_BYTE));
    return after(entry, (held) => rendered(this.details, hash, held, held.view.at(now)));
  }

  private async load<V>(orgId: string, hash: string, parse: (hash: string, bytes: Buffer) => V, perStoredByte: number): Promise<Weighted<V>> {
    const bytes = await this.objects.read(orgId, hash);
    const parsed = VIEW_BYTES + Math.ceil(perStoredByte * bytes.length);
    return { view: parse(hash, bytes), parsed, weight: parsed };
  }
}

/** The representation, after weighing the view again if rendering it changed what it keeps (a page rendered, an old window dropped). */
function rendered<V extends Rendered>(cache: LoadingCache<Weighted<V>>, hash: string, entry: Weighted<V>, representation: Representation): Representation {
  const weight = entry.parsed + entry.view.renderedBytes;
  if (weight !== entry.weight) {
    entry.weight = weight;
    cache.reweigh(hash, entry);
  }
  return representation;
}
