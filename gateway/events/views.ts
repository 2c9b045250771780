// Parsed, clock-aware views of stored event objects, by content hash: parsing an index of 5,000
// events once instead of per request is what the /events target depends on. A view keeps what it
// renders (an index its pages for the current clock window, a detail its at most six renderings),
// so its weight grows after it is loaded: it is weighed again after each rendering that grew it,
// and an index never lets its pages take it past the cache's capacity (a view reweighed past it
// would be dropped and parsed again on the next request).
//
// Indexes and details share one budget: a platform's largest index can then take most of the
// views' share when its organization is the one being served, instead of half of it.
import type { Representation } from '../../snapshot/representation.ts';
import type { EventsQuery } from '../../snapshot/clock-rendering/events-query.ts';
import type { ObjectCache } from '../snapshot-cache/object-cache.ts';
import { after, type Awaitable } from '../../runtime/awaitable.ts';
import { LoadingCache } from '../../runtime/loading-cache.ts';
import type { Log } from '../../runtime/log.ts';
import type { CacheStats } from '../../runtime/lru.ts';
import { EventDetailView } from '../../snapshot/clock-rendering/detail-view.ts';
import { EventIndexView } from '../../snapshot/clock-rendering/index-view.ts';

type View = EventIndexView | EventDetailView;

interface Weighted {
  readonly view: View;
  weight: number;
}

export class EventViews {
  private readonly cache: LoadingCache<Weighted>;
  /** Hashes already reported as too large to hold, so the warning is written once per object. */
  private readonly reportedTooLarge = new Set<string>();

  constructor(
    private readonly objects: ObjectCache,
    private readonly maxBytes: number,
    private readonly log?: Log,
  ) {
    this.cache = new LoadingCache(maxBytes, (entry) => entry.weight);
  }

  /** For /metrics: a miss is a parse. */
  get stats(): CacheStats {
    return this.cache.stats;
  }

  /** GET /events: a page of the index `hash`. Synchronous when the view is held (no asynchronous hop). */
  page(orgId: string, hash: string, now: number, query: EventsQuery): Awaitable<Representation> {
    const entry = this.cache.get(hash, () => this.load(orgId, hash, (bytes) => EventIndexView.parse(hash, bytes, this.maxBytes)));
    return after(entry, (held) => this.rendered(hash, held, (held.view as EventIndexView).page(now, query)));
  }

  /** The index `hash` itself, for what is read off it besides pages (GET /changes: clock states and the next clock change). */
  withIndex<T>(orgId: string, hash: string, use: (view: EventIndexView) => T): Awaitable<T> {
    const entry = this.cache.get(hash, () => this.load(orgId, hash, (bytes) => EventIndexView.parse(hash, bytes, this.maxBytes)));
    return after(entry, (held) => {
      const result = use(held.view as EventIndexView);
      this.rendered(hash, held, undefined);
      return result;
    });
  }

  /** GET /events/{id}: the detail `hash` as at `now`. */
  detail(orgId: string, hash: string, now: number): Awaitable<Representation> {
    const entry = this.cache.get(hash, () => this.load(orgId, hash, (bytes) => EventDetailView.parse(hash, bytes)));
    return after(entry, (held) => this.rendered(hash, held, (held.view as EventDetailView).at(now)));
  }

  private async load(orgId: string, hash: string, parse: (bytes: Buffer) => View): Promise<Weighted> {
    const view = parse(await this.objects.read(orgId, hash));
    const weight = view.parsedBytes + view.renderedBytes;
    if (weight > this.maxBytes && !this.reportedTooLarge.has(hash)) {
      // Bounded like every cache: forgetting old reports only repeats a warning.
      if (this.reportedTooLarge.size >= 1000) this.reportedTooLarge.clear();
      this.reportedTooLarge.add(hash);
      // Not held: every request for it parses the object again. Never silent (docs/configuration.md).
      this.log?.warn('an event object is larger than the gateway keeps parsed: each request for it parses it again; raise GATEWAY_CACHE_MB', {
        organizationId: orgId,
        hash,
        viewBytes: weight,
        viewsBudgetBytes: this.maxBytes,
      });
    }
    return { view, weight };
  }

  /** The representation, after weighing the view again if rendering it changed what it keeps (a page rendered, an old window dropped). */
  private rendered<R>(hash: string, entry: Weighted, representation: R): R {
    const weight = entry.view.parsedBytes + entry.view.renderedBytes;
    if (weight !== entry.weight) {
      entry.weight = weight;
      this.cache.reweigh(hash, entry);
    }
    return representation;
  }
}
