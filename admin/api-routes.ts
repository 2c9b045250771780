// The admin API (docs/design.md "Admin API and console", /admin/v1) as one table, as the public
// API's is (gateway/api-routes.ts): each route's method, path, what it does, the JSON Schemas of
// its query, body and answer, the error codes it can answer, and the call into AdminServices.
// The router (api.ts), the validation of every query and body, the types each answer is given and
// must return (route(), api-route.ts), the console's forms (console/console-forms.ts) and the
// OpenAPI document served at /admin/v1/openapi.json (api-document.ts) are all derived from it: an
// operation gets its door here and nowhere else, with the role it needs (docs/design.md "Who did
// what"): reading is for every role, and so is starting a verification (an auditor's check, which
// changes nothing); a change for operators, admin credentials for owners.
import { ADMIN_ROLES } from '../records/actor.ts';
import type { AsOfAnswer } from '../snapshot/as-of-answer.ts';
import { type AdminRoute, PastAnswer, route } from './api-route.ts';
import { type JsonSchema, listOf, schemaRef } from './api-schemas.ts';
import { SNAPSHOT_ID_FORM } from '../snapshot/layout.ts';
import { AUDIT_PAGE_MAX } from './trail/audit-admin.ts';
import { auditWindow } from './trail/audit-since.ts';
import { buildNotFound } from './errors.ts';
import { ORGANIZATION_PAGE_MAX } from './organization-admin.ts';
import { requestInstant } from './request-instant.ts';
import { diffJson, historyJson } from './snapshot-admin.ts';
import type { UsageGranularity, UsageRangeRequest } from './usage-admin.ts';

export const ADMIN_API_BASE = '/admin/v1';

/** Where the inclusion proof of an organization's snapshot is: the route `getSnapshotInclusion` below (the console's as-of page links it too). */
export const inclusionPath = (idOrSlug: string, snapshotId: string) =>
  `${ADMIN_API_BASE}/organizations/${encodeURIComponent(idOrSlug)}/snapshots/${encodeURIComponent(snapshotId)}/inclusion`;

/**
 * The snapshot id, manifest hash, signature and ETag behind an as-of answer, as headers: the body
 * stays the API's own. The manifest's inclusion proof is too large for a header: a Link names the
 * route that answers it.
 */
function evidenceHeaders(idOrSlug: string, answer: AsOfAnswer): Record<string, string> {
  const headers: Record<string, string> = {};
  if (answer.snapshotId !== null) {
    headers['Marquee-Snapshot-Id'] = answer.snapshotId;
    headers.Link = `<${inclusionPath(idOrSlug, answer.snapshotId)}>; rel="related"; title="inclusion proof"`;
  }
  if (answer.evidence.manifestHash !== null) headers['Marquee-Manifest-Hash'] = answer.evidence.manifestHash;
  if (answer.evidence.signature !== null) headers['Marquee-Signature'] = `keyId=${answer.evidence.signature.keyId}; value=${answer.evidence.signature.value}`;
  if (answer.evidence.etag !== null) headers.ETag = answer.evidence.etag;
  return headers;
}

// The schemas' helpers keep each literal type (`as const`), which the answers' types are made from.
const text = (description: string) => ({ type: 'string', minLength: 1, description }) as const;
const optionalText = (description: string) => ({ type: ['string', 'null'], description }) as const;
const texts = (description: string) => ({ type: 'array', items: { type: 'string' }, description }) as const;
const body = <const Properties extends Record<string, JsonSchema>, const Required extends keyof Properties & string = never>(
  properties: Properties,
  required: readonly Required[] = [],
) => ({ type: 'object', required, properties }) as const;
const query = body;

const ORGANIZATION = 'the organization, by id or slug';

/**
 * The forms of what a client names in a path or a query (docs/design.md "Admin API and console"):
 * checked before anything is looked up with it, so that a client's `../` never reaches the
 * snapshot store's keys and a bad form is the client's 400, not our 500. A well-formed name that
 * names nothing is the route's 404.
 */
