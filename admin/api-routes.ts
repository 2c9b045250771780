// The admin API (docs/design.md "Admin API and console", /admin/v1) as one table, as the public
// API's is (gateway/api-routes.ts): each route's method, path, what it does, the JSON Schemas of
// its query, body and answer, the error codes it can answer, and the call into AdminServices.
// The router (api.ts), the validation of every query and body, and the OpenAPI document served
// at /admin/v1/openapi.json (api-document.ts) are all derived from it: an operation gets its
// door here and nowhere else, with the role it needs (docs/design.md "Who did what"): reading is
// for every role, a change for operators, admin credentials for owners.
import type { AdminRole } from '../records/actor.ts';
import type { AsOfAnswer } from '../snapshot/as-of-answer.ts';
import { type JsonSchema, listOf, schemaRef } from './api-schemas.ts';
import { AUDIT_PAGE_MAX } from './trail/audit-admin.ts';
import type { AuditAction } from '../records/trail/audit-entry.ts';
import { sinceInstant } from './trail/audit-since.ts';
import { type AdminErrorCode, buildNotFound } from './errors.ts';
import { requestInstant } from './request-instant.ts';
import type { AdminServices } from './services.ts';
import { diffJson, historyJson } from './snapshot-admin.ts';

export const ADMIN_API_BASE = '/admin/v1';

/** A request as a route's answer gets it: every member valid against the route's schemas. */
export interface AdminRequest {
  /** The path's `{name}` segments, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  /** {} when the route takes none or none was sent. */
  readonly body: Readonly<Record<string, unknown>>;
}

/** An answer that is not the route's declared one: as-of answers what the gateway answered then. */
export class PastAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    /** The evidence behind it, as response headers (Marquee-Snapshot-Id, Marquee-Manifest-Hash, Marquee-Signature, ETag). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/** The snapshot id, manifest hash, signature and ETag behind an as-of answer, as headers: the body stays the API's own. */
function evidenceHeaders(answer: AsOfAnswer): Record<string, string> {
  const headers: Record<string, string> = {};
  if (answer.snapshotId !== null) headers['Marquee-Snapshot-Id'] = answer.snapshotId;
  if (answer.evidence.manifestHash !== null) headers['Marquee-Manifest-Hash'] = answer.evidence.manifestHash;
  if (answer.evidence.signature !== null) headers['Marquee-Signature'] = `keyId=${answer.evidence.signature.keyId}; value=${answer.evidence.signature.value}`;
  if (answer.evidence.etag !== null) headers.ETag = answer.evidence.etag;
  return headers;
}

export interface AdminRoute {
  /** The OpenAPI operationId. */
  readonly name: string;
  readonly method: 'get' | 'post' | 'patch' | 'delete';
  /** Below ADMIN_API_BASE; `{name}` stands for one path segment. */
  readonly path: string;
  readonly tag: 'Organizations' | 'Builds' | 'Keys' | 'Webhooks' | 'Snapshots' | 'Admins' | 'Audit';
  readonly summary: string;
  /** The weakest role that may call it; any other is answered 403 ADMIN_FORBIDDEN before anything is read or changed. */
  readonly role: AdminRole;
  /** Its parameters, all text; the document says which are required. */
  readonly query?: JsonSchema;
  /** A JSON object; absent: whatever is sent is ignored. */
  readonly body?: JsonSchema;
  /** The status of its answer, and the schema of the body (none for 204). */
  readonly status: 200 | 201 | 202 | 204;
  readonly response?: JsonSchema;
  /** The answer's Location, for what it created or queued. */
  readonly location?: (answer: never) => string;
  /** The codes it answers beside those of every route (UNAUTHORIZED, INTERNAL_ERROR, SERVICE_UNAVAILABLE; BAD_REQUEST with a query or body; UNSUPPORTED_MEDIA_TYPE unless GET). */
  readonly errors: readonly AdminErrorCode[];
  readonly answer: (services: AdminServices, request: AdminRequest) => Promise<unknown> | unknown;
  /**
   * Every route but a GET changes state: the action its audit entry records. Its operation records
   * the entry (audit/recorded-operations.ts); the router records it under this action only when the
   * request is refused before the operation runs (its body, its role).
   */
  readonly action?: AuditAction;
}

