// Which page of the events list is asked for (docs/api.md §4.1): what the list's rendering pages
// by, and what a request without parameters asks, which is also the list a webhook message's ETag
// names. The gateway parses requests into it (gateway/events/query.ts).
import type { Timing } from './timing.ts';

export type TimingFilter = Timing | 'all';

export interface EventsQuery {
  timing: TimingFilter;
  page: number;
  pageSize: number;
}

export const DEFAULT_EVENTS_QUERY: Readonly<EventsQuery> = { timing: 'upcoming', page: 1, pageSize: 20 };
