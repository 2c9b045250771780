// The operators' and auditors' console (docs/design.md "Admin API and console"): HTML pages over
// AdminServices, mounted by the admin app behind its token check. Templates are compiled when the
// router is made, so a broken template stops start-up; every page is uncached, unframed and
// script-free; every form POST must be the console's own (form-guard.ts) and answers with a 303.
// Every page and form is a declaration that states the role it needs (console-routes.ts); the forms
// that change something are checked by their API route's body schema (console-forms.ts).
import express, { type Router } from 'express';
import type { Log } from '../../runtime/log.ts';
import type { AdminServices } from '../services.ts';
import { adminPages } from './admins-pages.ts';
import { auditPages } from './audit-pages.ts';
import { buildPages } from './builds-pages.ts';
import { consoleRouteTable, ownFormsOnly, page } from './console-routes.ts';
import { createFormGuard } from './form-guard.ts';
import { consoleActing } from './form-refusals.ts';
import { keyPages } from './keys-pages.ts';
import { webhookPages } from './webhooks-pages.ts';
import { organizationPages } from './organizations-pages.ts';
import { verificationPages } from './verifications-pages.ts';
import { createPages } from './pages.ts';
import { usagePages } from './usage-pages.ts';
import { consoleSecurityHeaders } from './security-headers.ts';
import { loadStylesheet } from './stylesheet.ts';
import { createViews } from './views.ts';

export interface ConsoleOptions {
  /** Where failures that are not the operator's are logged. */
  log?: Log;
  /** The clock pages humanize instants against (tests fix it). */
  now?: () => Date;
  /** Secret of the forms' CSRF tokens; random per process by default. */
  formSecret?: Buffer;
  /** The templates folder; the package's templates/ by default. */
  templates?: string;
}

export function consoleRouter(services: AdminServices, options: ConsoleOptions = {}): Router {
  const now = options.now ?? (() => new Date());
  const views = createViews(options.templates);
  const stylesheet = loadStylesheet();
  const guard = createFormGuard(options.formSecret);
  const routes = consoleRouteTable();
  const pages = createPages({ views, stylesheet: stylesheet.path, guard, routes, now, ...(options.log ? { log: options.log } : {}) });

  const router = express.Router();
  // The JSON API's paths are never pages: an unknown one gets the API's problem+json 404, not HTML.
  router.use('/admin', function notConsole(_req, _res, next) {
    next('router');
  });
  router.use(consoleSecurityHeaders());
  router.use(express.urlencoded({ extended: false, limit: '32kb' }));
  // Whatever a page's form changes is recorded under who posted it, through the console; so is a form refused.
  router.use(consoleActing(services, options.log));
  const area = { services, pages, now };
  routes.register(
    router,
    [
      page(stylesheet.path, 'auditor', (_req, res) => {
        // The name holds the content's hash: a new stylesheet is a new name, so this one never changes.
        res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        res.type('css').send(stylesheet.body);
      }),
      ...buildPages(area),
      ...organizationPages(area),
      ...verificationPages(area),
      ...keyPages(area),
      ...usagePages(area),
      ...webhookPages(area),
      ...adminPages(area),
      ...auditPages(area),
    ],
    guard,
  );
  // A form posted anywhere else is refused as another site's would be before it is a 404.
  router.post('/{*path}', ownFormsOnly(guard));
  router.use((req, res) => pages.error(req, res, 404, 'Page not found', `The console has no page at ${req.path}.`));
  router.use(pages.errorHandler());
  return router;
}
