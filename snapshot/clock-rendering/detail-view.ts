// GET /events/{idOrSlug}: the stored detail patched with its clock fields (docs/api.md §2 EventDetail).
// At most six states exist, so each rendering is kept for as long as the view is.
import { keyOrderOf } from '../key-order.ts';
import { computedRepresentation, computedTag, heldBytes, type Representation } from '../representation.ts';
import type { EventClock, StoredEventDetail } from '../schema-types.ts';
import { type ClockState, clockStateAt, parseClock, type ParsedClock } from './timing.ts';
import { renderWithClockFields, splitClock, type ClockTemplate } from './clock-fields.ts';

const DETAIL_ORDER = keyOrderOf('event-detail');

/**
 * Heap bytes of a parsed detail per stored byte, and of the view object itself, measured with
 * bench/cache-weights.ts (heap used before and after holding a few thousand views, after a forced
 * GC, less their renderings): its template is the stored text less the clock, as flat strings.
 */
const BYTES_PER_STORED_BYTE = 1.2;
const VIEW_BYTES = 1000;

export class EventDetailView {
  private readonly template: ClockTemplate;
  private readonly clock: ParsedClock;
  private readonly rendered: Array<Representation | undefined> = [];

  /** Memory the parsed view takes without its renderings. */
  readonly parsedBytes: number;

  constructor(
    private readonly hash: string,
    stored: StoredEventDetail,
    storedBytes: number,
  ) {
    ({ template: this.template, clock: this.clock } = splitClock(stored, DETAIL_ORDER));
    this.parsedBytes = VIEW_BYTES + Math.ceil(BYTES_PER_STORED_BYTE * storedBytes);
  }

  /**
   * Heap bytes of the renderings kept (bodies and their coded forms, plus about 500 bytes of tags and
   * headers each; bench/cache-weights.ts). Read again at every request (gateway/events/views.ts), so
   * a coded form kept since is counted from the next one on.
   */
  get renderedBytes(): number {
    let bytes = 0;
    for (const rendered of this.rendered) if (rendered !== undefined) bytes += 500 + heldBytes(rendered);
    return bytes;
  }

  static parse(hash: string, bytes: Buffer): EventDetailView {
    return new EventDetailView(hash, JSON.parse(bytes.toString('utf8')) as StoredEventDetail, bytes.length);
  }

  at(now: number): Representation {
    const state = clockStateAt(this.clock, now);
    return (this.rendered[state] ??= computedRepresentation(renderWithClockFields(this.template, state), this.hash, tagState(state)));
  }

  /**
   * The tag `at(now)` answers, unquoted, without rendering the body: the detail's state is its
   * clock's alone. For a stored detail read once (a webhook message names the tag).
   */
  static tagAt(hash: string, stored: { clock: EventClock }, now: number): string {
    return detailTag(hash, clockStateAt(parseClock(stored.clock), now));
  }
}

/** What, besides the source's hash, names a rendering of the detail. */
const tagState = (state: ClockState): string => String(state);

/** The tag, unquoted, of the detail `hash` rendered in clock state `state`: for who knows the state without the detail (GET /changes reads it from the index). */
export function detailTag(hash: string, state: ClockState): string {
  return computedTag(hash, tagState(state));
}
