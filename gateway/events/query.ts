// GET /events parameters (docs/api.md §4; docs/design.md decisions table), and GET /changes's `since`
// (§10): defaults, and a 400 naming the parameter and the rule for anything else. Unknown parameters
// are ignored.
import { DEFAULT_EVENTS_QUERY, type EventsQuery, type TimingFilter } from '../../snapshot/clock-rendering/events-query.ts';
import { badRequest } from '../errors.ts';
import { isSnapshotId } from '../../snapshot/layout.ts';
import { parse } from 'node:querystring';

const MAX_PAGE_SIZE = 100;
/** page is an int32 (docs/api.md §4), and the response schema says so too. */
const MAX_PAGE = 2_147_483_647;
const TIMING_FILTERS: ReadonlySet<string> = new Set<TimingFilter>(['upcoming', 'ongoing', 'past', 'all']);
const DIGITS = /^[0-9]{1,10}$/;

/**
 * The page a query string asks for. Sites ask for a handful of pages over and over, so each query
 * string's page is parsed once and kept (a bounded map, emptied when full; a refusal is not kept)
 * rather than parsed into an object and checked on every request.
 */
export function parseEventsQuery(queryString: string): Readonly<EventsQuery> {
  let query = parsedQueries.get(queryString);
  if (query === undefined) {
    query = Object.freeze(eventsQueryOf(parse(queryString)));
    if (parsedQueries.size >= PARSED_QUERIES_KEPT) parsedQueries.clear();
    parsedQueries.set(queryString, query);
  }
  return query;
}

const PARSED_QUERIES_KEPT = 256;
const parsedQueries = new Map<string, Readonly<EventsQuery>>();

/** The parameters as node:querystring parses them: a repeated parameter arrives as an array. */
function eventsQueryOf(query: Readonly<Record<string, unknown>>): EventsQuery {
  const timing = single(query, 'timing') ?? DEFAULT_EVENTS_QUERY.timing;
  if (!TIMING_FILTERS.has(timing)) {
    throw badRequest('timing must be one of upcoming, ongoing, past, all.');
  }
  return {
    timing: timing as TimingFilter,
    page: integer(query, 'page', 1, MAX_PAGE, DEFAULT_EVENTS_QUERY.page),
    pageSize: integer(query, 'pageSize', 1, MAX_PAGE_SIZE, DEFAULT_EVENTS_QUERY.pageSize),
  };
}

/** GET /changes's `since`: a snapshot id as an answer named it (docs/api.md §10); undefined without it. */
export function parseSince(queryString: string): string | undefined {
  const since = single(parse(queryString), 'since');
  if (since !== undefined && !isSnapshotId(since)) throw badRequest('since must be a snapshot id, as Marquee-Snapshot-Id or an earlier answer of /changes named it.');
  return since;
}

function single(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  if (!Object.hasOwn(query, name)) return undefined;
  const value = query[name];
  if (typeof value !== 'string') throw badRequest(`${name} must be given at most once.`);
  return value;
}

function integer(query: Readonly<Record<string, unknown>>, name: string, min: number, max: number, fallback: number): number {
  const text = single(query, name);
  if (text === undefined) return fallback;
  const value = DIGITS.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw badRequest(`${name} must be an integer from ${min} to ${max}.`);
  return value;
}
