// One admin operation as it is declared, once (docs/design.md "Admin API and console"): its name,
// the weakest role that may call it, its method and path, the JSON Schemas of its input and
// output, what its audit entry is called, its summary, and `run(services, input, actor)`. The
// admin API's route and OpenAPI operation are derived from it (api-routes.ts, api-document.ts),
// and the admin API calls it through the one pipeline `call`: role → validate (ajv, compiled
// once) → run, as the actor, so what `run` calls records its entry under them. The role comes
// first, as the admin API always checked it: a role that may not call an operation learns nothing
// of its input. The console and the CLI still call AdminServices themselves (issue 51, item 3).
import type { Attribution } from '../../records/actor.ts';
import type { AuditAction } from '../../records/trail/audit-entry.ts';
import { actingAs } from '../acting.ts';
import { type AdminRoute, type ArrivingRequest, type RouteAnswer, type RouteDeclaration, route, type TypedAdminRoute, type ValidRequest } from '../api-route.ts';
import type { JsonSchema } from '../api-schemas.ts';
import { requireActorRole } from '../request-actor.ts';
import type { AdminServices } from '../services.ts';

/** What an operation's audit entry is called; the entry itself is recorded by the state-changing calls `run` makes (trail/recorded-operations.ts). */
interface OperationAudit {
  readonly action: AuditAction;
}

/** An operation as its file declares it: a route's members, `run` in place of the route's answer, and `audit` for one that changes state. */
interface OperationDeclaration<
  Name extends string,
  Path extends string,
  Query extends JsonSchema | undefined,
  Body extends JsonSchema | undefined,
  Response extends JsonSchema | undefined,
> extends Omit<RouteDeclaration<Name, Path, Query, Body, Response>, 'answer' | 'action'> {
  readonly audit?: OperationAudit;
  readonly run: (services: AdminServices, input: ValidRequest<Path, Query, Body>, actor: Attribution) => ReturnType<RouteDeclaration<Name, Path, Query, Body, Response>['answer']>;
}

/** A declared operation: the route derived from it, which `call` runs. */
export function operation<
  const Name extends string,
  const Path extends string,
  const Query extends JsonSchema | undefined = undefined,
  const Body extends JsonSchema | undefined = undefined,
  const Response extends JsonSchema | undefined = undefined,
>(declaration: OperationDeclaration<Name, Path, Query, Body, Response>): TypedAdminRoute<Name, Body> {
  const { run, audit, ...declared } = declaration;
  return route<Name, Path, Query, Body, Response>({
    ...declared,
    ...(audit === undefined ? {} : { action: audit.action }),
    answer: (services, input, actor) => run(services, input, actor),
  });
}

/**
 * The one pipeline meant for every door: the actor's role (403 ADMIN_FORBIDDEN before anything is read or
 * changed), the input checked against the operation's schemas (a 400 naming what does not fit),
 * then `run`, as `actor`.
 */
export async function call(operation: AdminRoute, services: AdminServices, input: ArrivingRequest, actor: Attribution): Promise<RouteAnswer> {
  requireActorRole(actor.actor, operation.role, `${operation.method.toUpperCase()} ${operation.path}`);
  return actingAs(actor, () => operation.handle(services, input, actor));
}
