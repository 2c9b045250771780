// The OpenAPI 3.1 description of the admin API, made from its route table (api-routes.ts) and the
// schemas of its answers (api-schemas.ts) and served at GET /admin/v1/openapi.json: what a script
// may send each route, what it gets back, and the errorCodes it can branch on. Nothing is written
// here twice: a route added to the table is in the document.
import { ADMIN_ROLES, type AdminRole, roleAllows } from '../records/actor.ts';
import type { AdminRoute } from './api-route.ts';
import { ADMIN_API_BASE, ADMIN_ROUTES } from './api-routes.ts';
import { ADMIN_SCHEMAS, type JsonSchema, schemaRef } from './api-schemas.ts';
import { ADMIN_ERRORS } from './errors.ts';
import type { AdminErrorCode } from './errors.ts';

const DESCRIPTION = `The control plane of a builder (and of \`start\`), on its admin port: organizations, build
runs, API keys, webhook endpoints, snapshot history and diffs, and named admin credentials. Every
answer is the shape the CLI's \`--json\` prints for the same operation.

**Authentication.** Every path needs \`ADMIN_TOKEN\` (the break-glass owner \`root\`) or a named admin
credential (\`mqa_…\`, made with \`marquee admins create\`), as \`Authorization: Bearer <secret>\` or
as the password of HTTP Basic auth with any user name. An expired or revoked credential is 401 from
the next request on. An address that offered more than 60 wrong credentials within a minute gets
429 \`RATE_LIMITED\` with \`Retry-After\` for further wrong ones (a valid credential is always let in).

**Roles.** Each operation states the weakest role that may call it (\`x-marquee-role\`, and its
description): \`auditor\` reads every path, \`operator\` also changes keys, webhooks and builds,
\`owner\` also manages admin credentials. Any other role is answered 403 \`ADMIN_FORBIDDEN\`, and
nothing is changed.

**Requests.** State-changing requests must be sent as \`Content-Type: application/json\` (else 415),
with a JSON object of at most 64 KB; members a route does not name are ignored. A path parameter,
query or body that does not fit the route's schema is 400 \`BAD_REQUEST\`, its detail naming the
field; a well-formed id that names nothing is the route's 404.
Organizations are named by id or slug.

**Errors** are \`application/problem+json\` (RFC 7807) with an \`errorCode\`. A 503
\`SERVICE_UNAVAILABLE\` (the platform database or the snapshot store cannot be reached) is temporary:
retry after \`Retry-After\` seconds.`;

const PROBLEM_JSON = 'application/problem+json';

/** The document's own route, as the table's state theirs: every role may read it. */
const DOCUMENT_ROLE: AdminRole = 'auditor';

