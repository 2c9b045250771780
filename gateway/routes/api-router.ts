// The integration API below /api/integration/v1 (docs/api.md §4) as one Express middleware, the app's
// first: preflight, then access checks for every path below the base, then the routes of the
// table (gateway/api-routes.ts), 405 for other methods on them and 404 for unknown paths. One middleware rather than a
// mounted Router with a layer per check and route, and first so that no other layer is walked:
// the router's per-layer matching and prefix trimming cost more than everything the gateway
// itself does for a cached answer.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AccessControl, Grant } from '../access/access-control.ts';
import { answerPreflight, setHeaders } from '../access/cors.ts';
import { STANDING_HEADERS } from '../standing-headers.ts';
import { ApiError, badRequest, methodNotAllowed, notFound, SNAPSHOT_ID_HEADER } from '../errors.ts';
import type { OrganizationResources } from '../organization-resources.ts';
import { ALLOWED_METHODS, matchRoute, pathBelowBase, type RouteContext, type RouteMatch } from '../api-routes.ts';
import { sendRepresentation } from './respond.ts';
import { isSnapshotId } from '../../snapshot/layout.ts';
import { apiRouteLabelOf, type RouteLabel } from '../route-label.ts';

export interface ApiRouterOptions {
  access: AccessControl;
  resources: OrganizationResources;
  /** Milliseconds since the epoch: decides timing and registration. */
  clock: () => number;
  /** Notes the request's id, route and start (gateway/observed-request.ts), first thing. */
  observe: (req: Request, res: Response, route: RouteLabel) => void;
}

export function apiRouter({ access, resources, clock, observe }: ApiRouterOptions): RequestHandler {
  /**
   * The route an authenticated request names (docs/api.md §5.10 step 6, before its parameters and
   * its pin are judged): unknown path (404) before method (405), and an undecodable `{idOrSlug}`
   * (400) before both, as the router answered them.
   */
  const routeOf = (req: Request, path: string): RouteMatch => {
    const match = matchRoute(path);
    if (match === undefined) throw notFound();
    if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(ALLOWED_METHODS);
    return match;
  };

  return function serveApi(req, res, next) {
    const path = pathBelowBase(req.path);
    if (path === undefined) return next();
    observe(req, res, apiRouteLabelOf(path));
    // Preflight needs no key (docs/design.md "order of checks").
    if (req.method === 'OPTIONS') return answerPreflight(res);
    try {
      // Every request below the base needs a valid key, even for a path that does not exist: an
      // unauthenticated client learns nothing but 401 (and key guessing is counted, §5).
      const grant = access.check(req);
      if (grant instanceof Promise)
        grant.then(
          (granted) => respond(req, res, next, path, granted),
          (error) => fail(res, next, undefined, error),
        );
      else respond(req, res, next, path, grant);
    } catch (error) {
      fail(res, next, undefined, error);
    }
  };

  function respond(req: Request, res: Response, next: NextFunction, path: string, grant: Grant): void {
    let context: RouteContext | undefined;
    try {
      const match = routeOf(req, path);
      // The pin's form is a parameter (§5.10 step 7): judged once the path and method are.
      const pin = req.headers[PIN_HEADER];
      const reading = new RequestReading(req, resources, grant.key.organizationId, clock(), pin === undefined ? undefined : pinOf(pin));
      context = reading;
      // The organization is the key's (docs/api.md §5.3): nothing in the URL names one.
      const representation = match.route.answer(reading, match.idOrSlug);
      if (representation instanceof Promise) {
        representation
          .then((loaded) => sendRepresentation(req, res, loaded, grant.rateLimitHeaders, reading.snapshotId!))
          .catch((error: unknown) => fail(res, next, grant, error, reading.snapshotId));
      } else {
        // A coded form obtained first (read from the store, or compressed once) sends later.
        const sent = sendRepresentation(req, res, representation, grant.rateLimitHeaders, reading.snapshotId!);
        if (sent !== undefined) sent.catch((error: unknown) => fail(res, next, grant, error, reading.snapshotId));
      }
    } catch (error) {
      fail(res, next, grant, error, context?.snapshotId);
    }
  }
}

/** What a route reads for one request; the query string is read only by the routes that take parameters (GET /events, GET /changes). */
class RequestReading implements RouteContext {
  snapshotId: string | undefined = undefined;

  constructor(
    private readonly req: Request,
    readonly resources: OrganizationResources,
    readonly organizationId: string,
    readonly now: number,
    readonly pin: string | undefined,
  ) {}

  get queryString(): string {
    return queryStringOf(this.req.url);
  }
}

/** The query string of a request's target, without its `?`. */
function queryStringOf(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
}

/**
 * The request header naming a snapshot to read from (docs/api.md §10), as Node keys it:
 * SNAPSHOT_ID_HEADER in lower case, written as a literal. Computed with toLowerCase(), the name was
 * a string V8 had not internalized, and every optimized respond() was thrown away at its first
 * request ("unexpected name in keyed access", 1,351 times in a 3-minute bench:gateway on Node 26):
 * respond() ran unoptimized for most requests of a gateway serving more than one route.
 */
const PIN_HEADER = 'marquee-snapshot-id';

/** The pinned snapshot id; a value that cannot be one is the client's 400, after the checks before parameters. */
function pinOf(header: string | string[]): string {
  if (typeof header === 'string' && isSnapshotId(header)) return header;
  throw badRequest(`${SNAPSHOT_ID_HEADER} must be one snapshot id, as an earlier answer named it (such as 20261122T215748194Z-b6d0c546dfb6).`);
}

/**
 * To gateway/problem.ts with the headers a 200 would have written in its batch: the standing ones
 * (CORS, nosniff) on every response, and the rate-limit state on every response after the rate-limit check; and the
 * snapshot that decided a 404 EVENT_NOT_FOUND (no other error is a snapshot's answer).
 */
function fail(res: Response, next: NextFunction, grant: Grant | undefined, error: unknown, snapshotId?: string): void {
  setHeaders(res, STANDING_HEADERS);
  if (grant !== undefined) setHeaders(res, grant.rateLimitHeaders);
  if (snapshotId !== undefined && error instanceof ApiError && error.errorCode === 'EVENT_NOT_FOUND') res.setHeader(SNAPSHOT_ID_HEADER, snapshotId);
  next(error);
}
