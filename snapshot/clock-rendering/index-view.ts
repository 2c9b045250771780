// GET /events from the stored event index (docs/api.md §4, docs/design.md "Clock-dependent fields").
// Parsed once per index hash into a compact form: every event's API text, cut at its two clock
// fields, lies in one UTF-8 buffer, and the cuts, clocks and orders in typed arrays — about one
// byte of memory per stored byte and no object per event, so that the largest organization's index
// stays in the gateway's views budget (an index of 5,000 events as objects per event took 2.5 bytes
// per stored byte and no longer fitted). A page is copied out of the buffer with its clock fields.
// Between two consecutive clock boundaries of its events nothing can change, so per such window the
// filtered lists are computed once and each requested page is rendered once and kept within a byte
// budget: a request inside a known window for a known page costs a few lookups.
import { LruCache } from '../../runtime/lru.ts';
import { keyOrderOf } from '../key-order.ts';
import { QUERY_SCHEMAS } from '../resource-catalog.ts';
import { computedRepresentation, heldBytes, type Representation } from '../representation.ts';
import type { StoredEventSummary } from '../schema-types.ts';
import { type ClockField, splitClock } from './clock-fields.ts';
import type { EventsQuery, TimingFilter } from './events-query.ts';
import { type ClockState, clockStateAt, isOpenIn, type ParsedClock, sortedBoundaries, stableInterval, timingOf } from './timing.ts';

const SUMMARY_ORDER = keyOrderOf('event-summary');

/** A rendered page's heap bytes besides its body: the Representation's strings and headers, its key and slot (bench/cache-weights.ts). */
const PAGE_BYTES = 800;
/** The view object, its arrays' headers, the window's lists' headers (bench/cache-weights.ts). */
const VIEW_OVERHEAD_BYTES = 2700;

/**
 * Bytes of rendered pages kept per window, for an index whose API text is `textBytes`: room for
 * every page of each filter at a page size or two, and a floor for small indexes — unless the
 * view's whole weight must stay within `maxBytes`, the cache that holds it (a view reweighed past
 * its cache's capacity would be dropped, and parsed again on the next request).
 */
function pageBudgetOf(textBytes: number, parsedBytes: number, maxBytes: number): number {
  return Math.max(0, Math.min(16 * 1024 + 2 * textBytes, maxBytes - parsedBytes));
}

interface Window {
  readonly from: number;
  readonly until: number;
  /** Each event's clock state in this window. */
  readonly states: Uint8Array;
  /** Positions in the index, in the order each filter lists them. */
  readonly lists: Readonly<Record<TimingFilter, Uint32Array>>;
  readonly pages: LruCache<string, Representation>;
}

/** The texts a clock field takes, as the bytes copied into a page. */
const TIMING_TEXT = { upcoming: Buffer.from('upcoming'), ongoing: Buffer.from('ongoing'), past: Buffer.from('past') } as const;
const OPEN_TEXT = { true: Buffer.from('true'), false: Buffer.from('false') } as const;
const PAGE_HEAD = Buffer.from('{"items":[');
const ID_PREFIX = '{"id":"';
const UUID_LENGTH = 36;
/** A Map entry of an id and its position (bench/cache-weights.ts). */
const ID_ENTRY_BYTES = 120;
const COMMA = Buffer.from(',');

export class EventIndexView {
  /** Every event's API text, cut at its clock fields: part p of event i is text[cuts[i·P + p], cuts[i·P + p + 1]). */
  private readonly text: Buffer;
  private readonly cuts: Uint32Array;
  /** The clock fields every summary has, in the API schema's order; P = slots.length + 1 parts per event. */
  private readonly slots: readonly ClockField[];
  /** start, end, registrationStart, registrationEnd (NaN: unset) per event, in milliseconds. */
  private readonly instants: Float64Array;
  private readonly registrationAvailable: Uint8Array;
  private readonly boundaries: number[];
  /** Positions in `past` order. */
  private readonly newestFirst: Uint32Array;
  private readonly pageBytes: number;
  private window: Window | undefined;
  /** Event id → position, made the first time GET /changes asks for a detail's state. */
  private positionsById: Map<string, number> | undefined;

