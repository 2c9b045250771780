// Every console page and form is a declaration that states its role, as each admin API route does
// (docs/design.md "Roles"): a page is its method, path, role and answer (`page(…)`); a form
// that changes something is the console's door to an API route (console-forms.ts), whose role and
// audit action it takes. The console registers these and nothing else: a weaker role is refused
// (403 ADMIN_FORBIDDEN, shown as a page) before the answer runs, so nothing is read or changed, a
// form that is not the console's own is refused before that (form-guard.ts), and the templates
// offer an action only when the signed-in role may open its page or post its form (`allows`).
import type { Request, Response, Router } from 'express';
import { ADMIN_ROLES, type AdminRole, roleAllows } from '../../records/actor.ts';
import type { AuditAction } from '../../records/trail/audit-entry.ts';
import { adminError } from '../errors.ts';
import { requireRole } from '../request-actor.ts';
import type { FormGuard } from './form-guard.ts';
import { noteForm } from './form-refusals.ts';

type ParamNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}` ? Name | ParamNames<`/${Rest}`> : Path extends `${string}:${infer Name}` ? Name : never;

/** `/keys/:keyId/roll` → `{ keyId: string }`, as Express decodes them. */
type PageParams<Path extends string> = { [Name in ParamNames<Path>]: string };

export type PageRequest<Path extends string> = Request<PageParams<Path>>;

export interface ConsoleRoute {
  readonly method: 'get' | 'post';
  /** As Express writes it: `/keys/:keyId/revoke`. */
  readonly path: string;
  /** The weakest role that may open the page or post the form. */
  readonly role: AdminRole;
  /** A form: the admin API route (its name) whose work it does, whose role it takes and whose body schema checks it. */
  readonly apiRoute?: string;
  /** A form: the action its audit entry records if the console refuses it before any operation runs. */
  readonly action?: (req: Request) => AuditAction;
  readonly answer: (req: Request, res: Response) => Promise<void> | void;
}

/** A page: what `role` and above may open at `path`. */
export function page<const Path extends string>(path: Path, role: AdminRole, answer: (req: PageRequest<Path>, res: Response) => Promise<void> | void): ConsoleRoute {
  return { method: 'get', path, role, answer: (req, res) => answer(matched(path, req), res) };
}

/** The request with the parameters of `path`: Express matched it, so each `:name` has its segment. */
export function matched<Path extends string>(path: Path, req: Request): PageRequest<Path> {
  if (!namesEvery(path, req)) throw new Error(`${req.method} ${path} was answered without its path parameters`);
  return req;
}

function namesEvery<Path extends string>(path: Path, req: Request): req is PageRequest<Path> {
  return [...path.matchAll(/:(\w+)/g)].every(([, name]) => typeof req.params[name ?? ''] === 'string');
}

/**
 * The console's routes: registered on a router, each behind its role check (a form behind the
 * guard first), and asked what a role may use. Made empty, before the pages that read it, and
 * filled by `register` (pages.ts renders only once a request came).
 */
export interface ConsoleRouteTable {
  /** Throws naming a declaration without a role: registered without one, it would be open to every role. */
  register(router: Router, routes: readonly ConsoleRoute[], guard: FormGuard): void;
  /** True when `role` may use every one of `routes`, each named `METHOD /path` as declared ('POST /keys/:keyId/revoke'). */
  allows(role: AdminRole, routes: readonly string[]): boolean;
}

const declaredOn = new WeakMap<Router, readonly ConsoleRoute[]>();

export function consoleRouteTable(): ConsoleRouteTable {
  const roles = new Map<string, AdminRole>();
  return {
    register(router, routes, guard) {
      for (const route of routes) {
        const name = `${route.method.toUpperCase()} ${route.path}`;
        if (!ADMIN_ROLE_SET.has(route.role)) throw new Error(`console page ${name} states no role`);
        if (roles.has(name)) throw new Error(`console page ${name} is declared twice`);
        roles.set(name, route.role);
        const needs = function roleCheck(req: Request, res: Response, next: () => void) {
          requireRole(res, route.role, `${req.method} ${req.baseUrl}${req.path}`);
          next();
        };
        if (route.method === 'get') router.get(route.path, needs, route.answer);
        else router.post(route.path, noting(route), ownFormsOnly(guard), needs, route.answer);
      }
      declaredOn.set(router, [...(declaredOn.get(router) ?? []), ...routes]);
    },
    allows(role, names) {
      return names.every((name) => {
        const needed = roles.get(name);
        if (needed === undefined) throw new Error(`a template asks about ${name}, which the console does not declare`);
        return roleAllows(role, needed);
      });
    },
  };
}

const ADMIN_ROLE_SET: ReadonlySet<unknown> = new Set(ADMIN_ROLES);

/** Every page and form registered on `router` (ConsoleRouteTable.register), with the role it states. */
export function declaredConsoleRoutes(router: Router): Array<Pick<ConsoleRoute, 'method' | 'path' | 'role' | 'apiRoute'>> {
  const routes = declaredOn.get(router);
  if (routes === undefined) throw new Error('no console page is registered on this router');
  return routes.map(({ method, path, role, apiRoute }) => ({ method, path, role, ...(apiRoute === undefined ? {} : { apiRoute }) }));
}

/** Refuses a form POST that is not the console's own (another site's, a token missing or stale): 403, nothing changed. */
export function ownFormsOnly(guard: FormGuard) {
  return function ownFormsOnly(req: Request, _res: Response, next: () => void) {
    const refusal = guard.refusal(req);
    if (refusal !== undefined) throw adminError('FORM_REFUSED', `Nothing was changed: ${refusal}.`);
    next();
  };
}

/** Before anything can refuse a form: what it would have done, for the trail (form-refusals.ts). */
function noting(route: ConsoleRoute) {
  return function noteWhatFormDoes(req: Request, res: Response, next: () => void) {
    const [target] = Object.values(req.params);
    if (route.action !== undefined) noteForm(res, { action: route.action(req), targetId: typeof target === 'string' ? target : null });
    next();
  };
}
