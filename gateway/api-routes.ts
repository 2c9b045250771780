// The integration API (docs/api.md §4) as one table: each route's name, path pattern, how it is
// answered and the schema of its 200 body. The routes are the resource catalog's
// (snapshot/resource-catalog.ts), and the matcher, the dispatch, the 405's Allow, the OpenAPI
// document's operations and the tests' route lists are all derived from this table, so the
// gateway learns a resource from its catalog entry alone (and the rendering of its clock fields,
// when the clock changes it).
//
// Matching keeps what clients already rely on: the base path case-insensitively, the routes
// case-sensitively, one trailing slash tolerated, `{idOrSlug}` one non-empty segment,
// percent-decoded (an invalid escape is the client's 400). Fixed paths are one Map lookup, the
// rest one regular expression each: no walk through router layers on the hot path.
import {
  API_BASE,
  type ClockDependentKind,
  isClockDependent,
  isEventResourceKind,
  RESOURCE_CATALOG,
  RESOURCE_KINDS,
  type ResourceKind,
  resourcePath,
  splitPattern,
} from '../snapshot/resource-catalog.ts';
import type { SchemaName } from '../snapshot/schema-catalog.ts';
import type { Awaitable } from '../runtime/awaitable.ts';
import { badRequest } from './errors.ts';
import { parseChangesQuery, parseEventsQuery } from './events/query.ts';
import type { OrganizationResources, Reading } from './organization-resources.ts';
import type { Representation } from '../snapshot/representation.ts';

/**
 * What a route's answer may use: the key's organization, never one named by the request, read as
 * the request asks (its pin, its instant); the reading notes which snapshot decided the answer.
 */
export interface RouteContext extends Reading {
  readonly resources: OrganizationResources;
  /** The request's query string, without its `?` ('' when none); only GET /events and GET /changes read it. */
  readonly queryString: string;
}

/** The representation for an authenticated GET or HEAD; `idOrSlug` is '' for fixed paths. */
type Answer = (context: RouteContext, idOrSlug: string) => Awaitable<Representation>;

export interface ApiRoute {
  /** The OpenAPI operationId. */
  readonly name: string;
  /** Below API_BASE; `{idOrSlug}` stands for one path segment. */
  readonly pattern: string;
  /** The schema a 200's body satisfies (schemas/). */
  readonly schema: SchemaName;
  readonly answer: Answer;
}

/** Resources the clock changes are computed at the request's instant, each in its own way. */
const CLOCK_DEPENDENT_ANSWERS: { readonly [K in ClockDependentKind]: Answer } = {
  // Parameters (400) are checked before the resource (docs/design.md "order of checks").
  eventIndex: (c) => c.resources.eventList(c, parseEventsQuery(c.queryString)),
  event: (c, idOrSlug) => c.resources.event(c, idOrSlug),
};

/** A kind's answer: computed when the clock changes it, else its stored bytes (the organization's, or the event's). */
function answerOf(kind: ResourceKind): Answer {
  if (isClockDependent(kind)) return CLOCK_DEPENDENT_ANSWERS[kind];
  if (isEventResourceKind(kind)) return (c, idOrSlug) => c.resources.eventPart(c, idOrSlug, kind);
  // The path is looked up once here rather than per request.
  const path = resourcePath[kind];
  return (c) => c.resources.stored(c, path);
}

/** GET /changes (docs/api.md §10): not a resource of the snapshot, but read from its manifests. */
const CHANGES_ROUTE: ApiRoute = { name: 'listChanges', pattern: '/changes', schema: 'changes', answer: (c) => c.resources.changes(c, parseChangesQuery(c.queryString).since) };

export const API_ROUTES: readonly ApiRoute[] = [
  ...RESOURCE_KINDS.map((kind) => {
    const { operationId, pattern, apiSchema } = RESOURCE_CATALOG[kind];
    return { name: operationId, pattern, schema: apiSchema, answer: answerOf(kind) };
  }),
  CHANGES_ROUTE,
];

/** The methods every route answers; OPTIONS is the preflight, answered before any route. */
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// As path-to-regexp 8 compiles app.use(API_BASE): end: false, sensitive: false, trailing: true.
// A loop comparing characters measured slower: 55 ns a path against 32 on Node 20, 41 against 32–39 on Node 26.
const BASE = new RegExp(`^${escapeRegExp(API_BASE)}(?:\\/$)?(?=\\/|$)`, 'i');

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

const FIXED = new Map<string, RouteMatch>();
const PARAMETERIZED: Array<{ regexp: RegExp; route: ApiRoute }> = [];
for (const route of API_ROUTES) {
  const parts = splitPattern(route.pattern);
  if (parts === undefined) {
    const match = { route, idOrSlug: '' };
    FIXED.set(route.pattern, match);
    FIXED.set(`${route.pattern}/`, match);
  } else {
    const [before, after] = parts;
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