  /** `maxBytes`: what the view may weigh at most, its rendered pages included (its cache's capacity). */
  constructor(
    private readonly hash: string,
    index: readonly StoredEventSummary[],
    maxBytes = Number.POSITIVE_INFINITY,
  ) {
    const count = index.length;
    const clocks: ParsedClock[] = [];
    // The texts are gathered as strings and encoded once: one buffer, not one per part.
    const parts: string[] = [];
    let slots: readonly ClockField[] | undefined;
    for (const stored of index) {
      const { template, clock } = splitClock(stored, SUMMARY_ORDER);
      slots ??= template.slots;
      if (template.slots.join() !== slots.join()) throw new Error('every summary in an event index has the same clock fields');
      parts.push(...template.parts);
      clocks.push(clock);
    }
    this.slots = slots ?? [];
    this.text = Buffer.from(parts.join(''), 'utf8');
    this.cuts = new Uint32Array(parts.length + 1);
    let offset = 0;
    for (const [i, part] of parts.entries()) {
      this.cuts[i] = offset;
      offset += Buffer.byteLength(part, 'utf8');
    }
    this.cuts[parts.length] = offset;

    this.instants = new Float64Array(count * 4);
    this.registrationAvailable = new Uint8Array(count);
    for (const [i, clock] of clocks.entries()) {
      this.instants.set([clock.start, clock.end, clock.registrationStart ?? Number.NaN, clock.registrationEnd ?? Number.NaN], i * 4);
      this.registrationAvailable[i] = clock.registrationAvailable ? 1 : 0;
    }
    this.boundaries = sortedBoundaries(clocks);
    this.newestFirst = Uint32Array.from(pastOrder(clocks.map((clock) => clock.start)));
    this.pageBytes = pageBudgetOf(this.text.length, this.parsedBytes, maxBytes);
  }

  static parse(hash: string, bytes: Buffer, maxBytes?: number): EventIndexView {
    return new EventIndexView(hash, JSON.parse(bytes.toString('utf8')) as StoredEventSummary[], maxBytes);
  }

  /** Memory the parsed view takes without its rendered pages: its buffer, its arrays and the current window's. */
  get parsedBytes(): number {
    const count = this.registrationAvailable.length;
    // Per event in a window: a state byte and its place in `all` and in one of the timing lists.
    const windowBytes = count * (1 + 4 + 4);
    const idBytes = this.positionsById === undefined ? 0 : count * ID_ENTRY_BYTES;
    return (
      VIEW_OVERHEAD_BYTES +
      this.text.length +
      this.cuts.byteLength +
      this.instants.byteLength +
      count +
      this.newestFirst.byteLength +
      8 * this.boundaries.length +
      windowBytes +
      idBytes
    );
  }

  /** The next instant after `now` at which some event's clock fields change (docs/api.md §10 nextClockChangeAt); Infinity when none is ahead. */
  nextChangeAfter(now: number): number {
    return this.clockWindowAt(now).until;
  }

  /** The interval around `now` in which no event's clock fields change: every answer computed from this index is fixed within it. */
  clockWindowAt(now: number): { from: number; until: number } {
    return stableInterval(this.boundaries, now);
  }

  /**
   * The clock state at `now` of the event `eventId`, as its detail is tagged (GET /changes names
   * every detail's ETag without parsing it: the index holds the same clock); undefined when the
   * index does not list it.
   */
  clockStateOf(eventId: string, now: number): ClockState | undefined {
    const position = this.positions().get(eventId);
    return position === undefined ? undefined : this.windowAt(now).states[position];
  }

  private positions(): Map<string, number> {
    if (this.positionsById !== undefined) return this.positionsById;
    const partsPerEvent = this.slots.length + 1;
    const positions = new Map<string, number>();
    for (let position = 0; position < this.registrationAvailable.length; position++) {
      // Canonical form: every summary begins with its id (the schema lists it first).
      const start = this.cuts[position * partsPerEvent]!;
      const head = this.text.toString('latin1', start, start + ID_PREFIX.length + UUID_LENGTH);
      if (!head.startsWith(ID_PREFIX)) throw new Error(`event index ${this.hash}: summary ${position} does not begin with its id`);
      positions.set(head.slice(ID_PREFIX.length), position);
    }
    this.positionsById = positions;
    return positions;
  }

  /** Heap bytes of the pages rendered and kept for the current window. */
  get renderedBytes(): number {
    return this.window?.pages.weight ?? 0;
  }

  page(now: number, query: EventsQuery): Representation {
    const window = this.windowAt(now);
    const key = pageKey(query);
    let page = window.pages.get(key);
    if (!page) {
      page = this.render(window, query, key);
      window.pages.set(key, page);
    }
    return page;
  }

