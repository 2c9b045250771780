// GET /events from the stored event index (docs/api.md §4, docs/design.md "Clock-dependent fields").
// Parsed once per index hash. Between two consecutive clock boundaries of its events nothing can
// change, so per such window the filtered lists are computed once and each requested page is
// rendered once from each item's clock template. A request inside a known window
// with a known page costs a few lookups, which is what makes 5,000 events cheap.
import { LruCache } from '../../runtime/lru.ts';
import { keyOrderOf } from '../key-order.ts';
import { computedRepresentation, type Representation } from '../representation.ts';
import type { StoredEventSummary } from '../schema-types.ts';
import { renderWithClockFields, splitClock, type ClockTemplate } from './clock-fields.ts';
import type { EventsQuery, TimingFilter } from './events-query.ts';
import { clockStateAt, sortedBoundaries, stableInterval, timingOf, type ClockState, type ParsedClock } from './timing.ts';

interface IndexedEvent {
  readonly template: ClockTemplate;
  readonly clock: ParsedClock;
}

interface Window {
  readonly from: number;
  readonly until: number;
  readonly states: Uint8Array;
  /** Positions in the index, in the order each filter lists them. */
  readonly lists: Readonly<Record<TimingFilter, readonly number[]>>;
  readonly pages: LruCache<string, Representation>;
}

const SUMMARY_ORDER = keyOrderOf('event-summary');

/**
 * Bytes of rendered pages kept per window, for an index stored in `storedBytes`: room for every
 * page of each filter at a couple of page sizes, and a floor for small indexes. Bounded by bytes
 * rather than by count (256 pages of 100 events each would be far more than the index itself), and
 * reported (renderedBytes), so that the gateway counts them in the view's weight (gateway/events/views.ts).
 */
function pageBudgetOf(storedBytes: number): number {
  return 16 * 1024 + 4 * storedBytes;
}

/** A rendered page's heap bytes besides its body: the Representation's strings and headers, its key and slot (bench/cache-weights.ts). */
const PAGE_BYTES = 800;

export class EventIndexView {
  private readonly events: IndexedEvent[];
  private readonly boundaries: number[];
  /** Positions in `past` order. */
  private readonly newestFirst: number[];
  private window: Window | undefined;

  constructor(
    private readonly hash: string,
    index: readonly StoredEventSummary[],
    /** Rendered pages' bytes kept at most (pageBudgetOf the stored size). */
    private readonly pageBytes: number,
  ) {
    this.events = index.map((event) => splitClock(event, SUMMARY_ORDER));
    this.boundaries = sortedBoundaries(this.events.map((event) => event.clock));
    this.newestFirst = pastOrder(this.events.map((event) => event.clock.start));
  }

  /** Heap bytes of the pages rendered and kept for the current window. */
  get renderedBytes(): number {
    return this.window?.pages.weight ?? 0;
  }

  static parse(hash: string, bytes: Buffer): EventIndexView {
    return new EventIndexView(hash, JSON.parse(bytes.toString('utf8')) as StoredEventSummary[], pageBudgetOf(bytes.length));
  }

  page(now: number, query: EventsQuery): Representation {
    const window = this.windowAt(now);
    const key = `${query.timing} ${query.page} ${query.pageSize}`;
    let page = window.pages.get(key);
    if (!page) {
      page = this.render(window, query);
      window.pages.set(key, page);
    }
    return page;
  }

  private windowAt(now: number): Window {
    const current = this.window;
    if (current && now >= current.from && now < current.until) return current;
    const { from, until } = stableInterval(this.boundaries, now);
    const states = Uint8Array.from(this.events, (event) => clockStateAt(event.clock, now));
    const inOrder = (order: Iterable<number>, timing: string): number[] => {
      const out: number[] = [];
      for (const position of order) if (timingOf(states[position]!) === timing) out.push(position);
      return out;
    };
    const ascending = this.events.map((_, position) => position);
    this.window = {
      from,
      until,
      states,
      lists: {
        upcoming: inOrder(ascending, 'upcoming'),
        ongoing: inOrder(ascending, 'ongoing'),
        past: inOrder(this.newestFirst, 'past'),
        all: ascending,
      },
      pages: new LruCache(this.pageBytes, (page, key) => PAGE_BYTES + key.length + page.bytes.length),
    };
    return this.window;
  }

  private render(window: Window, query: EventsQuery): Representation {
    const list = window.lists[query.timing];
    const first = (query.page - 1) * query.pageSize;
    const positions = list.slice(first, first + query.pageSize);
    const items: string[] = [];
    let state = `${query.timing} ${query.page} ${query.pageSize} ${list.length}`;
    for (const position of positions) {
      const event = this.events[position]!;
      const eventState: ClockState = window.states[position]!;
      items.push(renderWithClockFields(event.template, eventState));
      state += ` ${position}:${eventState}`;
    }
    // hasMore: whether the next page could return anything (docs/api.md §2 PagedResponse).
    const hasMore = first + query.pageSize < list.length;
    // Members in the paged-event-summaries schema's order, as canonicalJson would write them.
    const body = `{"items":[${items.join(',')}],"page":${query.page},"pageSize":${query.pageSize},"totalCount":${list.length},"hasMore":${hasMore}}`;
    return computedRepresentation(body, this.hash, state);
  }
}

/**
 * `past` lists newest first: start descending (docs/design.md "Orders"). Ties keep the index's order,
 * which the builder already made name then id, so a reversed index would get ties wrong.
 */
export function pastOrder(starts: readonly number[]): number[] {
  return starts.map((_, position) => position).sort((a, b) => starts[b]! - starts[a]! || a - b);
}
