// The JSON Schemas (2020-12) of what the admin API answers: the CLI's `--json` shapes
// (keys/key-admin.ts's KeyView, builder/runs/build-runs.ts's BuildRun, …) written as schemas, for
// the routes' declarations (api-routes.ts) and the OpenAPI document made from them
// (api-document.ts). No schema forbids other members: an answer may gain fields within /admin/v1.
// Every schema keeps its literal type (`as const`), so a route's answer is checked against its
// response schema when it compiles (schema-type.ts): the schema is the one statement of the shape.

import { ADMIN_ROLES } from '../records/actor.ts';
import type { SchemaType } from './schema-type.ts';

export type JsonSchema = { readonly [keyword: string]: unknown };

const text = { type: 'string' } as const;
const instant = { type: 'string', format: 'date-time' } as const;
const nullable = <const Schema extends { readonly type: string }>(schema: Schema): Omit<Schema, 'type'> & { readonly type: readonly [Schema['type'], 'null'] } => ({
  ...schema,
  type: [schema.type, 'null'],
});
const count = { type: 'integer', minimum: 0 } as const;
/** Every member required but the `optional` ones. */
const object = <const Properties extends Record<string, JsonSchema>, const Optional extends keyof Properties & string = never>(
  properties: Properties,
  optional: readonly Optional[] = [],
) => ({
  type: 'object' as const,
  required: Object.keys(properties).filter((name): name is Exclude<keyof Properties & string, Optional> => !optional.some((other) => other === name)),
  properties,
});
const TRIGGER = { enum: ['manual', 'schedule', 'change', 'start'] } as const;
const STATE = { enum: ['active', 'suspended', 'closed'] } as const;

