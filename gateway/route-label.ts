// Which route a request is for, as a bounded name for metrics and log lines: the route's template
// (`/api/integration/v1/events/{idOrSlug}`), never the raw path, which a client chooses freely
// and which would give a metric one series per slug (or per key pasted into a URL).
import { API_BASE } from '../snapshot/resource-catalog.ts';
import { API_ROUTES, pathBelowBase, patternOf } from './api-routes.ts';

export interface RouteLabel {
  /** The template, or one of a few fixed names (`unmatched`). */
  readonly name: string;
  /** Below the API base: answered by the API router, which writes its own headers. */
  readonly inApi: boolean;
}

/** Requests no route answers (404), inside the API or outside it. */
const UNMATCHED = 'unmatched';
/** Requests refused at the HTTP level before they reach the app (gateway/protocol-errors.ts). */
export const PROTOCOL = 'protocol';

const API_LABELS = new Map<string, RouteLabel>(API_ROUTES.map(({ pattern }) => [pattern, { name: API_BASE + pattern, inApi: true }]));
const API_UNMATCHED: RouteLabel = { name: UNMATCHED, inApi: true };
const OUTSIDE_UNMATCHED: RouteLabel = { name: UNMATCHED, inApi: false };
const HEALTHZ: RouteLabel = { name: '/healthz', inApi: false };
const READYZ: RouteLabel = { name: '/readyz', inApi: false };
const OPENAPI: RouteLabel = { name: '/openapi.json', inApi: false };
/** The reference page and every file it loads. */
const DOCS: RouteLabel = { name: '/docs', inApi: false };

/** Every name routeLabelOf can return, so that metrics can make their series up front. */
export const ROUTE_NAMES: readonly string[] = [...[...API_LABELS.values()].map(({ name }) => name), HEALTHZ.name, READYZ.name, OPENAPI.name, DOCS.name, UNMATCHED];

/** The label of a request path (without its query); allocates nothing. */
export function routeLabelOf(pathname: string): RouteLabel {
  const below = pathBelowBase(pathname);
  if (below !== undefined) return apiRouteLabelOf(below);
  if (pathname === HEALTHZ.name) return HEALTHZ;
  if (pathname === READYZ.name) return READYZ;
  if (pathname === OPENAPI.name) return OPENAPI;
  if (pathname === DOCS.name || pathname.startsWith('/docs/')) return DOCS;
  return OUTSIDE_UNMATCHED;
}

/** The label of a path below the API base (pathBelowBase's answer), for the API router, which has it already. */
export function apiRouteLabelOf(below: string): RouteLabel {
  const pattern = patternOf(below);
  return (pattern !== undefined && API_LABELS.get(pattern)) || API_UNMATCHED;
}
