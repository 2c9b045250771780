// GET /events/{idOrSlug}: the stored detail patched with its clock fields (docs/api.md §2 EventDetail).
// At most six states exist, so each rendering is kept for as long as the view is.
import { keyOrderOf } from '../key-order.ts';
import { computedRepresentation, type Representation } from '../representation.ts';
import type { StoredEventDetail } from '../schema-types.ts';
import { clockStateAt, type ParsedClock } from './timing.ts';
import { renderWithClockFields, splitClock, type ClockTemplate } from './clock-fields.ts';

const DETAIL_ORDER = keyOrderOf('event-detail');

export class EventDetailView {
  private readonly template: ClockTemplate;
  private readonly clock: ParsedClock;
  private readonly rendered: Array<Representation | undefined> = [];

  constructor(
    private readonly hash: string,
    stored: StoredEventDetail,
  ) {
    ({ template: this.template, clock: this.clock } = splitClock(stored, DETAIL_ORDER));
  }

  static parse(hash: string, bytes: Buffer): EventDetailView {
    return new EventDetailView(hash, JSON.parse(bytes.toString('utf8')) as StoredEventDetail);
  }

  at(now: number): Representation {
    const state = clockStateAt(this.clock, now);
    return (this.rendered[state] ??= computedRepresentation(renderWithClockFields(this.template, state), this.hash, String(state)));
  }
}
