// Every console page and form states the role it needs where it is registered, as its first
// handler: `router.get('/keys', requires('auditor'), …)` (docs/design.md "Who did what"). Reading
// pages are for every role; forms that change something, and the pages that hold them, for
// operators; admin credentials for owners. A weaker role is refused (403 ADMIN_FORBIDDEN, shown as
// a page) before the page's own handler runs, so nothing is read or changed. The console refuses
// to start with a page that states no role (declaredConsoleRoutes), so none can be forgotten.
import type { RequestHandler, Router } from 'express';
import { type AdminRole, roleAllows } from '../../records/actor.ts';
import { actorOf } from '../request-actor.ts';
import { adminError } from '../errors.ts';

export interface ConsoleRouteDeclaration {
  readonly method: 'get' | 'post';
  /** As Express writes it: `/keys/:keyId/revoke`. */
  readonly path: string;
  readonly role: AdminRole;
}

type RoleCheck = RequestHandler & { readonly neededRole: AdminRole };

/** The first handler of a console page or form: lets through an actor whose role is `role` or above. */
// biome-ignore lint/suspicious/noExplicitAny: a check typed with parameters of its own would fix the page handler's after it to those; it reads none.
export function requires(role: AdminRole): RequestHandler<any> {
  const check: RequestHandler = function roleCheck(req, res, next) {
    const actor = actorOf(res);
    if (roleAllows(actor.role, role)) return next();
    next(adminError('ADMIN_FORBIDDEN', `${req.method} ${req.baseUrl}${req.path} needs the role ${role} or above; ${actor.name} is ${actor.role}. Nothing was changed.`));
  };
  const declared: RoleCheck = Object.assign(check, { neededRole: role });
  return declared;
}

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean>; stack: Array<{ handle: unknown }> };
}

/**
 * Every page and form registered on `router` with the role it states. Throws naming a page that
 * states none: registered without `requires`, it would be open to every role.
 */
export function declaredConsoleRoutes(router: Router): ConsoleRouteDeclaration[] {
  const declared: ConsoleRouteDeclaration[] = [];
  for (const layer of router.stack as RouterLayer[]) {
    const route = layer.route;
    if (route === undefined) continue;
    const check = route.stack[0]?.handle as Partial<RoleCheck> | undefined;
    for (const method of Object.keys(route.methods)) {
      if (method !== 'get' && method !== 'post') continue;
      if (check?.neededRole === undefined) throw new Error(`console page ${method.toUpperCase()} ${route.path} states no role: register it with requires(role) first`);
      declared.push({ method, path: route.path, role: check.neededRole });
    }
  }
  return declared;
}
