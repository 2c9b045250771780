// The admin JSON API (docs/design.md "Admin API and console", /admin/v1): each route parses its
// request, calls AdminServices and answers the shape the CLI's --json prints. Errors are thrown
// and answered by admin/problem.ts; no route writes an error body.
import express, { type Request, type RequestHandler, Router } from 'express';
import { AdminError, badRequest, buildNotFound } from './errors.ts';
import { requestInstant } from './request-instant.ts';
import { diffJson, historyJson } from './snapshot-admin.ts';
import type { AdminServices } from './services.ts';

/** Bodies here are a few fields; anything larger is not an admin request. */
const BODY_LIMIT = '64kb';

export function adminApiRouter(services: AdminServices): Router {
  const router = Router();
  router.use(requireJsonBody(), express.json({ limit: BODY_LIMIT, strict: true }));

  router.get('/organizations', async (_req, res) => {
    res.json(await services.organizations.list());
  });

  router.post('/builds', async (req, res) => {
    const body = objectBody(req);
    const organizations = optionalStrings(body, 'organizations') ?? [];
    const run = await services.builds.start(organizations);
    res.status(202).location(`/admin/v1/builds/${run.id}`).json(run);
  });
  router.get('/builds', (_req, res) => {
    res.json(services.builds.list());
  });
  router.get('/builds/:id', (req, res) => {
    const run = services.builds.get(req.params.id!);
    if (!run) throw buildNotFound(req.params.id!);
    res.json(run);
  });

  router.get('/keys', async (req, res) => {
    res.json(await services.keys.list(queryText(req, 'organization')));
  });
  router.post('/keys', async (req, res) => {
    const body = objectBody(req);
    const organization = body.organization;
    if (typeof organization !== 'string' || organization === '') throw badRequest('organization (an id or a slug) is required');
    const origins = optionalStrings(body, 'origins');
    const label = optionalText(body, 'label');
    const expiresAt = optionalText(body, 'expiresAt');
    const created = await services.keys.create({
      organization,
      ...(origins !== undefined ? { origins } : {}),
      ...(label !== undefined ? { label } : {}),
      ...(expiresAt !== undefined ? { expiresAt: expiresAt === null ? null : requestInstant('expiresAt', expiresAt) } : {}),
    });
    res.status(201).location(`/admin/v1/keys/${created.id}`).json(created);
  });
  router.patch('/keys/:id', async (req, res) => {
    const body = objectBody(req);
    const origins = optionalStrings(body, 'origins');
    const label = optionalText(body, 'label');
    res.json(await services.keys.update(req.params.id!, { ...(origins !== undefined ? { origins } : {}), ...(label !== undefined ? { label } : {}) }));
  });
  router.post('/keys/:id/revoke', async (req, res) => {
    res.json(await services.keys.revoke(req.params.id!));
  });
  router.post('/keys/:id/roll', async (req, res) => {
    const body = objectBody(req);
    const grace = body.graceSeconds;
    if (grace !== undefined && (typeof grace !== 'number' || !Number.isFinite(grace) || grace < 0)) throw badRequest('graceSeconds must be a number of seconds, 0 or more');
    const created = (await services.keys.roll(req.params.id!, grace === undefined ? {} : { graceSeconds: grace })).replacement;
    res.status(201).location(`/admin/v1/keys/${created.id}`).json(created);
  });

  router.get('/organizations/:org/webhooks', async (req, res) => {
    res.json(await services.webhooks.list(req.params.org!));
  });
  router.post('/organizations/:org/webhooks', async (req, res) => {
    const body = objectBody(req);
    const url = body.url;
    if (typeof url !== 'string' || url === '') throw badRequest('url (an https URL) is required');
    const description = optionalText(body, 'description');
    const created = await services.webhooks.add(req.params.org!, { url, ...(description !== undefined ? { description } : {}) });
    res.status(201).location(`/admin/v1/webhooks/${created.id}`).json(created);
  });
  router.patch('/webhooks/:id', async (req, res) => {
    const body = objectBody(req);
    const url = body.url;
    if (url !== undefined && typeof url !== 'string') throw badRequest('url must be a string');
    const enabled = body.enabled;
    if (enabled !== undefined && typeof enabled !== 'boolean') throw badRequest('enabled must be true or false');
    const description = optionalText(body, 'description');
    res.json(
      await services.webhooks.update(req.params.id!, {
        ...(url !== undefined ? { url } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(enabled !== undefined ? { enabled } : {}),
      }),
    );
  });
  router.delete('/webhooks/:id', async (req, res) => {
    await services.webhooks.remove(req.params.id!);
    res.status(204).end();
  });
  router.post('/webhooks/:id/rotate-secret', async (req, res) => {
    res.json(await services.webhooks.rotate(req.params.id!));
  });
  router.post('/webhooks/:id/test', async (req, res) => {
    res.status(202).json(await services.webhooks.test(req.params.id!));
  });
  router.get('/webhooks/:id/attempts', async (req, res) => {
    res.json(await services.webhooks.attempts(req.params.id!));
  });
  router.post('/webhooks/:id/messages/:messageId/redeliver', async (req, res) => {
    await services.webhooks.redeliver(req.params.id!, req.params.messageId!);
    res.status(202).json({ messageId: req.params.messageId });
  });

  router.get('/organizations/:org/snapshots', async (req, res) => {
    res.json(historyJson(await services.snapshots.history(req.params.org!)));
  });
  router.get('/organizations/:org/diff', async (req, res) => {
    res.json(diffJson(await services.snapshots.diff(req.params.org!, requiredQuery(req, 'from'), requiredQuery(req, 'to'))));
  });
  router.get('/organizations/:org/as-of', async (req, res) => {
    const answer = await services.snapshots.asOf(req.params.org!, requestInstant('at', requiredQuery(req, 'at')), requiredQuery(req, 'path'));
    // The body as the gateway answered then: the resource, or its problem+json.
    res
      .status(answer.status)
      .type(answer.status >= 400 ? 'application/problem+json' : 'application/json')
      .send(JSON.stringify(answer.body));
  });
  return router;
}

/**
 * A state-changing request must say it is JSON. A cross-site page can send a form (urlencoded,
 * multipart, text/plain) without asking, but not application/json without a preflight, which the
 * admin port refuses: so this is what keeps another site from changing anything (docs/design.md).
 */
function requireJsonBody(): RequestHandler {
  return function jsonOnly(req, _res, next) {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (!req.is('application/json')) {
      return next(new AdminError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported media type', 'State-changing admin requests must be sent as Content-Type: application/json.'));
    }
    next();
  };
}

function objectBody(req: Request): Record<string, unknown> {
  const body: unknown = req.body ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
  return body as Record<string, unknown>;
}

function optionalStrings(body: Record<string, unknown>, field: string): string[] | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw badRequest(`${field} must be an array of strings`);
  return value as string[];
}

function optionalText(body: Record<string, unknown>, field: string): string | null | undefined {
  const value = body[field];
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string') throw badRequest(`${field} must be a string or null`);
  return value;
}

function queryText(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw badRequest(`the query parameter ${name} must be given once, as text`);
  return value;
}

function requiredQuery(req: Request, name: string): string {
  const value = queryText(req, name);
  if (value === undefined) throw badRequest(`the query parameter ${name} is required`);
  return value;
}