const form = (pattern: string, description: string) => ({ type: 'string', pattern, description }) as const;
const params = <const Properties extends Record<string, JsonSchema>>(properties: Properties) => ({ type: 'object', required: Object.keys(properties), properties }) as const;
/** Any text but a path's separators and control characters, and not `.` or `..`: slugs are the platform's, without a stated form. */
const ORGANIZATION_FORM = form('^(?!\\.\\.?$)[^/\\\\\\u0000-\\u001f\\u007f]{1,200}$', 'an organization id or slug: 1 to 200 characters, without /, \\ or control characters');
const SNAPSHOT_FORM = form(`^${SNAPSHOT_ID_FORM}$`, 'a snapshot id such as 20261121T100000000Z-0123456789ab');
const SNAPSHOT_OR_CURRENT = form(`^(current|${SNAPSHOT_ID_FORM})$`, 'a snapshot id such as 20261121T100000000Z-0123456789ab, or current');
const KEY_FORM = form('^key_[A-Za-z0-9]{1,64}$', 'a key id: key_ and letters or digits');
/** Build runs and verifications are UUIDs; webhook endpoints and messages ep_… and msg_… (base64url). */
const ID_FORM = form('^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$', 'an id: letters, digits, _ and -, at most 128');
const CREDENTIAL_NAME_FORM = form('^[a-z0-9][a-z0-9._@-]{0,63}$', 'a credential name: lower-case letters, digits, ., _, @ and -');
const ORGANIZATION_PARAMS = params({ idOrSlug: ORGANIZATION_FORM });
const ID_PARAMS = params({ id: ID_FORM });
const KEY_PARAMS = params({ id: KEY_FORM });

/** The range of a usage route (`keys usage`'s --since, --until and --by): instants or durations back, as the audit log's. */
const usageQuery = query({
  since: text('from this instant (ISO 8601 with a zone) or this duration back (30m, 24h, 7d), widened down to its hour or day; default a week before until'),
  until: text('before this instant (exclusive), written as `since` is, widened up to the end of its hour or day; default the end of the current hour'),
  by: { enum: ['hour', 'day'], description: 'buckets of UTC hours or days; default hour for a week or less, day beyond' },
});

function usageRangeOf(query: { since?: string; until?: string; by?: UsageGranularity }): UsageRangeRequest {
  return { ...auditWindow({ since: query.since, until: query.until }, { since: 'since', until: 'until' }, new Date()), ...(query.by !== undefined ? { by: query.by } : {}) };
}

