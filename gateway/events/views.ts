// Parsed, clock-aware views of stored event objects, by content hash: parsing an index of 5,000
// events once instead of per request is what the /events target depends on.
import type { ObjectCache } from '../snapshot-cache/object-cache.ts';
import { LoadingCache } from '../../runtime/loading-cache.ts';
import { EventDetailView } from '../../snapshot/clock-rendering/detail-view.ts';
import { EventIndexView } from '../../snapshot/clock-rendering/index-view.ts';

interface Weighted<V> {
  view: V;
  weight: number;
}

/**
 * A view holds the parsed object plus renderings, a few times the stored size; the budget is
 * weighed in stored bytes times this factor.
 */
const VIEW_WEIGHT_PER_STORED_BYTE = 4;

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

  /** A cached view is returned as is (no asynchronous hop); only a load is a promise. */
  index(orgId: string, hash: string): EventIndexView | Promise<EventIndexView> {
    return viewOf(this.indexes.get(hash, () => this.load(orgId, hash, EventIndexView.parse)));
  }

  detail(orgId: string, hash: string): EventDetailView | Promise<EventDetailView> {
    return viewOf(this.details.get(hash, () => this.load(orgId, hash, EventDetailView.parse)));
  }

  private async load<V>(orgId: string, hash: string, parse: (hash: string, bytes: Buffer) => V): Promise<Weighted<V>> {
    const bytes = await this.objects.read(orgId, hash);
    return { view: parse(hash, bytes), weight: bytes.length * VIEW_WEIGHT_PER_STORED_BYTE };
  }
}

function viewOf<V>(entry: Weighted<V> | Promise<Weighted<V>>): V | Promise<V> {
  return entry instanceof Promise ? entry.then((loaded) => loaded.view) : entry.view;
}
