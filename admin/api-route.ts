// One route of the admin API as its table declares it (api-routes.ts), typed from its own schemas:
// `route({ path: '/keys/{id}', body: {…}, answer: (services, { params, body }) => … })` gives the
// answer `params.id` as text and a body of the type the body schema stands for (schema-type.ts),
// and checks what it returns against the response schema, all when it compiles. When it runs, the
// query and body are checked against the same schemas with ajv (request-validation.ts) before
// the answer is called: what the schema proved, the answer does not cast. Path parameters are
// checked against the route's `params` schema first: a client's segment is never looked up, nor
// made a store key, before it has its form.
import type { AuditAction } from '../records/trail/audit-entry.ts';
import type { AdminRole, Attribution } from '../records/actor.ts';
import type { AdminSchemaType, JsonSchema } from './api-schemas.ts';
import type { AdminErrorCode } from './errors.ts';
import { bodyReader, paramsReader, queryReader } from './request-validation.ts';
import type { AdminServices } from './services.ts';

type Method = 'get' | 'post' | 'patch' | 'delete';
type Tag = 'Organizations' | 'Builds' | 'Keys' | 'Webhooks' | 'Snapshots' | 'Verifications' | 'Admins' | 'Audit';

/** An answer that is not the route's declared one: as-of answers what the gateway answered then. */
export class PastAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    /** The evidence behind it, as response headers (Marquee-Snapshot-Id, Marquee-Manifest-Hash, Marquee-Signature, ETag). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/** A request as it arrives: path parameters as Express decoded them, the parsed query, the parsed body. */
export interface ArrivingRequest {
  readonly params: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly query: unknown;
  readonly body: unknown;
}

/** What a route answered: the body (or a PastAnswer) and, for what it created or queued, where that is. */
export interface RouteAnswer {
  readonly body: unknown;
  readonly location?: string;
}

/** A route as the router (api.ts) and the OpenAPI document (api-document.ts) read it. */
export interface AdminRoute {
  /** The OpenAPI operationId. */
  readonly name: string;
  readonly method: Method;
  /** Below ADMIN_API_BASE; `{name}` stands for one path segment. */
  readonly path: string;
  readonly tag: Tag;
  readonly summary: string;
  /** The weakest role that may call it; any other is answered 403 ADMIN_FORBIDDEN before anything is read or changed. */
  readonly role: AdminRole;
  /** Its path parameters' forms (every `{name}` of the path has one; a route without any has none). */
  readonly params?: JsonSchema;
  /** Its parameters, all text; the document says which are required. */
  readonly query?: JsonSchema;
  /** A JSON object; absent: whatever is sent is ignored. */
  readonly body?: JsonSchema;
  /** The status of its answer, and the schema of the body (none for 204). */
  readonly status: 200 | 201 | 202 | 204;
  readonly response?: JsonSchema;
  /** The answer's Location, for what it created or queued. */
  readonly location?: (answer: never) => string;
  /** The codes it answers beside those of every route (UNAUTHORIZED, RATE_LIMITED, INTERNAL_ERROR, SERVICE_UNAVAILABLE; BAD_REQUEST with path parameters, a query or a body; UNSUPPORTED_MEDIA_TYPE unless GET). */
  readonly errors: readonly AdminErrorCode[];
  /**
   * Every route but a GET changes state: the action its audit entry records. Its operation records
   * the entry (audit/recorded-operations.ts); the router records it under this action only when the
   * request is refused before the operation runs (its body, its role).
   */
  readonly action?: AuditAction;
  /** Checks the path parameters, the query, then the body, against the route's schemas (a 400 naming what does not fit), then answers. */
  readonly handle: (services: AdminServices, request: ArrivingRequest, actor: Attribution) => Promise<RouteAnswer>;
  /**
   * Compiles the checks of its schemas, once; else the first request does. The router calls it as
   * it is made, so a broken schema stops start-up, and a process that serves no admin API (serve)
   * compiles nothing.
   */
  readonly compile: () => void;
}

type ParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;

/** `/keys/{id}/roll` → `{ id: string }`. */
type RouteParams<Path extends string> = { readonly [Name in ParamNames<Path>]: string };

/** What a value that passed `schema` is; an object with no member when the route declares none (whatever was sent is ignored). */
type Valid<Schema> = [Schema] extends [undefined] ? Record<never, never> : AdminSchemaType<Schema>;

/** What a route's answer returns: what its response schema describes; anything for a route that answers no body. */
type Answered<Response> = [Response] extends [undefined] ? unknown : AdminSchemaType<Response>;

