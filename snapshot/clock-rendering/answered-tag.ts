// The entity tag the gateway answers, at an instant, for a resource the clock changes, computed
// from its stored object by the same rendering the gateway serves from: what a webhook message
// names for GET /events (without parameters, the list a site most likely caches) and for
// GET /events/{id}. Tagged at one instant only: the clock may change the answer later without a
// publish (docs/api.md §6.2).
import type { ClockDependentKind } from '../resource-catalog.ts';
import type { StoredEventDetail } from '../schema-types.ts';
import { EventDetailView } from './detail-view.ts';
import { DEFAULT_EVENTS_QUERY } from './events-query.ts';
import { EventIndexView } from './index-view.ts';

const TAG_AT: { readonly [K in ClockDependentKind]: (hash: string, bytes: Buffer, now: number) => string } = {
  eventIndex: (hash, bytes, now) => EventIndexView.parse(hash, bytes).page(now, DEFAULT_EVENTS_QUERY).etag,
  // The detail's tag needs its clock only, not the rendering of its text.
  event: (hash, bytes, now) => EventDetailView.tagAt(hash, JSON.parse(bytes.toString('utf8')) as StoredEventDetail, now),
};

/** The tag, unquoted, of the answer at `now` (milliseconds since the epoch) for the stored object `bytes` named `hash`. */
export function answeredTag(kind: ClockDependentKind, hash: string, bytes: Buffer, now: number): string {
  return TAG_AT[kind](hash, bytes, now);
}
