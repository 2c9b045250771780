// Which page of the events list is asked for (docs/api.md §4.1): what the list's rendering pages
// by, and what a request without parameters asks, which is also the list a webhook message's ETag
// names. Declared once as QUERY_SCHEMAS.EventsQuery (snapshot/resource-catalog.ts), typed from it
// (snapshot/schema-types.ts); the gateway parses requests into it (gateway/events/query.ts).
import { QUERY_SCHEMAS } from '../resource-catalog.ts';
import type { EventsQuery } from '../schema-types.ts';

export type { EventsQuery };
export type TimingFilter = EventsQuery['timing'];

const { timing, page, pageSize } = QUERY_SCHEMAS.EventsQuery.properties;
/** The schema's defaults: a member added to the schema without one fails to compile here. */
export const DEFAULT_EVENTS_QUERY: Readonly<EventsQuery> = Object.freeze({ timing: timing.default, page: page.default, pageSize: pageSize.default });