const text = (description: string): JsonSchema => ({ type: 'string', minLength: 1, description });
const optionalText = (description: string): JsonSchema => ({ type: ['string', 'null'], description });
const texts = (description: string): JsonSchema => ({ type: 'array', items: { type: 'string' }, description });
const body = (properties: Record<string, JsonSchema>, required: readonly string[] = []): JsonSchema => ({ type: 'object', required, properties });
const query = body;

const ORGANIZATION = 'the organization, by id or slug';

export const ADMIN_ROUTES: readonly AdminRoute[] = [
  {
    name: 'listOrganizations',
    method: 'get',
    path: '/organizations',
    role: 'auditor',
    tag: 'Organizations',
    summary: 'Every organization, by slug: its platform state, current snapshot and the latest build of this process',
    status: 200,
    response: listOf('OrganizationOverview'),
    errors: [],
    answer: (services) => services.organizations.list(),
  },
  {
    name: 'startBuild',
    action: 'build.requested',
    method: 'post',
    path: '/builds',
    role: 'operator',
    tag: 'Builds',
    summary: 'Queue a build of the organizations named (absent or empty: every one); answered at once with the queued run',
    body: body({ organizations: texts('ids or slugs') }),
    status: 202,
    response: schemaRef('BuildRun'),
    location: (run: { id: string }) => `${ADMIN_API_BASE}/builds/${run.id}`,
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: (services, { body }) => services.builds.start((body.organizations as string[] | undefined) ?? []),
  },
  {
    name: 'listBuilds',
    method: 'get',
    path: '/builds',
    role: 'auditor',
    tag: 'Builds',
    summary: 'The last 100 runs of every builder and of `marquee build`, newest first, each with its trigger and who asked for it (`requestedBy`)',
    status: 200,
    response: listOf('BuildRun'),
    errors: [],
    answer: (services) => services.builds.list(),
  },
  {
    name: 'getBuild',
    method: 'get',
    path: '/builds/{id}',
    role: 'auditor',
    tag: 'Builds',
    summary: 'One run',
    status: 200,
    response: schemaRef('BuildRun'),
    errors: ['BUILD_NOT_FOUND'],
    answer: async (services, { params }) => {
      const run = await services.builds.get(params.id!);
      if (!run) throw buildNotFound(params.id!);
      return run;
    },
  },
  {
    name: 'listKeys',
    method: 'get',
    path: '/keys',
    role: 'auditor',
    tag: 'Keys',
    summary: 'Keys without their secrets, oldest first, as `keys list --json`',
    query: query({ organization: text(`only this organization: ${ORGANIZATION}`) }),
    status: 200,
    response: listOf('Key'),
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: (services, { query }) => services.keys.list(query.organization),
  },
  {
    name: 'createKey',
    action: 'key.created',
    method: 'post',
    path: '/keys',
    role: 'operator',
    tag: 'Keys',
    summary: 'Create a key, as `keys create --json`: the secret is in this answer only',
    body: body(
      {
        organization: text(ORGANIZATION),
        origins: texts('allowed browser origins; none: server-side use only'),
        label: optionalText('a label'),
        expiresAt: optionalText('an ISO 8601 instant with a zone, in the future; absent or null: never'),
      },
      ['organization'],
    ),
    status: 201,
    response: schemaRef('NewKey'),
    location: (key: { id: string }) => `${ADMIN_API_BASE}/keys/${key.id}`,
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: (services, { body }) =>
      services.keys.create({
        organization: body.organization as string,
        ...(body.origins !== undefined ? { origins: body.origins as string[] } : {}),
        ...(body.label !== undefined ? { label: body.label as string | null } : {}),
        ...(body.expiresAt !== undefined && body.expiresAt !== null ? { expiresAt: requestInstant('expiresAt', body.expiresAt as string) } : {}),
      }),
  },
  {
    name: 'updateKey',
    action: 'key.updated',
    method: 'patch',
    path: '/keys/{id}',
    role: 'operator',
    tag: 'Keys',
    summary: "Replace a key's allowed origins and/or label, from the next request on, as `keys update --json`",
    body: body({ origins: texts('allowed browser origins, replacing the list; []: server-side use only'), label: optionalText("the label; null or '': none") }),
    status: 200,
    response: schemaRef('Key'),
    errors: ['KEY_NOT_FOUND'],
    answer: (services, { params, body }) =>
      services.keys.update(params.id!, {
        ...(body.origins !== undefined ? { origins: body.origins as string[] } : {}),
        ...(body.label !== undefined ? { label: body.label as string | null } : {}),
      }),
  },
  {
    name: 'revokeKey',
    action: 'key.revoked',
    method: 'post',
    path: '/keys/{id}/revoke',
    role: 'operator',
    tag: 'Keys',
    summary: 'Revoke a key from the next request on, as `keys revoke --json`',
    status: 200,
    response: schemaRef('Key'),
    errors: ['KEY_NOT_FOUND'],
    answer: (services, { params }) => services.keys.revoke(params.id!),
  },
  {
    name: 'rollKey',
    action: 'key.rolled',
    method: 'post',
    path: '/keys/{id}/roll',
    role: 'operator',
    tag: 'Keys',
    summary: 'Replace a key by a new one for the same organization, origins and label, as `keys roll --json`; the old one is revoked when the grace period ends',
    body: body({ graceSeconds: { type: 'number', minimum: 0, description: 'how long the old key keeps working; absent: a day, as with the CLI; 0: now' } }),
    status: 201,
    response: schemaRef('NewKey'),
    location: (key: { id: string }) => `${ADMIN_API_BASE}/keys/${key.id}`,
    errors: ['KEY_NOT_FOUND'],
    answer: async (services, { params, body }) =>
      (await services.keys.roll(params.id!, body.graceSeconds === undefined ? {} : { graceSeconds: body.graceSeconds as number })).replacement,
  },
  {
    name: 'listWebhooks',
    method: 'get',
    path: '/organizations/{idOrSlug}/webhooks',
    role: 'auditor',
    tag: 'Webhooks',
    summary: "The organization's webhook endpoints, never their secrets, each with its health (last attempt, what waits, next retry), as `webhooks list --json`",
    status: 200,
    response: listOf('ListedWebhookEndpoint'),
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: (services, { params }) => services.webhooks.list(params.idOrSlug),
  },
  {
    name: 'addWebhook',
    action: 'webhook.created',
    method: 'post',
    path: '/organizations/{idOrSlug}/webhooks',
    role: 'operator',
    tag: 'Webhooks',
    summary: 'Register an endpoint, as `webhooks add --json`: its signing secret is in this answer only',
    body: body({ url: text('where messages are POSTed: an https URL with a public address'), description: optionalText('a description') }, ['url']),
    status: 201,
    response: schemaRef('NewWebhookSecret'),
    location: (endpoint: { id: string }) => `${ADMIN_API_BASE}/webhooks/${endpoint.id}`,
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: (services, { params, body }) =>
      services.webhooks.add(params.idOrSlug!, { url: body.url as string, ...(body.description !== undefined ? { description: body.description as string | null } : {}) }),
  },
  {
    name: 'updateWebhook',
    action: 'webhook.updated',
    method: 'patch',
    path: '/webhooks/{id}',
    role: 'operator',
    tag: 'Webhooks',
    summary: "Change an endpoint's URL or description, or enable or disable it, as `webhooks update --json`; `warnings` when a running builder would refuse a new URL",
    body: body({
      url: { type: 'string', description: 'the new URL' },
      description: optionalText("the description; null or '': none"),
      enabled: { type: 'boolean', description: 'false: deliveries wait; true: what waited is sent' },
    }),
    status: 200,
    response: schemaRef('WebhookEndpoint'),
    errors: ['WEBHOOK_NOT_FOUND'],
    answer: (services, { params, body }) =>
      services.webhooks.update(params.id!, {
        ...(body.url !== undefined ? { url: body.url as string } : {}),
        ...(body.description !== undefined ? { description: body.description as string | null } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled as boolean } : {}),
      }),
  },
  {
    name: 'removeWebhook',
    action: 'webhook.deleted',
    method: 'delete',
    path: '/webhooks/{id}',
    role: 'operator',
    tag: 'Webhooks',
    summary: 'Delete an endpoint, its pending deliveries and its attempts',
    status: 204,
    errors: ['WEBHOOK_NOT_FOUND'],
    answer: (services, { params }) => services.webhooks.remove(params.id!),
  },
  {
    name: 'rotateWebhookSecret',
    action: 'webhook.rotated',
    method: 'post',
    path: '/webhooks/{id}/rotate-secret',
    role: 'operator',
    tag: 'Webhooks',
    summary: 'A new signing secret, in this answer only; the old one keeps signing beside it for 24 h',
    status: 200,
    response: schemaRef('NewWebhookSecret'),
    errors: ['WEBHOOK_NOT_FOUND'],
    answer: (services, { params }) => services.webhooks.rotate(params.id!),
  },
  {
    name: 'testWebhook',
    action: 'webhook.tested',
    method: 'post',
    path: '/webhooks/{id}/test',
    role: 'operator',
    tag: 'Webhooks',
    summary: 'Queue a webhook.test message for the endpoint',
    status: 202,
    response: schemaRef('QueuedMessage'),
    errors: ['WEBHOOK_NOT_FOUND'],
    answer: (services, { params }) => services.webhooks.test(params.id!),
  },
  {
    name: 'listWebhookAttempts',
    method: 'get',
    path: '/webhooks/{id}/attempts',
    role: 'auditor',
    tag: 'Webhooks',
    summary: "The endpoint's last 100 delivery attempts, newest first",
    status: 200,
    response: listOf('WebhookAttempt'),
    errors: ['WEBHOOK_NOT_FOUND'],
    answer: (services, { params }) => services.webhooks.attempts(params.id!),
  },
  {
    name: 'redeliverWebhookMessage',
    action: 'webhook.redelivered',
    method: 'post',
    path: '/webhooks/{id}/messages/{messageId}/redeliver',
    role: 'operator',
    tag: 'Webhooks',
    summary: 'Send a message to the endpoint again, under the same webhook-id',
    status: 202,
    response: schemaRef('QueuedMessage'),
    errors: ['WEBHOOK_NOT_FOUND', 'MESSAGE_NOT_FOUND'],
    answer: async (services, { params }) => {
      await services.webhooks.redeliver(params.id!, params.messageId!);
      return { messageId: params.messageId };
    },
  },
  {
    name: 'listSnapshots',
    method: 'get',
    path: '/organizations/{idOrSlug}/snapshots',
    role: 'auditor',
    tag: 'Snapshots',
    summary: "The organization's snapshots and state changes, newest first, as `history --json`",
    status: 200,
    response: listOf('HistoryEntry'),
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: async (services, { params }) => historyJson(await services.snapshots.history(params.idOrSlug!)),
  },
  {
    name: 'diffSnapshots',
    method: 'get',
    path: '/organizations/{idOrSlug}/diff',
    role: 'auditor',
    tag: 'Snapshots',
    summary: 'What changed between two snapshots, as `diff --json`',
    query: query({ from: text('a snapshot id, or current'), to: text('a snapshot id, or current') }, ['from', 'to']),
    status: 200,
    response: schemaRef('SnapshotDiff'),
    errors: ['ORGANIZATION_NOT_FOUND', 'SNAPSHOT_NOT_FOUND'],
    answer: async (services, { params, query }) => diffJson(await services.snapshots.diff(params.idOrSlug!, query.from!, query.to!)),
  },
  {
    name: 'answerAsOf',
    method: 'get',
    path: '/organizations/{idOrSlug}/as-of',
    role: 'auditor',
    tag: 'Snapshots',
    summary:
      'What the integration API answered for a path at an instant, as `show`: that status, and that body (the resource, or its problem+json); its evidence in the headers Marquee-Snapshot-Id, Marquee-Manifest-Hash, Marquee-Signature and ETag. 409 HISTORY_BROKEN when the snapshot it would answer from does not verify',
    query: query({ at: text('an ISO 8601 instant with a zone'), path: text('below /api/integration/v1, e.g. /events?timing=past') }, ['at', 'path']),
    status: 200,
    response: { description: 'The resource as the gateway served it then.' },
    errors: ['ORGANIZATION_NOT_FOUND', 'HISTORY_BROKEN'],
    answer: async (services, { params, query }) => {
      const answer = await services.snapshots.asOf(params.idOrSlug!, requestInstant('at', query.at!), query.path!);
      return new PastAnswer(answer.status, answer.body, evidenceHeaders(answer));
    },
  },
  {
    name: 'listAdmins',
    method: 'get',
    path: '/admins',
    role: 'owner',
    tag: 'Admins',
    summary: 'Every named admin credential, revoked ones too, never a secret, as `admins list --json`',
    status: 200,
    response: listOf('AdminCredential'),
    errors: [],
    answer: (services) => services.admins.list(),
  },
  {
    name: 'createAdmin',
    action: 'admin.created',
    method: 'post',
    path: '/admins',
    role: 'owner',
    tag: 'Admins',
    summary: 'Create a named admin credential with a role, as `admins create --json`: the secret is in this answer only',
    body: body(
      {
        name: text('unique, never reused: lower-case letters, digits, `.`, `_`, `@`, `-`; not `root`'),
        role: { enum: ['auditor', 'operator', 'owner'], description: 'auditor reads everything; operator also changes keys, webhooks and builds; owner also admin credentials' },
        expiresAt: optionalText('an ISO 8601 instant with a zone, in the future; absent or null: never'),
      },
      ['name', 'role'],
    ),
    status: 201,
    response: schemaRef('NewAdminCredential'),
    location: (credential: { name: string }) => `${ADMIN_API_BASE}/admins/${encodeURIComponent(credential.name)}`,
    errors: ['ADMIN_NAME_TAKEN'],
    answer: (services, { body }) =>
      services.admins.create({
        name: body.name as string,
        role: body.role as string,
        ...(body.expiresAt !== undefined && body.expiresAt !== null ? { expiresAt: requestInstant('expiresAt', body.expiresAt as string) } : {}),
      }),
  },
  {
    name: 'revokeAdmin',
    action: 'admin.revoked',
    method: 'post',
    path: '/admins/{name}/revoke',
    role: 'owner',
    tag: 'Admins',
    summary: 'Revoke a named admin credential: refused from the next request on, as `admins revoke --json`',
    status: 200,
    response: schemaRef('AdminCredential'),
    errors: ['ADMIN_NOT_FOUND'],
    answer: (services, { params }) => services.admins.revoke(params.name!),
  },
  {
    name: 'listAuditLog',
    method: 'get',
    path: '/audit-log',
    role: 'auditor',
    tag: 'Audit',
    summary: 'The audit trail, newest first, a page at a time, as `audit-log --json`: each state-changing action through any door, refused and failed ones too',
    query: query({
      organization: text(`only entries of this organization: ${ORGANIZATION}`),
      actor: text('only this actor, e.g. root or cli:ops@host'),
      action: text('only this action, e.g. key.revoked'),
      since: text('only entries at or after this instant (ISO 8601 with a zone) or within this duration back (30m, 24h, 7d)'),
      before: { type: 'string', pattern: '^[0-9]+$', description: 'the `next` of the previous page: entries before this sequence number' },
      limit: { type: 'string', pattern: '^[0-9]+$', description: `at most this many entries (default 100, at most ${AUDIT_PAGE_MAX})` },
    }),
    status: 200,
    response: schemaRef('AuditPage'),
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: (services, { query }) =>
      services.audit.list({
        ...(query.organization !== undefined ? { organization: query.organization } : {}),
        ...(query.actor !== undefined ? { actor: query.actor } : {}),
        ...(query.action !== undefined ? { action: query.action } : {}),
        ...(query.since !== undefined ? { since: sinceInstant('since', query.since, new Date()) } : {}),
        ...(query.before !== undefined ? { before: Number(query.before) } : {}),
        ...(query.limit !== undefined ? { limit: Math.max(1, Number(query.limit)) } : {}),
      }),
  },
];