/** A route's answer gets every member valid against the route's schemas. */
export interface ValidRequest<Path extends string, Query, Body> {
  /** The path's `{name}` segments, percent-decoded. */
  readonly params: RouteParams<Path>;
  readonly query: Valid<Query>;
  /** {} when the route takes none or none was sent. */
  readonly body: Valid<Body>;
}

/** A route as its table declares it: AdminRoute's members, with the answer typed from its schemas. */
export interface RouteDeclaration<
  Name extends string,
  Path extends string,
  Query extends JsonSchema | undefined,
  Body extends JsonSchema | undefined,
  Response extends JsonSchema | undefined,
> extends Omit<AdminRoute, 'handle' | 'compile' | 'location'> {
  readonly name: Name;
  readonly path: Path;
  readonly query?: Query;
  readonly body?: Body;
  readonly response?: Response;
  readonly location?: (answer: Answered<Response>) => string;
  readonly answer: (services: AdminServices, request: ValidRequest<Path, Query, Body>, actor: Attribution) => Promise<Answered<Response>> | Answered<Response>;
}

/** A declared route, keeping its name and the type of its body for the console's forms (console/console-forms.ts). */
export interface TypedAdminRoute<Name extends string, Body> extends AdminRoute {
  readonly name: Name;
  /** The body checked against the route's schema, as the route's answer gets it: {} when the route takes none. */
  readonly readBody: (body: unknown) => Valid<Body>;
}

/** A route of the table. Its schemas are written inline (or with the table's helpers), so that their literal types reach its answer. */
export function route<
  const Name extends string,
  const Path extends string,
  const Query extends JsonSchema | undefined = undefined,
  const Body extends JsonSchema | undefined = undefined,
  const Response extends JsonSchema | undefined = undefined,
>(declaration: RouteDeclaration<Name, Path, Query, Body, Response>): TypedAdminRoute<Name, Body> {
  const { answer, location, ...declared } = declaration;
  let checks: { params: (params: unknown) => void; query: (query: unknown) => Valid<Query>; body: (body: unknown) => Valid<Body> } | undefined;
  const compile = () => {
    if (checks === undefined) formsEvery(declaration);
    checks ??= {
      params: declaration.params === undefined ? () => undefined : paramsReader(declaration.params),
      query: reader<Query>(declaration.query, queryReader),
      body: reader<Body>(declaration.body, bodyReader),
    };
    return checks;
  };
  return {
    ...declared,
    ...(location ? { location } : {}),
    compile,
    readBody: (body) => compile().body(body),
    handle: async (services, request, actor) => {
      const params = request.params;
      if (!namesEvery(declaration.path, params)) throw new Error(`${declaration.method.toUpperCase()} ${declaration.path} was answered without its path parameters`);
      const { params: checkParams, query, body: readBody } = compile();
      checkParams(params);
      const valid: ValidRequest<Path, Query, Body> = { params, query: query(request.query), body: readBody(request.body) };
      const body = await answer(services, valid, actor);
      return location === undefined ? { body } : { body, location: location(body) };
    },
  };
}

/** The schema's check, or, for a route that declares none, {} whatever was sent. */
function reader<Declared>(schema: JsonSchema | undefined, compile: (schema: JsonSchema) => (value: unknown) => Valid<Declared>): (value: unknown) => Valid<Declared> {
  if (schema !== undefined) return compile(schema);
  // No schema declared: Declared is undefined, so Valid<Declared> is the object with no member.
  const nothing: Record<never, never> = {};
  return () => nothing as Valid<Declared>;
}

/** A route whose path has a `{name}` without its form in `params` stops start-up: every segment a client sends is checked. */
function formsEvery(declaration: { method: string; path: string; params?: JsonSchema }): void {
  const forms = (declaration.params?.properties ?? {}) as Record<string, unknown>;
  for (const [, name] of declaration.path.matchAll(/\{(\w+)\}/g)) {
    if (forms[name ?? ''] === undefined) throw new Error(`${declaration.method.toUpperCase()} ${declaration.path} declares no form for its path parameter ${name}`);
  }
}

/** True when `params` has a segment for every `{name}` of `path`: Express matched the route, so it always does. */
function namesEvery<Path extends string>(path: Path, params: ArrivingRequest['params']): params is RouteParams<Path> {
  return [...path.matchAll(/\{(\w+)\}/g)].every(([, name]) => typeof params[name ?? ''] === 'string');
}
