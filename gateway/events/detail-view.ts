// GET /events/{idOrSlug}: the stored detail patched with its clock fields (spec §2 EventDetail).
// At most six states exist, so each rendering is kept for as long as the view is.
import type { EventDetailBody, StoredEventDetail } from '../../snapshot/resources.ts';
import { computedRepresentation, type Representation } from '../representation.ts';
import { clockStateAt, type ParsedClock } from '../timing.ts';
import { renderWithClockFields, splitClock } from './clock-fields.ts';

export class EventDetailView {
  private readonly core: EventDetailBody;
  private readonly clock: ParsedClock;
  private readonly rendered: Array<Representation | undefined> = [];

  constructor(private readonly hash: string, stored: StoredEventDetail) {
    ({ core: this.core, clock: this.clock } = splitClock<EventDetailBody>(stored));
  }

  static parse(hash: string, bytes: Buffer): EventDetailView {
    return new EventDetailView(hash, JSON.parse(bytes.toString('utf8')) as StoredEventDetail);
  }

  at(now: number): Representation {
    const state = clockStateAt(this.clock, now);
    return (this.rendered[state] ??= computedRepresentation(renderWithClockFields(this.core, state), this.hash, String(state)));
  }
}
