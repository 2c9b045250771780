// The integration API below /api/integration/v1 (spec §4): access checks first for every path,
// then the nine GET routes, then 405 for other methods on them and 404 for unknown paths.
import { Router, type RequestHandler } from 'express';
import type { OrganizationResources } from '../resources.ts';
import { eventDetail, eventList, eventPart, type Clock } from './event-routes.ts';
import { rejectOtherMethods, rejectUnknownPath } from './fallbacks.ts';
import { storedResource } from './organization-routes.ts';

export const API_BASE = '/api/integration/v1';

export interface ApiRouterOptions {
  /** authenticate → checkOrigin → rateLimit (DESIGN.md "order of checks"). */
  access: readonly RequestHandler[];
  resources: OrganizationResources;
  clock: Clock;
}

export function apiRouter({ access, resources, clock }: ApiRouterOptions): Router {
  // Paths are matched exactly as the spec spells them; a trailing slash is tolerated.
  const router = Router({ caseSensitive: true });
  // Every request below the base needs a valid key, even for a path that does not exist: an
  // unauthenticated client learns nothing but 401 (and key guessing is counted, §5).
  router.use(...access);
  const notAllowed = rejectOtherMethods();
  router.route('/organization').get(storedResource(resources, '/organization')).all(notAllowed);
  router.route('/team').get(storedResource(resources, '/team')).all(notAllowed);
  router.route('/speakers').get(storedResource(resources, '/speakers')).all(notAllowed);
  router.route('/sponsors').get(storedResource(resources, '/sponsors')).all(notAllowed);
  router.route('/events').get(eventList(resources, clock)).all(notAllowed);
  router.route('/events/:idOrSlug').get(eventDetail(resources, clock)).all(notAllowed);
  router.route('/events/:idOrSlug/sessions').get(eventPart(resources, 'sessions')).all(notAllowed);
  router.route('/events/:idOrSlug/speakers').get(eventPart(resources, 'speakers')).all(notAllowed);
  router.route('/events/:idOrSlug/sponsors').get(eventPart(resources, 'sponsors')).all(notAllowed);
  router.use(rejectUnknownPath());
  return router;
}
