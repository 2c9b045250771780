// The integration API below /api/integration/v1 (docs/api.md §4) as one Express middleware, the app's
// first: preflight, then access checks for every path below the base, then the routes of the
// table (gateway/api-routes.ts), 405 for other methods on them and 404 for unknown paths. One middleware rather than a
// mounted Router with a layer per check and route, and first so that no other layer is walked:
// the router's per-layer matching and prefix trimming cost more than everything the gateway
// itself does for a cached answer.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AccessControl, Grant } from '../access/access-control.ts';
import { answerPreflight, CORS_HEADERS, setHeaders } from '../access/cors.ts';
import type { Awaitable } from '../../runtime/awaitable.ts';
import { methodNotAllowed, notFound } from '../errors.ts';
import type { KeyRecord } from '../../records/keys/key-store.ts';
import type { Representation } from '../../snapshot/representation.ts';
import type { OrganizationResources } from '../organization-resources.ts';
import { ALLOWED_METHODS, matchRoute, pathBelowBase } from '../api-routes.ts';
import { sendRepresentation } from './respond.ts';

export interface ApiRouterOptions {
  access: AccessControl;
  resources: OrganizationResources;
  /** Milliseconds since the epoch: decides timing and registration. */
  clock: () => number;
  /** Notes the request's id, route and start (gateway/observed-request.ts), first thing. */
  observe: (req: Request, res: Response) => void;
}

export function apiRouter({ access, resources, clock, observe }: ApiRouterOptions): RequestHandler {
  /**
   * The representation for an authenticated request. The organization is the key's (docs/api.md §5.3):
   * nothing in the URL names one. Unknown path (404) before method (405), and an undecodable
   * `{idOrSlug}` (400) before both, as the router answered them.
   */
  const answer = (req: Request, path: string, key: KeyRecord): Awaitable<Representation> => {
    const match = matchRoute(path);
    if (match === undefined) throw notFound();
    if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(ALLOWED_METHODS);
    return match.route.answer({ resources, organizationId: key.organizationId, query: req.query, now: clock() }, match.idOrSlug);
  };

  return function serveApi(req, res, next) {
    const path = pathBelowBase(req.path);
    if (path === undefined) return next();
    observe(req, res);
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
    try {
      const representation = answer(req, path, grant.key);
      if (representation instanceof Promise) {
        representation.then(
          (loaded) => sendRepresentation(req, res, loaded, grant.rateLimitHeaders),
          (error) => fail(res, next, grant, error),
        );
      } else {
        sendRepresentation(req, res, representation, grant.rateLimitHeaders);
      }
    } catch (error) {
      fail(res, next, grant, error);
    }
  }
}

/**
 * To gateway/problem.ts with the headers a 200 would have written in its batch: CORS on every
 * response, and the rate-limit state on every response after the rate-limit check.
 */
function fail(res: Response, next: NextFunction, grant: Grant | undefined, error: unknown): void {
  setHeaders(res, CORS_HEADERS);
  if (grant !== undefined) setHeaders(res, grant.rateLimitHeaders);
  next(error);
}
