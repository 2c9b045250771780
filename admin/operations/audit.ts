// The audit trail, listed and verified (trail/audit-admin.ts).
// One declaration per operation (operation.ts): the admin API's route, its OpenAPI operation
// and its audit action are derived from it.
import { operation } from './operation.ts';
import { schemaRef } from '../api-schemas.ts';
import { AUDIT_PAGE_MAX } from '../trail/audit-admin.ts';
import { auditWindow } from '../trail/audit-since.ts';
import { text, query, ORGANIZATION } from './forms.ts';

/** Each operation of the area, in the order the OpenAPI document lists them. */
export const AUDIT_OPERATIONS = [
  operation({
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
    run: (services, { query }) =>
      services.audit.list({
        ...(query.organization !== undefined ? { organization: query.organization } : {}),
        ...(query.actor !== undefined ? { actor: query.actor } : {}),
        ...(query.action !== undefined ? { action: query.action } : {}),
        ...auditWindow({ since: query.since, until: query.until }, { since: 'since', until: 'until' }, new Date()),
        ...(query.before !== undefined ? { before: Number(query.before) } : {}),
        ...(query.limit !== undefined ? { limit: Math.max(1, Number(query.limit)) } : {}),
      }),
  }),
  operation({
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
    run: (services) => services.audit.verify(),
  }),
] as const;