  private clockOf(position: number): ParsedClock {
    const at = position * 4;
    const optional = (ms: number) => (Number.isNaN(ms) ? null : ms);
    return {
      start: this.instants[at]!,
      end: this.instants[at + 1]!,
      registrationStart: optional(this.instants[at + 2]!),
      registrationEnd: optional(this.instants[at + 3]!),
      registrationAvailable: this.registrationAvailable[position] === 1,
    };
  }

  private windowAt(now: number): Window {
    const current = this.window;
    if (current && now >= current.from && now < current.until) return current;
    const { from, until } = stableInterval(this.boundaries, now);
    const count = this.registrationAvailable.length;
    const states = new Uint8Array(count);
    for (let position = 0; position < count; position++) states[position] = clockStateAt(this.clockOf(position), now);
    const inOrder = (order: Iterable<number>, timing: string): Uint32Array => {
      const out: number[] = [];
      for (const position of order) if (timingOf(states[position]!) === timing) out.push(position);
      return Uint32Array.from(out);
    };
    const ascending = Uint32Array.from({ length: count }, (_, position) => position);
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
      pages: new LruCache(this.pageBytes, (page, key) => PAGE_BYTES + key.length + heldBytes(page)),
    };
    return this.window;
  }

  /** `key`: the query's page key, which the ETag's state begins with. */
  private render(window: Window, query: EventsQuery, key: string): Representation {
    const list = window.lists[query.timing];
    const first = Math.min((query.page - 1) * query.pageSize, list.length);
    const positions = list.subarray(first, first + query.pageSize);
    // hasMore: whether the next page could return anything (docs/api.md §2 PagedResponse).
    const hasMore = first + query.pageSize < list.length;
    // Members in the paged-event-summaries schema's order, as canonicalJson would write them.
    const tail = Buffer.from(`],"page":${query.page},"pageSize":${query.pageSize},"totalCount":${list.length},"hasMore":${hasMore}}`);

    const partsPerEvent = this.slots.length + 1;
    const fieldText = (slot: ClockField, state: ClockState): Buffer => (slot === 'timing' ? TIMING_TEXT[timingOf(state)] : OPEN_TEXT[`${isOpenIn(state)}`]);
    let length = PAGE_HEAD.length + tail.length + Math.max(0, positions.length - 1);
    let state = `${key} ${list.length}`;
    for (const position of positions) {
      const eventState: ClockState = window.states[position]!;
      const at = position * partsPerEvent;
      length += this.cuts[at + partsPerEvent]! - this.cuts[at]!;
      for (const slot of this.slots) length += fieldText(slot, eventState).length;
      state += ` ${position}:${eventState}`;
    }

    const body = Buffer.allocUnsafe(length);
    let written = PAGE_HEAD.copy(body, 0);
    for (const [n, position] of positions.entries()) {
      if (n > 0) written += COMMA.copy(body, written);
      const eventState: ClockState = window.states[position]!;
      const at = position * partsPerEvent;
      for (let part = 0; part < partsPerEvent; part++) {
        written += this.text.copy(body, written, this.cuts[at + part]!, this.cuts[at + part + 1]!);
        const slot = this.slots[part];
        if (slot !== undefined) written += fieldText(slot, eventState).copy(body, written);
      }
    }
    tail.copy(body, written);
    // A coded form kept later makes the page heavier: weighed again while the window still holds it.
    return computedRepresentation(body, this.hash, state, (grown) => {
      if (window.pages.peek(key) === grown) window.pages.set(key, grown);
    });
  }
}

/**
 * A query's page key: every member the query's schema names, in its order, space-separated. It
 * names a rendered page within its window and begins the page's ETag state, so a parameter added
 * to the schema is in both without an edit here (two queries that differ only in it would
 * otherwise share a page and its tag).
 */
export function pageKeyOf<Query extends object>(schema: { readonly properties: { readonly [Member in keyof Query]: unknown } }): (query: Query) => string {
  const members = Object.keys(schema.properties) as (keyof Query)[];
  return (query) => {
    let key = '';
    for (const member of members) key += key === '' ? `${query[member]}` : ` ${query[member]}`;
    return key;
  };
}

const pageKey = pageKeyOf<EventsQuery>(QUERY_SCHEMAS.EventsQuery);

/**
 * `past` lists newest first: start descending (docs/design.md "Orders and ties"). Ties keep the index's order,
 * which the builder already made name then id, so a reversed index would get ties wrong.
 */
export function pastOrder(starts: readonly number[]): number[] {
  return starts.map((_, position) => position).sort((a, b) => starts[b]! - starts[a]! || a - b);
}
