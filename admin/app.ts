// The admin port's Express app (docs/design.md "Admin API and console"). Every process serves
// /healthz and /readyz (no token) and /metrics (its own Registry); builder and start also serve the
// JSON API and the console. Everything but /healthz and /readyz needs ADMIN_TOKEN or, where the control plane is served,
// a named admin credential; /metrics is for every role (auditor up). No CORS at all, and preflights
// are refused, so a page of another site can neither read an answer nor send JSON.
import express, { type Express, type Router } from 'express';
import type { Registry } from 'prom-client';
import { healthz, type ReadinessReport, readyz } from '../runtime/readiness.ts';
import type { Log } from '../runtime/log.ts';
import { adminAnswerHeaders } from './answer-headers.ts';
import { adminApiRouter } from './api.ts';
import { requireAdminCredential } from './auth.ts';
import { adminError, notFound } from './errors.ts';
import { loginThrottle } from './login-throttle.ts';
import { adminProblemHandler } from './problem.ts';
import { requestIds } from './request-attribution.ts';
import type { AdminServices } from './services.ts';
import { failedLoginEntries } from './trail/failed-logins.ts';

export interface AdminAppOptions {
  /** ADMIN_TOKEN; undefined: only /healthz and /readyz are served (a process that was given none). */
  token: string | undefined;
  /** The process's metrics, served at /metrics. */
  registry: Registry;
  /** What GET /readyz answers (runtime/readiness.ts): 200 when ready, else 503, with the backends and problems in the body. */
  readiness: () => ReadinessReport;
  log: Log;
  /** The control plane (builder, start); absent for serve. */
  services?: AdminServices;
  /** The console's pages, mounted at / behind the token (admin/console/router.ts). */
  console?: Router;
}

export function createAdminApp(options: AdminAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Before anything that may answer: every answer, an error or a refused preflight too, carries them.
  app.use(adminAnswerHeaders());
  app.use(function refusePreflight(req, _res, next) {
    if (req.method !== 'OPTIONS') return next();
    next(adminError('METHOD_NOT_ALLOWED', 'The admin port answers no CORS preflight: it serves no other site.', { Allow: 'GET, HEAD, POST, PATCH' }));
  });
  app.get('/healthz', healthz);
  app.get('/readyz', readyz(options.readiness));
  if (options.token !== undefined) {
    app.use(requestIds());
    // Named credentials live in the platform database, which only the control plane's processes hold.
    const named = options.services?.admins.authenticate;
    // Wrong credentials are throttled per address, counted, and told to the log and (where there is one) the trail in summary.
    const failures = loginThrottle({
      log: options.log,
      registry: options.registry,
      ...(options.services ? { record: failedLoginEntries(options.services.audit, options.log) } : {}),
    });
    app.use(requireAdminCredential({ token: options.token, ...(named ? { named } : {}), failures }));
    app.get('/metrics', async function metrics(_req, res) {
      const text = await options.registry.metrics();
      res.type(options.registry.contentType).send(text);
    });
    if (options.services) app.use('/admin/v1', adminApiRouter(options.services));
    if (options.console) app.use('/', options.console);
  }
  app.use(function noAdminResource(_req, _res, next) {
    next(notFound());
  });
  app.use(adminProblemHandler({ log: options.log }));
  return app;
}
