// The admin JSON API (docs/design.md "Admin API and console", /admin/v1): the routes of
// api-routes.ts, each request's query and body checked against the route's schemas
// (request-validation.ts), answered with what the route's call into AdminServices gives, the shape
// the CLI's --json prints; and their OpenAPI description (api-document.ts) at /openapi.json (for
// every role). Each route's role is checked before anything else of the request. Errors are thrown
// and answered by admin/problem.ts; no route writes an error body.
import express, { type ErrorRequestHandler, type Request, type RequestHandler, Router } from 'express';
import { adminApiDocument } from './api-document.ts';
import { type AdminRoute, PastAnswer } from './api-route.ts';
import { ADMIN_ROUTES } from './api-routes.ts';
import { actingAs } from './acting.ts';
import { call } from './operations/operation.ts';
import type { AuditAction } from '../records/trail/audit-entry.ts';
import { adminError } from './errors.ts';
import { requestAttribution } from './request-attribution.ts';
import type { AdminServices } from './services.ts';

/** Bodies here are a few fields; anything larger is not an admin request. */
const BODY_LIMIT = '64kb';

export function adminApiRouter(services: AdminServices): Router {
  const router = Router();
  // Made once: the table does not change while the process runs.
  const document = adminApiDocument();
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  const readBody = [requireJsonBody(), express.json({ limit: BODY_LIMIT, strict: true })];
  for (const route of ADMIN_ROUTES) {
    // Now, not at the first request: a schema ajv cannot compile stops start-up.
    route.compile();
    if (route.action === undefined) router[route.method](expressPath(route.path), handler(route, services));
    // A state-changing route: a refusal before its operation runs (its body, its role) is an entry too.
    else router[route.method](expressPath(route.path), ...readBody, handler(route, services), recordRefusal(route, route.action, services));
  }
  // Reads take no body; an unknown path's body is not read either.
  router.use(...readBody);
  return router;
}

function handler(route: AdminRoute, services: AdminServices): RequestHandler {
  return async function adminRoute(req, res) {
    // A refusal (its role, its input) goes on to recordRefusal below, which makes it the route's refused entry.
    const { body: answer, location } = await call(route, services, { params: req.params, query: req.query, body: bodyOf(req, route) }, requestAttribution(req, res, 'api'));
    if (answer instanceof PastAnswer) {
      // The body as the gateway answered then: the resource, or its problem+json.
      res
        .set(answer.headers)
        .status(answer.status)
        .type(answer.status >= 400 ? 'application/problem+json' : 'application/json')
        .send(JSON.stringify(answer.body));
      return;
    }
    if (location !== undefined) res.location(location);
    if (route.status === 204) res.status(204).end();
    else res.status(route.status).json(answer);
  };
}

/** The entry of a state-changing request answered with an error its operation did not record; the error goes on to admin/problem.ts. */
function recordRefusal(route: AdminRoute, action: AuditAction, services: AdminServices): ErrorRequestHandler {
  return async function auditRefusal(error: unknown, req, res, next) {
    try {
      const body = route.body !== undefined && isPlainObject(req.body) ? req.body : {};
      const params = req.params as Record<string, string | undefined>;
      const organization = params.idOrSlug ?? (typeof body.organization === 'string' ? body.organization : null);
      await actingAs(requestAttribution(req, res, 'api'), () => services.audit.recordRefusal(action, error, { targetId: params.id ?? null, organization, changes: body }));
    } catch (failure) {
      return next(failure);
    }
    next(error);
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A route that takes no body ignores what is sent; one that does reads no body as {}. */
function bodyOf(req: Request, route: AdminRoute): unknown {
  return route.body === undefined ? {} : (req.body ?? {});
}

/** `/keys/{id}` as Express writes it: `/keys/:id`. */
function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * A state-changing request must say it is JSON. A cross-site page can send a form (urlencoded,
 * multipart, text/plain), or a POST with no Content-Type at all, without asking, but not
 * application/json without a preflight, which the admin port refuses: so this is what keeps
 * another site from changing anything (docs/design.md). The header is what counts, body or not: a
 * POST that sends none (`curl -X POST -H 'Content-Type: application/json'`, no Content-Length) is
 * read as {}, which a route whose body is optional accepts, and one that requires members refuses
 * with a 400 naming them. (`req.is` answers null for a request without a body, which refused it.)
 */
function requireJsonBody(): RequestHandler {
  return function jsonOnly(req, _res, next) {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (mediaTypeOf(req.get('content-type')) !== 'application/json') {
      return next(adminError('UNSUPPORTED_MEDIA_TYPE', 'State-changing admin requests must be sent as Content-Type: application/json.'));
    }
    next();
  };
}

/** `application/JSON; charset=utf-8` → `application/json`; undefined without the header. */
function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase();
}
