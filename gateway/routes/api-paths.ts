// Which API route a request path names (docs/api.md §4), matched as the Express router matched the
// former mount and routes, so no path changes its answer: the base path case-insensitively, the
// routes case-sensitively, one trailing slash tolerated, `{idOrSlug}` one non-empty segment,
// percent-decoded (an invalid escape is the client's 400). Precompiled: one regular expression
// test per request instead of a walk through router layers.
import { badRequest } from '../errors.ts';
import type { EventPart, StoredPath } from '../resources.ts';

export const API_BASE = '/api/integration/v1';

export type ApiRoute =
  | { readonly kind: 'stored'; readonly path: StoredPath }
  | { readonly kind: 'events' }
  | { readonly kind: 'event'; readonly idOrSlug: string }
  | { readonly kind: 'event-part'; readonly idOrSlug: string; readonly part: EventPart };

// As path-to-regexp 8 compiles app.use(API_BASE): end: false, sensitive: false, trailing: true.
const BASE = /^\/api\/integration\/v1(?:\/$)?(?=\/|$)/i;

/** The path below the API base ("/" for the base itself); undefined outside the API. */
export function pathBelowBase(pathname: string): string | undefined {
  const base = BASE.exec(pathname);
  if (base === null) return undefined;
  const rest = pathname.slice(base[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

const ROUTES = new Map<string, ApiRoute>();
for (const path of ['/organization', '/team', '/speakers', '/sponsors'] as const) {
  ROUTES.set(path, { kind: 'stored', path });
  ROUTES.set(`${path}/`, { kind: 'stored', path });
}
ROUTES.set('/events', { kind: 'events' });
ROUTES.set('/events/', { kind: 'events' });
const EVENT = /^\/events\/([^/]+)(?:\/(sessions|speakers|sponsors))?\/?$/;

/** The route a path below the base names; undefined for an unknown path. */
export function matchRoute(path: string): ApiRoute | undefined {
  const fixed = ROUTES.get(path);
  if (fixed !== undefined) return fixed;
  const event = EVENT.exec(path);
  if (event === null) return undefined;
  const idOrSlug = decodeSegment(event[1]!);
  const part = event[2] as EventPart | undefined;
  return part === undefined ? { kind: 'event', idOrSlug } : { kind: 'event-part', idOrSlug, part };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest('The request path is not validly percent-encoded.');
  }
}
