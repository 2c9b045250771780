// The integration API (docs/api.md §4) as one table: each route's name, path pattern, how it is
// answered and the schema of its 200 body. The matcher, the dispatch, the 405's Allow, the
// OpenAPI document's operations and the tests' route lists are all derived from it, so an
// endpoint is added here and nowhere else in the gateway.
//
// Matching keeps what clients already rely on: the base path case-insensitively, the routes
// case-sensitively, one trailing slash tolerated, `{idOrSlug}` one non-empty segment,
// percent-decoded (an invalid escape is the client's 400). Fixed paths are one Map lookup, the
// rest one regular expression each: no walk through router layers on the hot path.
import type { SchemaName } from '../snapshot/schema-catalog.ts';
import type { Awaitable } from './awaitable.ts';
import { badRequest } from './errors.ts';
import { parseEventsQuery } from './events/query.ts';
import type { OrganizationResources } from './organization-resources.ts';
import type { Representation } from './representation.ts';

export const API_BASE = '/api/integration/v1';

/** What a route's answer may use: the key's organization, never one named by the request. */
interface RouteContext {
  readonly resources: OrganizationResources;
  readonly organizationId: string;
  /** The parsed query string; only GET /events reads it. */
  readonly query: Readonly<Record<string, unknown>>;
  /** Milliseconds since the epoch: decides timing and registration. */
  readonly now: number;
}

export interface ApiRoute {
  /** The OpenAPI operationId. */
  readonly name: string;
  /** Below API_BASE; `{idOrSlug}` stands for one path segment. */
  readonly pattern: string;
  /** The schema a 200's body satisfies (schemas/). */
  readonly schema: SchemaName;
  /** The representation for an authenticated GET or HEAD; `idOrSlug` is '' for fixed paths. */
  readonly answer: (context: RouteContext, idOrSlug: string) => Awaitable<Representation>;
}

export const API_ROUTES: readonly ApiRoute[] = [
  {
    name: 'getOrganization',
    pattern: '/organization',
    schema: 'organization',
    answer: (c) => c.resources.stored(c.organizationId, '/organization'),
  },
  {
    name: 'listTeamMembers',
    pattern: '/team',
    schema: 'team',
    answer: (c) => c.resources.stored(c.organizationId, '/team'),
  },
  {
    name: 'listSpeakers',
    pattern: '/speakers',
    schema: 'speaker-list',
    answer: (c) => c.resources.stored(c.organizationId, '/speakers'),
  },
  {
    name: 'listSponsors',
    pattern: '/sponsors',
    schema: 'sponsor-list',
    answer: (c) => c.resources.stored(c.organizationId, '/sponsors'),
  },
  // Parameters (400) are checked before the resource (docs/design.md "order of checks").
  {
    name: 'listEvents',
    pattern: '/events',
    schema: 'paged-event-summaries',
    answer: (c) => c.resources.eventList(c.organizationId, parseEventsQuery(c.query), c.now),
  },
  {
    name: 'getEvent',
    pattern: '/events/{idOrSlug}',
    schema: 'event-detail',
    answer: (c, idOrSlug) => c.resources.event(c.organizationId, idOrSlug, c.now),
  },
  {
    name: 'listEventSessions',
    pattern: '/events/{idOrSlug}/sessions',
    schema: 'session-list',
    answer: (c, idOrSlug) => c.resources.eventPart(c.organizationId, idOrSlug, 'sessions'),
  },
  {
    name: 'listEventSpeakers',
    pattern: '/events/{idOrSlug}/speakers',
    schema: 'speaker-list',
    answer: (c, idOrSlug) => c.resources.eventPart(c.organizationId, idOrSlug, 'speakers'),
  },
  {
    name: 'listEventSponsors',
    pattern: '/events/{idOrSlug}/sponsors',
    schema: 'sponsor-list',
    answer: (c, idOrSlug) => c.resources.eventPart(c.organizationId, idOrSlug, 'sponsors'),
  },
];

/** The methods every route answers; OPTIONS is the preflight, answered before any route. */
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

// As path-to-regexp 8 compiles app.use(API_BASE): end: false, sensitive: false, trailing: true.
const BASE = /^\/api\/integration\/v1(?:\/$)?(?=\/|$)/i;

/** The path below the API base ("/" for the base itself); undefined outside the API. */
export function pathBelowBase(pathname: string): string | undefined {
  const base = BASE.exec(pathname);
  if (base === null) return undefined;
  const rest = pathname.slice(base[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

export interface RouteMatch {
  readonly route: ApiRoute;
  /** Percent-decoded; '' for fixed paths. */
  readonly idOrSlug: string;
}

const PARAMETER = '{idOrSlug}';
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const FIXED = new Map<string, RouteMatch>();
const PARAMETERIZED: Array<{ regexp: RegExp; route: ApiRoute }> = [];
for (const route of API_ROUTES) {
  if (!route.pattern.includes(PARAMETER)) {
    const match = { route, idOrSlug: '' };
    FIXED.set(route.pattern, match);
    FIXED.set(`${route.pattern}/`, match);
  } else {
    const [before, after] = route.pattern.split(PARAMETER) as [string, string];
    PARAMETERIZED.push({ regexp: new RegExp(`^${escapeRegExp(before)}([^/]+)${escapeRegExp(after)}/?$`), route });
  }
}

/** The route a path below the base names; undefined for an unknown path. */
export function matchRoute(path: string): RouteMatch | undefined {
  const fixed = FIXED.get(path);
  if (fixed !== undefined) return fixed;
  for (const { regexp, route } of PARAMETERIZED) {
    const match = regexp.exec(path);
    if (match !== null) return { route, idOrSlug: decodeSegment(match[1]!) };
  }
  return undefined;
}

/**
 * The pattern of the route a path below the base names, or undefined: like matchRoute, but
 * nothing is decoded, so it never throws. A bounded name for metrics and logs, never the path.
 */
export function patternOf(path: string): string | undefined {
  const fixed = FIXED.get(path);
  if (fixed !== undefined) return fixed.route.pattern;
  for (const { regexp, route } of PARAMETERIZED) if (regexp.test(path)) return route.pattern;
  return undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest('The request path is not validly percent-encoded.');
  }
}