/** The codes every route can answer. */
const EVERY_ROUTE: readonly AdminErrorCode[] = ['UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];

/** The error codes a route can answer, by status. */
function errorsOf(route: Pick<AdminRoute, 'method' | 'errors' | 'query' | 'body' | 'role'> & Partial<Pick<AdminRoute, 'params'>>): Map<number, AdminErrorCode[]> {
  const codes = new Set<AdminErrorCode>([...route.errors, ...EVERY_ROUTE]);
  // Only a route that some role may not call can be refused for it.
  if (ADMIN_ROLES.some((role) => !roleAllows(role, route.role))) codes.add('ADMIN_FORBIDDEN');
  // An operator's mistake a shared module reports (a bad origin, a description too long) is a 400 too.
  if (route.params !== undefined || route.query !== undefined || route.body !== undefined || route.method !== 'get') codes.add('BAD_REQUEST');
  if (route.method !== 'get') codes.add('UNSUPPORTED_MEDIA_TYPE');
  const byStatus = new Map<number, AdminErrorCode[]>();
  for (const code of codes) byStatus.set(ADMIN_ERRORS[code].status, [...(byStatus.get(ADMIN_ERRORS[code].status) ?? []), code]);
  return byStatus;
}

function problemResponse(codes: readonly AdminErrorCode[]): JsonSchema {
  return {
    description: codes.map((code) => `\`${code}\``).join(', '),
    content: {
      [PROBLEM_JSON]: {
        schema: { allOf: [schemaRef('Problem'), { type: 'object', properties: { errorCode: { enum: [...codes].sort() } } }] },
      },
    },
  };
}

function operation(route: AdminRoute): JsonSchema {
  const parameters = [
    ...[...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => {
      const form = ((route.params?.properties ?? {}) as Record<string, JsonSchema>)[name ?? ''] ?? { type: 'string' };
      return { name, in: 'path', required: true, ...(typeof form.description === 'string' ? { description: form.description } : {}), schema: form };
    }),
    ...Object.entries((route.query?.properties ?? {}) as Record<string, JsonSchema>).map(([name, schema]) => ({
      name,
      in: 'query',
      required: ((route.query?.required ?? []) as string[]).includes(name),
      description: schema.description,
      // Every parameter is text; one of a few values (`by`) is described as those values.
      schema: Array.isArray(schema.enum)
        ? { type: 'string', enum: schema.enum }
        : typeof schema.pattern === 'string'
          ? { type: 'string', pattern: schema.pattern }
          : { type: 'string', minLength: 1 },
    })),
  ];
  const success: JsonSchema = {
    description: route.summary,
    ...(route.location ? { headers: { Location: { description: 'Where the created or queued resource is.', schema: { type: 'string' } } } } : {}),
    ...(route.response ? { content: { 'application/json': { schema: route.response } } } : {}),
  };
  const responses: Record<string, JsonSchema> = { [route.status]: success };
  for (const [status, codes] of [...errorsOf(route)].sort(([a], [b]) => a - b)) responses[status] = problemResponse(codes);
  return {
    operationId: route.name,
    tags: [route.tag],
    summary: route.summary,
    description: `Needs the role \`${route.role}\` or above.`,
    'x-marquee-role': route.role,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: false, content: { 'application/json': { schema: route.body } } } } : {}),
    responses,
  };
}

/** The document, for the routes of the table. */
export function adminApiDocument(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {
    '/openapi.json': {
      get: {
        operationId: 'getAdminApiDocument',
        tags: ['Document'],
        summary: 'This document',
        description: `Needs the role \`${DOCUMENT_ROLE}\` or above.`,
        'x-marquee-role': DOCUMENT_ROLE,
        responses: {
          200: { description: 'The OpenAPI 3.1 description of the admin API.', content: { 'application/json': { schema: { type: 'object' } } } },
          ...Object.fromEntries([...errorsOf({ method: 'get', errors: [], role: DOCUMENT_ROLE })].map(([status, codes]) => [status, problemResponse(codes)])),
        },
      },
    },
  };
  for (const route of ADMIN_ROUTES) (paths[route.path] ??= {})[route.method] = operation(route);
  return {
    openapi: '3.1.0',
    info: { title: 'Marquee admin API', version: '1', description: DESCRIPTION },
    servers: [{ url: ADMIN_API_BASE, description: 'The admin port of this builder; every path below begins here.' }],
    security: [{ AdminToken: [] }, { AdminTokenAsPassword: [] }],
    tags: [
      { name: 'Organizations', description: 'Every organization with its state, current snapshot and latest build.' },
      { name: 'Builds', description: 'Requested builds, and the runs this process keeps.' },
      {
        name: 'Keys',
        description: 'API keys: create, change, roll, revoke, and what each was used for (requests by hour or day, outcome, route, refused origin). A secret is shown once.',
      },
      { name: 'Webhooks', description: "Organization sites' webhook endpoints, their attempts, test messages and redelivery." },
      { name: 'Snapshots', description: 'History, diffs and what the API answered at an instant.' },
      {
        name: 'Verifications',
        description:
          "Histories verified as `marquee verify` does: one organization's at once, every organization's as a job of this process (one at a time; the newest 20 kept in memory, forgotten on restart).",
      },
      { name: 'Admins', description: 'Named admin credentials and their roles, for owners. A secret is shown once.' },
      { name: 'Audit', description: 'The audit trail: who did what, through which door, and with what outcome.' },
      { name: 'Document', description: 'This description.' },
    ],
    paths,
    components: {
      schemas: ADMIN_SCHEMAS,
      securitySchemes: {
        AdminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN, or a named admin credential (mqa_…), as a bearer token.' },
        AdminTokenAsPassword: {
          type: 'http',
          scheme: 'basic',
          description: 'ADMIN_TOKEN, or a named admin credential (mqa_…), as the password, with any user name (how a browser sends it).',
        },
      },
    },
  };
}