const ROUTES = [
  route({
    name: 'listOrganizations',
    method: 'get',
    path: '/organizations',
    role: 'auditor',
    tag: 'Organizations',
    summary:
      'Organizations by slug, each with its platform state, current snapshot and last build (by any process): every one, or with `limit` a page at a time (ask again `after` the last slug of a page until a page is empty or shorter), only those `search` finds',
    query: query({
      search: { ...text('only organizations whose slug or name contains this text, whatever its case'), maxLength: 200 },
      after: text('only organizations whose slug sorts after this one: the last slug of the previous page'),
      before: text('only organizations whose slug sorts before this one, the nearest first (the page before the first slug of a page); not with `after`'),
      limit: { type: 'string', pattern: '^[0-9]+$', description: `at most this many organizations (at most ${ORGANIZATION_PAGE_MAX}); absent: every one` },
    }),
    status: 200,
    response: listOf('OrganizationOverview'),
    errors: [],
    // Without any of them, every organization, as before paging was offered.
    answer: async (services, { query }) => {
      const page = await services.organizations.page({
        ...(query.search !== undefined ? { search: query.search } : {}),
        ...(query.after !== undefined ? { after: query.after } : {}),
        ...(query.before !== undefined ? { before: query.before } : {}),
        ...(query.limit !== undefined ? { limit: Number(query.limit) } : {}),
      });
      return page.organizations;
    },
  }),
  route({
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
    location: (run) => `${ADMIN_API_BASE}/builds/${run.id}`,
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: (services, { body }) => services.builds.start(body.organizations ?? []),
  }),
  route({
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
  }),
  route({
    name: 'getBuild',
    method: 'get',
    path: '/builds/{id}',
    params: ID_PARAMS,
    role: 'auditor',
    tag: 'Builds',
    summary: 'One run',
    status: 200,
    response: schemaRef('BuildRun'),
    errors: ['BUILD_NOT_FOUND'],
    answer: async (services, { params }) => {
      const run = await services.builds.get(params.id);
      if (!run) throw buildNotFound(params.id);
      return run;
    },
  }),
  route({
    name: 'listKeys',
    method: 'get',
    path: '/keys',
    role: 'auditor',
    tag: 'Keys',
    summary: 'Keys without their secrets, oldest first, each with its requests in the last 24 hours, as `keys list --json`',
    query: query({ organization: text(`only this organization: ${ORGANIZATION}`) }),
    status: 200,
    response: listOf('ListedKey'),
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: (services, { query }) => services.usage.keyList(query.organization),
  }),
  route({
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
    location: (key) => `${ADMIN_API_BASE}/keys/${key.id}`,
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: (services, { body }) =>
      services.keys.create({
        organization: body.organization,
        ...(body.origins !== undefined ? { origins: body.origins } : {}),
        ...(body.label !== undefined ? { label: body.label } : {}),
        ...(body.expiresAt !== undefined && body.expiresAt !== null ? { expiresAt: requestInstant('expiresAt', body.expiresAt) } : {}),
      }),
  }),
  route({
    name: 'updateKey',
    action: 'key.updated',
    method: 'patch',
    path: '/keys/{id}',
    params: KEY_PARAMS,
    role: 'operator',
    tag: 'Keys',
    summary: "Replace a key's allowed origins and/or label, from the next request on, as `keys update --json`",
    body: body({ origins: texts('allowed browser origins, replacing the list; []: server-side use only'), label: optionalText("the label; null or '': none") }),
    status: 200,
    response: schemaRef('Key'),
    errors: ['KEY_NOT_FOUND'],
    answer: (services, { params, body }) =>
      services.keys.update(params.id, {
        ...(body.origins !== undefined ? { origins: body.origins } : {}),
        ...(body.label !== undefined ? { label: body.label } : {}),
      }),
  }),
  route({
    name: 'revokeKey',
    action: 'key.revoked',
    method: 'post',
    path: '/keys/{id}/revoke',
    params: KEY_PARAMS,
    role: 'operator',
    tag: 'Keys',
    summary: 'Revoke a key from the next request on, as `keys revoke --json`',
    status: 200,
    response: schemaRef('Key'),
    errors: ['KEY_NOT_FOUND'],
    answer: (services, { params }) => services.keys.revoke(params.id),
  }),
  route({
    name: 'rollKey',
    action: 'key.rolled',
    method: 'post',
    path: '/keys/{id}/roll',
    params: KEY_PARAMS,
    role: 'operator',
    tag: 'Keys',
    summary: 'Replace a key by a new one for the same organization, origins and label, as `keys roll --json`; the old one is revoked when the grace period ends',
    body: body({ graceSeconds: { type: 'number', minimum: 0, description: 'how long the old key keeps working; absent: a day, as with the CLI; 0: now' } }),
    status: 201,
    response: schemaRef('NewKey'),
    location: (key) => `${ADMIN_API_BASE}/keys/${key.id}`,
    errors: ['KEY_NOT_FOUND'],
    answer: async (services, { params, body }) => (await services.keys.roll(params.id, body.graceSeconds === undefined ? {} : { graceSeconds: body.graceSeconds })).replacement,
  }),
  route({
    name: 'getKeyUsage',
    method: 'get',
    path: '/keys/{id}/usage',
    params: KEY_PARAMS,
    role: 'auditor',
    tag: 'Keys',
    summary:
      "A key's requests over a range, by hour or day, by outcome (the status, with a 403's errorCode), route and refused browser origin, as `keys usage KEY_ID --json`; a revoked or expired key's 401s count against it",
    query: usageQuery,
    status: 200,
    response: schemaRef('UsageReport'),
    errors: ['KEY_NOT_FOUND'],
    answer: async (services, { params, query }) => services.usage.key(params.id, usageRangeOf(query)),
  }),
  route({
    name: 'getOrganizationUsage',
    method: 'get',
    path: '/organizations/{idOrSlug}/usage',
    params: ORGANIZATION_PARAMS,
    role: 'auditor',
    tag: 'Keys',
    summary: 'Every key of an organization: its requests over a range, together and by key, as `keys usage --org ORG --json`',
    query: usageQuery,
    status: 200,
    response: schemaRef('UsageReport'),
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: async (services, { params, query }) => services.usage.organization(params.idOrSlug, usageRangeOf(query)),
  }),
  route({
    name: 'listWebhooks',
    method: 'get',
    path: '/organizations/{idOrSlug}/webhooks',
    params: ORGANIZATION_PARAMS,
    role: 'auditor',
    tag: 'Webhooks',
    summary: "The organization's webhook endpoints, never their secrets, each with its health (last attempt, what waits, next retry), as `webhooks list --json`",
    status: 200,
    response: listOf('ListedWebhookEndpoint'),
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: (services, { params }) => services.webhooks.list(params.idOrSlug),
  }),
  route({
    name: 'addWebhook',
    action: 'webhook.created',
    method: 'post',
    path: '/organizations/{idOrSlug}/webhooks',
    params: ORGANIZATION_PARAMS,
    role: 'operator',
    tag: 'Webhooks',
    summary: 'Register an endpoint, as `webhooks add --json`: its signing secret is in this answer only',
    body: body({ url: text('where messages are POSTed: an https URL with a public address'), description: optionalText('a description') }, ['url']),
    status: 201,
    response: schemaRef('NewWebhookSecret'),
    location: (endpoint) => `${ADMIN_API_BASE}/webhooks/${endpoint.id}`,
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: (services, { params, body }) => services.webhooks.add(params.idOrSlug, { url: body.url, ...(body.description !== undefined ? { description: body.description } : {}) }),
  }),
  route({
    name: 'updateWebhook',
    action: 'webhook.updated',
    method: 'patch',
    path: '/webhooks/{id}',
    params: ID_PARAMS,
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
      services.webhooks.update(params.id, {
        ...(body.url !== undefined ? { url: body.url } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      }),
  }),
  route({
    name: 'removeWebhook',
    action: 'webhook.deleted',
    method: 'delete',
    path: '/webhooks/{id}',
    params: ID_PARAMS,
    role: 'operator',
    tag: 'Webhooks',
    summary: 'Delete an endpoint, its pending deliveries and its attempts',
    status: 204,
    errors: ['WEBHOOK_NOT_FOUND'],
    answer: (services, { params }) => services.webhooks.remove(params.id),
  }),
  route({
    name: 'rotateWebhookSecret',
    action: 'webhook.rotated',
    method: 'post',
    path: '/webhooks/{id}/rotate-secret',
    params: ID_PARAMS,
    role: 'operator',
    tag: 'Webhooks',
    summary: 'A new signing secret, in this answer only; the old one keeps signing beside it for 24 h',
    status: 200,
    response: schemaRef('NewWebhookSecret'),
    errors: ['WEBHOOK_NOT_FOUND'],
    answer: (services, { params }) => services.webhooks.rotate(params.id),
  }),
  route({
    name: 'testWebhook',
    action: 'webhook.tested',
    method: 'post',
    path: '/webhooks/{id}/test',
    params: ID_PARAMS,
    role: 'operator',
    tag: 'Webhooks',
    summary: 'Queue a webhook.test message for the endpoint',
    status: 202,
    response: schemaRef('QueuedMessage'),
    errors: ['WEBHOOK_NOT_FOUND'],
    answer: (services, { params }) => services.webhooks.test(params.id),
  }),
  route({
    name: 'listWebhookAttempts',
    method: 'get',
    path: '/webhooks/{id}/attempts',
    params: ID_PARAMS,
    role: 'auditor',
    tag: 'Webhooks',
    summary: "The endpoint's last 100 delivery attempts, newest first",
    status: 200,
    response: listOf('WebhookAttempt'),
    errors: ['WEBHOOK_NOT_FOUND'],
    answer: (services, { params }) => services.webhooks.attempts(params.id),
  }),
  route({
    name: 'redeliverWebhookMessage',
    action: 'webhook.redelivered',
    method: 'post',
    path: '/webhooks/{id}/messages/{messageId}/redeliver',
    params: params({ id: ID_FORM, messageId: ID_FORM }),
    role: 'operator',
    tag: 'Webhooks',
    summary: 'Send a message to the endpoint again, under the same webhook-id',
    status: 202,
    response: schemaRef('QueuedMessage'),
    errors: ['WEBHOOK_NOT_FOUND', 'MESSAGE_NOT_FOUND'],
    answer: async (services, { params }) => {
      await services.webhooks.redeliver(params.id, params.messageId);
      return { messageId: params.messageId };
    },
  }),
  route({
    name: 'listSnapshots',
    method: 'get',
    path: '/organizations/{idOrSlug}/snapshots',
    params: ORGANIZATION_PARAMS,
    role: 'auditor',
    tag: 'Snapshots',
    summary: "The organization's snapshots and state changes, newest first, as `history --json`",
    status: 200,
    response: listOf('HistoryEntry'),
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: async (services, { params }) => historyJson(await services.snapshots.history(params.idOrSlug)),
  }),
  route({
    name: 'diffSnapshots',
    method: 'get',
    path: '/organizations/{idOrSlug}/diff',
    params: ORGANIZATION_PARAMS,
    role: 'auditor',
    tag: 'Snapshots',
    summary: 'What changed between two snapshots, as `diff --json`',
    query: query({ from: SNAPSHOT_OR_CURRENT, to: SNAPSHOT_OR_CURRENT }, ['from', 'to']),
    status: 200,
    response: schemaRef('SnapshotDiff'),
    errors: ['ORGANIZATION_NOT_FOUND', 'SNAPSHOT_NOT_FOUND'],
    answer: async (services, { params, query }) => diffJson(await services.snapshots.diff(params.idOrSlug, query.from, query.to)),
  }),
  route({
    name: 'answerAsOf',
    method: 'get',
    path: '/organizations/{idOrSlug}/as-of',
    params: ORGANIZATION_PARAMS,
    role: 'auditor',
    tag: 'Snapshots',
    summary:
      'What the integration API answered for a path at an instant, as `show`: that status, and that body (the resource, or its problem+json); its evidence in the headers Marquee-Snapshot-Id, Marquee-Manifest-Hash, Marquee-Signature and ETag, and a Link (rel related) to the inclusion proof of that snapshot’s manifest. 409 HISTORY_BROKEN when the snapshot it would answer from does not verify, or an object the answer needs is missing or altered',
    query: query({ at: text('an ISO 8601 instant with a zone'), path: form('^/.{0,2047}$', 'a path below /api/integration/v1 beginning with /, e.g. /events?timing=past') }, [
      'at',
      'path',
    ]),
    status: 200,
    response: { description: 'The resource as the gateway served it then.' },
    errors: ['ORGANIZATION_NOT_FOUND', 'HISTORY_BROKEN'],
    answer: async (services, { params, query }) => {
      const answer = await services.snapshots.asOf(params.idOrSlug, requestInstant('at', query.at), query.path);
      return new PastAnswer(answer.status, answer.body, evidenceHeaders(params.idOrSlug, answer));
    },
  }),
  route({
    name: 'getSnapshotInclusion',
    method: 'get',
    path: '/organizations/{idOrSlug}/snapshots/{id}/inclusion',
    params: params({ idOrSlug: ORGANIZATION_FORM, id: SNAPSHOT_FORM }),
    role: 'auditor',
    tag: 'Snapshots',
    summary:
      "The publication log's inclusion proof of the snapshot's manifest against the newest checkpoint in the store, and that checkpoint's signed note as stored, as `show --evidence` prints them: `examples/verify-publication-log.mjs inclusion` checks one with the other. `inclusion` null, with `inclusionReason`, when the manifest predates the log or no checkpoint covers it yet",
    status: 200,
    response: schemaRef('SnapshotInclusion'),
    errors: ['ORGANIZATION_NOT_FOUND', 'SNAPSHOT_NOT_FOUND'],
    answer: (services, { params }) => services.snapshots.inclusion(params.idOrSlug, params.id),
  }),
  route({
    name: 'verifyOrganization',
    method: 'get',
    path: '/organizations/{idOrSlug}/verify',
    params: ORGANIZATION_PARAMS,
    role: 'auditor',
    tag: 'Verifications',
    summary:
      "The organization's history verified against the platform database, as `verify --org ID --json`: `ok` false with the first break when it does not hold (answered 200 all the same: the break is the finding). An id the platform no longer knows is verified from the store",
    status: 200,
    response: schemaRef('HistoryVerification'),
    errors: ['ORGANIZATION_NOT_FOUND'],
    answer: (services, { params }) => services.verifications.organization(params.idOrSlug),
  }),
  route({
    name: 'startVerification',
    action: 'verification.requested',
    method: 'post',
    path: '/verifications',
    role: 'auditor',
    tag: 'Verifications',
    summary:
      'Start verifying every organization in the background, as `verify --all --json`; answered at once with the job. While one runs, a second request is answered with the running one (its startedAt says when it began)',
    status: 202,
    response: schemaRef('VerificationJob'),
    location: (job) => `${ADMIN_API_BASE}/verifications/${job.id}`,
    errors: [],
    answer: (services) => services.verifications.start(),
  }),
  route({
    name: 'listVerifications',
    method: 'get',
    path: '/verifications',
    role: 'auditor',
    tag: 'Verifications',
    summary: 'The verifications this process keeps, newest first: the running one and the last 20 finished (a restart forgets them)',
    status: 200,
    response: listOf('VerificationJob'),
    errors: [],
    answer: (services) => services.verifications.list(),
  }),
  route({
    name: 'getVerification',
    method: 'get',
    path: '/verifications/{id}',
    params: ID_PARAMS,
    role: 'auditor',
    tag: 'Verifications',
    summary: 'One verification: while running, how many organizations are done of how many; once finished, the summary and each broken organization with its break',
    status: 200,
    response: schemaRef('VerificationJob'),
    errors: ['VERIFICATION_NOT_FOUND'],
    answer: (services, { params }) => services.verifications.get(params.id),
  }),
  route({
    name: 'getCheckpoint',
    method: 'get',
    path: '/checkpoint',
    role: 'auditor',
    tag: 'Verifications',
    summary:
      "The publication log's latest checkpoint in the store, checked against the signing keys it publishes, as `marquee checkpoint --json` prints it; 404 when the store holds none. An auditor keeps it for `marquee verify --since`; with `since` (a kept checkpoint's size), also the consistency proof from it, as `checkpoint --since KEPT --proof FILE` writes it",
    query: query({ since: { type: 'string', pattern: '^[0-9]{1,15}$', description: "a kept checkpoint's size: add the consistency proof from it to the latest" } }),
    status: 200,
    response: schemaRef('PublicationLogCheckpoint'),
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'HISTORY_BROKEN'],
    answer: (services, { query }) => services.checkpoints.latest(query.since === undefined ? undefined : Number(query.since)),
  }),
  route({
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
  }),
  route({
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
        role: { enum: [...ADMIN_ROLES], description: 'auditor reads everything; operator also changes keys, webhooks and builds; owner also admin credentials' },
        expiresAt: optionalText('an ISO 8601 instant with a zone, in the future; absent or null: never'),
      },
      ['name', 'role'],
    ),
    status: 201,
    response: schemaRef('NewAdminCredential'),
    location: (credential) => `${ADMIN_API_BASE}/admins/${encodeURIComponent(credential.name)}`,
    errors: ['ADMIN_NAME_TAKEN'],
    answer: (services, { body }) =>
      services.admins.create({
        name: body.name,
        role: body.role,
        ...(body.expiresAt !== undefined && body.expiresAt !== null ? { expiresAt: requestInstant('expiresAt', body.expiresAt) } : {}),
      }),
  }),
  route({
    name: 'revokeAdmin',
    action: 'admin.revoked',
    method: 'post',
    path: '/admins/{name}/revoke',
    params: params({ name: CREDENTIAL_NAME_FORM }),
    role: 'owner',
    tag: 'Admins',
    summary: 'Revoke a named admin credential: refused from the next request on, as `admins revoke --json`',
    status: 200,
    response: schemaRef('AdminCredential'),
    errors: ['ADMIN_NOT_FOUND'],
    answer: (services, { params }) => services.admins.revoke(params.name),
  }),
  route({
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
      until: text('only entries before this instant (exclusive), written as `since` is: since..until is a half-open window'),
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
        ...auditWindow({ since: query.since, until: query.until }, { since: 'since', until: 'until' }, new Date()),
        ...(query.before !== undefined ? { before: Number(query.before) } : {}),
        ...(query.limit !== undefined ? { limit: Math.max(1, Number(query.limit)) } : {}),
      }),
  }),
  route({
    name: 'verifyAuditLog',
    method: 'get',
    path: '/audit-log/verify',
    role: 'auditor',
    tag: 'Audit',
    summary:
      'The audit trail verified, as `audit-log verify --json`: every entry’s hash and link from the first, then the heads kept in the snapshot store; `ok` false with the first break when it does not hold (answered 200 all the same)',
    status: 200,
    response: schemaRef('AuditVerdict'),
    errors: [],
    answer: (services) => services.audit.verify(),
  }),
] as const;

/** Every route, in the order the document lists them. */
export const ADMIN_ROUTES: readonly AdminRoute[] = ROUTES;

type DeclaredRoute = (typeof ROUTES)[number];

/** The operationId of a route of the table. */
type AdminRouteName = DeclaredRoute['name'];

/** The declared route of that name, with the type of its body. */
type AdminRouteNamed<Name extends AdminRouteName> = Extract<DeclaredRoute, { name: Name }>;

/** The route named so, with the type of its body: the console's forms read their fields with it. */
export function adminRoute<Name extends AdminRouteName>(name: Name): AdminRouteNamed<Name> {
  const found = ROUTES.find((candidate): candidate is AdminRouteNamed<Name> => candidate.name === name);
  if (found === undefined) throw new Error(`the admin API has no route named ${name}`);
  return found;
}
