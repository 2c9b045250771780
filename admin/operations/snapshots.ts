// An organization's snapshot history, diffs, past answers and their evidence (snapshot-admin.ts).
// One declaration per operation (operation.ts): the admin API's route, its OpenAPI operation
// and its audit action are derived from it.
import { operation } from './operation.ts';
import { PastAnswer } from '../api-route.ts';
import { listOf, schemaRef } from '../api-schemas.ts';
import type { AsOfAnswer } from '../../snapshot/as-of-answer.ts';
import { requestInstant } from '../request-instant.ts';
import { diffJson, historyJson } from '../snapshot-admin.ts';
import { ADMIN_API_BASE, text, query, form, params, ORGANIZATION_FORM, SNAPSHOT_FORM, SNAPSHOT_OR_CURRENT, ORGANIZATION_PARAMS } from './forms.ts';

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

/** Each operation of the area, in the order the OpenAPI document lists them. */
export const SNAPSHOT_OPERATIONS = [
  operation({
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
    run: async (services, { params }) => historyJson(await services.snapshots.history(params.idOrSlug)),
  }),
  operation({
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
    run: async (services, { params, query }) => diffJson(await services.snapshots.diff(params.idOrSlug, query.from, query.to)),
  }),
  operation({
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
    run: async (services, { params, query }) => {
      const answer = await services.snapshots.asOf(params.idOrSlug, requestInstant('at', query.at), query.path);
      return new PastAnswer(answer.status, answer.body, evidenceHeaders(params.idOrSlug, answer));
    },
  }),
  operation({
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
    run: (services, { params }) => services.snapshots.inclusion(params.idOrSlug, params.id),
  }),
] as const;