/** By name: the OpenAPI document's components, which routes name through `schemaRef`. */
export const ADMIN_SCHEMAS = {
  Problem: {
    ...object({ type: text, title: text, status: { type: 'integer' }, detail: text, instance: nullable(text), errorCode: text }),
    description: 'RFC 7807 problem+json with the errorCode to branch on.',
  },
  LastBuild: object({ runId: text, result: { enum: ['published', 'unchanged', 'suspended', 'failed'] }, finishedAt: instant, error: text }, ['error']),
  OrganizationOverview: object({
    id: text,
    slug: text,
    name: text,
    state: STATE,
    snapshotId: nullable(text),
    publishedAt: nullable(instant),
    lastBuild: { anyOf: [{ $ref: '#/components/schemas/LastBuild' }, { type: 'null' }] },
  }),
  RunResult: object(
    {
      id: text,
      slug: text,
      result: { enum: ['published', 'unchanged', 'suspended', 'failed'] },
      snapshotId: text,
      error: text,
      verified: { const: true },
      builder: text,
    },
    ['snapshotId', 'error', 'verified'],
  ),
  BuildRun: object(
    {
      id: text,
      trigger: TRIGGER,
      requestedBy: { type: 'string', description: 'the actor who asked for it (`root`, a credential, `cli:<user>@<host>`), or `schedule`, `changes`, `start`' },
      scope: { enum: ['named', 'every', 'changed'] },
      state: { enum: ['queued', 'running', 'finished', 'failed'] },
      done: count,
      total: count,
      skipped: count,
      queuedAt: instant,
      startedAt: nullable(instant),
      finishedAt: nullable(instant),
      organizations: { type: 'array', items: { $ref: '#/components/schemas/RunResult' } },
      error: text,
    },
    ['error'],
  ),
  Key: {
    ...object({
      id: text,
      organizationId: text,
      organizationSlug: nullable(text),
      prefix: nullable(text),
      label: nullable(text),
      origins: { type: 'array', items: text },
      createdAt: instant,
      expiresAt: nullable(instant),
      revokedAt: nullable(instant),
      lastUsedAt: nullable(instant),
    }),
    description: 'A key as `keys … --json` prints it: never its secret.',
  },
  NewKey: {
    allOf: [{ $ref: '#/components/schemas/Key' }, object({ key: text })],
    description: 'A key just made, with its secret: shown this once.',
  },
  ListedKey: {
    allOf: [{ $ref: '#/components/schemas/Key' }, object({ requests24h: { ...count, description: 'its requests in the last 24 hours, every outcome (0 when none)' } })],
    description: 'A key as `keys list --json` prints it: the key, and its requests in the last 24 hours beside its last use.',
  },
  UsageReport: {
    ...object({
      subject: { anyOf: [object({ keyId: text }), object({ organizationId: text })], description: 'one key, or every key of one organization' },
      since: { ...instant, description: 'the range’s start, widened down to its first bucket' },
      until: { ...instant, description: 'the range’s end, exclusive, widened up to the end of its last bucket' },
      by: { enum: ['hour', 'day'], description: 'the buckets of `series`: UTC hours or UTC days' },
      requests: { ...count, description: 'every request counted in the range' },
      outcomes: {
        type: 'array',
        items: object({ outcome: text, requests: count }),
        description: 'requests by outcome, most first: the status, with the errorCode of a 403 (`200`, `304`, `401`, `403 API_KEY_ORIGIN_NOT_ALLOWED`, `429`)',
      },
      routes: { type: 'array', items: object({ route: text, requests: count }), description: 'requests by route template, most first' },
      keys: { type: 'array', items: object({ keyId: text, requests: count }), description: 'requests by key, most first' },
      series: {
        type: 'array',
        items: object({ start: instant, requests: count, outcomes: { type: 'object', additionalProperties: count, description: 'requests by outcome; only those with any' } }),
        description: 'every bucket of the range in order, empty ones too',
      },
      refusedOrigins: {
        type: 'array',
        items: object({ origin: nullable(text), requests: count }),
        description:
          'the browser origins requests were refused for (403 API_KEY_ORIGIN_NOT_ALLOWED), most first, at most 10; `origin` null counts the others a key’s hourly bound folded together',
      },
    }),
    description: 'A key’s or an organization’s requests over a range, as `keys usage --json` prints it.',
  },
  WebhookEndpoint: object({
    id: text,
    organizationId: text,
    url: text,
    description: nullable(text),
    enabled: { type: 'boolean' },
    createdAt: instant,
    disabledReason: nullable(text),
  }),
  WebhookHealth: {
    ...object({
      lastAttempt: {
        anyOf: [object({ at: instant, messageId: text, delivered: { type: 'boolean' }, status: nullable({ type: 'integer' }), error: nullable(text) }), { type: 'null' }],
      },
      waiting: count,
      nextRetryAt: nullable(instant),
    }),
    description: 'How deliveries go: the last attempt (how it ended and why), the deliveries waiting, and when the next retry is due.',
  },
  ListedWebhookEndpoint: {
    allOf: [{ $ref: '#/components/schemas/WebhookEndpoint' }, object({ organizationSlug: nullable(text), health: { $ref: '#/components/schemas/WebhookHealth' } })],
    description: 'An endpoint as `webhooks list --json` prints it: its organization by slug, and its health.',
  },
  NewWebhookSecret: {
    allOf: [
      { $ref: '#/components/schemas/WebhookEndpoint' },
      object({ secret: text, organizationSlug: text, warnings: { type: 'array', items: text } }, ['organizationSlug', 'warnings']),
    ],
    description:
      'The endpoint with its signing secret: shown this once. `warnings`, when present: a running builder with other WEBHOOK_ALLOW_* settings would refuse to deliver to its URL.',
  },
  WebhookAttempt: object({
    at: instant,
    messageId: text,
    type: text,
    status: nullable({ type: 'integer' }),
    error: nullable(text),
    durationMs: { type: 'number', minimum: 0 },
    response: nullable(text),
  }),
  QueuedMessage: object({ messageId: text }),
  AdminCredential: {
    ...object({
      name: text,
      role: { enum: [...ADMIN_ROLES] },
      prefix: text,
      createdAt: instant,
      createdBy: text,
      expiresAt: nullable(instant),
      revokedAt: nullable(instant),
      revokedBy: nullable(text),
      lastUsedAt: nullable(instant),
    }),
    description: 'A named admin credential as `admins … --json` prints it: never its secret. lastUsedAt is written at most once a minute.',
  },
  NewAdminCredential: {
    allOf: [{ $ref: '#/components/schemas/AdminCredential' }, object({ secret: text })],
    description: 'A credential just made, with its secret (`mqa_…`): shown this once.',
  },
  AuditEntry: object({
    seq: { type: 'integer', minimum: 1, description: 'its number in the trail, from 1 without gaps' },
    at: instant,
    actor: { type: 'string', description: 'the credential’s name: `root` for ADMIN_TOKEN, `cli:<user>@<host>` for the CLI' },
    actorRole: { enum: [...ADMIN_ROLES] },
    door: { enum: ['api', 'console', 'cli'] },
    action: { type: 'string', description: 'e.g. key.created, webhook.rotated, build.requested, db.sql' },
    organizationId: nullable(text),
    targetId: nullable({ type: 'string', description: 'the key, webhook endpoint, build run or organization acted on' }),
    outcome: { enum: ['ok', 'refused', 'failed'] },
    reason: nullable({ type: 'string', description: 'why it was refused or failed: the error code and its detail' }),
    requestId: nullable(text),
    clientAddress: nullable(text),
    changes: { type: 'object', description: 'the fields set and their new values; never a secret' },
    previousHash: { type: 'string', description: 'SHA-256 (hex) of the entry before; 64 zeros for the first' },
    hash: { type: 'string', description: 'SHA-256 (hex) of this entry’s canonical JSON, without this member' },
  }),
  AuditPage: object({
    entries: { type: 'array', items: { $ref: '#/components/schemas/AuditEntry' }, description: 'newest first' },
    next: { type: ['integer', 'null'], description: 'the `before` of the next page; null on the last' },
  }),
  HistoryEntry: {
    description: 'A snapshot, or a change of the organization’s state (snapshotId null).',
    anyOf: [
      object({ snapshotId: text, publishedAt: instant, trigger: TRIGGER, resources: count }),
      object({ state: STATE, snapshotId: { type: 'null' }, publishedAt: instant, trigger: TRIGGER }),
    ],
  },
  SnapshotDiff: object({
    added: { type: 'array', items: text },
    removed: { type: 'array', items: text },
    changed: {
      type: 'array',
      items: object({
        path: text,
        patch: { type: 'array', description: 'RFC 6902: applied in order to the old resource, gives the new one.', items: object({ op: text, path: text }) },
      }),
    },
  }),
  OrganizationVerification: {
    ...object(
      {
        organizationId: text,
        ok: { type: 'boolean' },
        head: { anyOf: [object({ snapshotId: text, manifestHash: text }), { type: 'null' }], description: 'the snapshot the pointer names; null when nothing is published' },
        snapshots: { ...count, description: 'snapshots verified on the chain' },
        stateRecords: count,
        unsigned: { ...count, description: 'snapshots and state records on the chain without a signature (no signing key was published then)' },
        beginning: { enum: ['first', 'pruned', 'unsigned', 'empty'], description: 'where the verified chain begins, going back from the current snapshot' },
        firstSnapshotId: nullable(text),
        unsignedBefore: { type: 'string', description: 'with beginning unsigned: the snapshots up to this one predate signing' },
        break: {
          ...object({
            snapshotId: { type: 'string', description: 'the snapshot, or state record (`states/{name}`), where the history stops holding' },
            kind: {
              type: 'string',
              description:
                'pointer-malformed, manifest-missing, manifest-edited, signature-invalid, unknown-key, unsigned, object-missing, object-edited, pointer-moved-back, outside-chain, state-record-edited, state-record-missing, content-hash-mismatch, history-missing, publication-missing, unlogged or log-rewritten',
            },
            detail: text,
          }),
          description: 'the first break; absent when the history holds',
        },
        neverCurrent: { type: 'array', items: text, description: 'manifests a publish wrote and never made current, as a later signed manifest says' },
      },
      ['unsignedBefore', 'break'],
    ),
    description: 'One organization’s history verified, as `marquee verify --json` prints each.',
  },
  HistoryVerification: {
    ...object({
      ok: { type: 'boolean' },
      store: { type: 'string', description: 'the snapshot store verified' },
      against: { type: 'string', description: 'what the store was checked against: the platform database' },
      organizations: { type: 'array', items: { $ref: '#/components/schemas/OrganizationVerification' } },
    }),
    description: 'As `marquee verify --org ID --json` prints it.',
  },
  VerificationSummary: {
    ...object({
      organizations: count,
      verified: { ...count, description: 'holding, with something published' },
      neverPublished: count,
      broken: count,
      breaks: { type: 'object', additionalProperties: count, description: 'broken organizations by the kind of their first break' },
    }),
    description: 'What `marquee verify --all` ends with, counted.',
  },
  VerificationJob: {
    ...object(
      {
        id: text,
        state: { enum: ['running', 'finished', 'failed'], description: 'failed: it could not verify (the store unreadable or empty, the database down), as `error` says' },
        requestedBy: { type: 'string', description: 'the actor who started it' },
        startedAt: instant,
        finishedAt: nullable(instant),
        done: { ...count, description: 'organizations verified so far' },
        total: { ...count, description: 'organizations to verify; 0 until they are listed' },
        result: {
          anyOf: [
            object({
              ok: { type: 'boolean' },
              store: text,
              against: text,
              summary: { $ref: '#/components/schemas/VerificationSummary' },
              broken: {
                type: 'array',
                items: { $ref: '#/components/schemas/OrganizationVerification' },
                description: 'each broken organization, as `verify --all --json` gives it',
              },
            }),
            { type: 'null' },
          ],
          description: 'once finished',
        },
        error: text,
      },
      ['error'],
    ),
    description: 'A verification of every organization, run in the background by this process.',
  },
  AuditVerdict: {
    ...object({
      ok: { type: 'boolean' },
      entries: { ...count, description: 'entries walked' },
      head: { anyOf: [object({ seq: count, hash: text }), { type: 'null' }] },
      headsChecked: { ...count, description: 'heads kept in the snapshot store compared with the trail' },
      broken: {
        anyOf: [
          object(
            {
              kind: { enum: ['missing', 'changed', 'relinked', 'rewritten'] },
              seq: count,
              last: { ...count, description: 'with missing: the last entry missing' },
              problem: text,
            },
            ['last'],
          ),
          { type: 'null' },
        ],
      },
    }),
    description: 'The audit trail verified, as `marquee audit-log verify --json` prints it.',
  },
  PublicationLogCheckpoint: {
    ...object(
      {
        origin: { type: 'string', description: "the log's origin: the note's first line and key name" },
        size: { ...count, description: 'leaves in the log at the checkpoint' },
        rootHash: { type: 'string', description: 'the Merkle root hash of those leaves, base64' },
        keyId: { type: 'string', description: 'the signing key (signing-keys/{keyId}.json) whose signature verified' },
        storeKey: { type: 'string', description: 'where the store holds it: publication-log/checkpoints/{size}.txt' },
        note: { type: 'string', description: 'the C2SP signed note, as stored' },
        consistencyProof: { $ref: '#/components/schemas/ConsistencyProof' },
      },
      ['consistencyProof'],
    ),
    description: 'The publication log’s latest checkpoint, as `marquee checkpoint --json` prints it; with `since`, and the consistency proof from that size to its own.',
  },
  ConsistencyProof: {
    ...object({
      format: { const: 1 },
      kind: { const: 'consistency-proof' },
      origin: { type: 'string', description: "the log's origin, as the checkpoints name it" },
      oldSize: { ...count, description: 'the size of the kept checkpoint' },
      newSize: { ...count, description: 'the size of the latest checkpoint' },
      proof: { type: 'array', items: text, description: 'RFC 9162’s consistency path, each hash in base64; empty when the sizes are equal' },
    }),
    description: 'A consistency proof file, as `examples/verify-publication-log.mjs consistency OLD NEW PROOF` reads it.',
  },
  InclusionProof: {
    ...object({
      format: { const: 1 },
      kind: { const: 'inclusion-proof' },
      origin: { type: 'string', description: "the log's origin, as the checkpoint names it" },
      treeSize: { ...count, description: "the checkpoint's size: the tree the leaf is proved in" },
      leafIndex: { ...count, description: 'the leaf’s number in the log, from 0' },
      leaf: { type: 'string', description: 'the leaf’s bytes, base64: the log entry’s canonical JSON, `{"at","hash","id","kind":"manifest","organizationId"}`' },
      proof: { type: 'array', items: text, description: 'RFC 9162’s inclusion path, leaf side first, each hash in base64' },
    }),
    description: 'An inclusion proof file, as `examples/verify-publication-log.mjs inclusion CHECKPOINT PROOF` reads it.',
  },
  SnapshotInclusion: {
    ...object(
      {
        organizationId: text,
        snapshotId: text,
        manifestHash: { type: 'string', description: 'SHA-256 (hex) of the manifest’s bytes in the store: the hash its leaf records' },
        inclusion: {
          anyOf: [
            object({
              checkpoint: { type: 'string', description: 'the store’s newest checkpoint: the C2SP signed note, verbatim as stored' },
              proof: { $ref: '#/components/schemas/InclusionProof' },
            }),
            { type: 'null' },
          ],
          description: 'the manifest’s leaf proved in the tree the checkpoint signs; null when there is no proof to give, as inclusionReason says',
        },
        inclusionReason: {
          type: 'string',
          description:
            'with inclusion null: the manifest was published before the log (or its backfill), the log records another hash for it, or no checkpoint covers its leaf yet',
        },
      },
      ['inclusionReason'],
    ),
    description: 'The publication log’s inclusion proof of a snapshot’s manifest, with the checkpoint it is proved against, as `show --evidence` prints them beside its answer.',
  },
} as const satisfies Record<string, JsonSchema>;

type AdminSchemaName = keyof typeof ADMIN_SCHEMAS;

/** What a value valid against `schema` is, its references resolved among ADMIN_SCHEMAS. */
export type AdminSchemaType<Schema> = SchemaType<Schema, typeof ADMIN_SCHEMAS>;

export const schemaRef = <const Name extends AdminSchemaName>(name: Name) => ({ $ref: `#/components/schemas/${name}` as const });
export const listOf = <const Name extends AdminSchemaName>(name: Name) => ({ type: 'array' as const, items: schemaRef(name) });
