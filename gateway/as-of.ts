// What the integration API answered at a past instant, for auditors: the snapshot and state
// current then (snapshot/state-records.ts), served through the gateway's own routes and resource
// code with the clock fixed at that instant, so clock-dependent fields (an event's `timing`,
// GET /events?timing=…) are what a client saw then. No key is checked: the caller (the CLI, the
// admin API) is the operator, and names the organization itself. The control plane is given this
// function by bin/ (it never imports the gateway): snapshot/as-of-answer.ts is the contract.
import type { Manifest } from '../snapshot/manifest.ts';
import { sha256Hex } from '../snapshot/hash.ts';
import { manifestKey } from '../snapshot/layout.ts';
import { listSnapshotIds, readPointer } from '../snapshot/reader.ts';
import type { Signature } from '../snapshot/signing.ts';
import type { AnswerAsOf, AsOfAnswer } from '../snapshot/as-of-answer.ts';
import { currentAt, listStateMarks } from '../snapshot/state-records.ts';
import { SnapshotIntegrityError } from '../snapshot/reader.ts';
import { ApiError, notFound } from './errors.ts';
import { EventViews } from './events/views.ts';
import { OrganizationResources } from './organization-resources.ts';
import { problemBytes } from '../snapshot/problem.ts';
import { API_BASE } from '../snapshot/resource-catalog.ts';
import { matchRoute, pathBelowBase } from './api-routes.ts';
import type { OrganizationSnapshot } from './snapshot-cache/current-snapshots.ts';
import { manifestView } from './snapshot-cache/manifest-view.ts';
import { ObjectCache } from './snapshot-cache/object-cache.ts';
import { PinnedSnapshots } from './snapshot-cache/pinned-snapshots.ts';
import { RetainedSnapshots } from './snapshot-cache/retained-snapshots.ts';
import { ChangeAnswers } from './changes.ts';

/** One answer reads a few objects; bounds for one call, dropped after it. */
const OBJECT_BYTES = 16 * 1024 * 1024;
const VIEW_BYTES = 64 * 1024 * 1024;
const MANIFEST_BYTES = 16 * 1024 * 1024;

/** The gateway's own routes and rendering, with the clock at `at` (snapshot/as-of-answer.ts). */
export const answerAsOf: AnswerAsOf = async (store, orgId, at, apiPath) => {
  const [ids, marks, pointer] = await Promise.all([listSnapshotIds(store, orgId), listStateMarks(store, orgId), readPointer(store, orgId)]);
  const then = currentAt(at, ids, marks, pointer);
  const url = new URL(apiPath, 'http://as-of.invalid');
  const path = pathBelowBase(url.pathname) ?? url.pathname;
  let snapshot: OrganizationSnapshot | undefined;
  let manifestEvidence: { manifestHash: string | null; signature: Signature | null } = { manifestHash: null, signature: null };
  if (then.state === 'active') {
    const bytes = await store.get(manifestKey(orgId, then.snapshotId));
    if (!bytes) throw new SnapshotIntegrityError(`snapshot ${then.snapshotId} of organization ${orgId} disappeared while it was read`);
    const manifest = JSON.parse(bytes.toString('utf8')) as Manifest;
    const manifestHash = sha256Hex(bytes);
    manifestEvidence = { manifestHash, signature: manifest.signature ?? null };
    snapshot = { state: 'active', manifest: manifestView(manifest, manifestHash) };
  } else if (then.state !== null) snapshot = { state: then.state, manifest: null };
  const answer = (status: number, body: unknown, etag: string | null): AsOfAnswer => ({
    status,
    body,
    snapshotId: then.snapshotId,
    state: then.state,
    evidence: { ...manifestEvidence, etag },
  });
  const problem = (error: ApiError) => answer(error.status, JSON.parse(problemBytes(error, API_BASE + path).toString('utf8')), null);

  const objects = new ObjectCache(store, OBJECT_BYTES);
  // A past answer pins nothing (the clock is already `at`); earlier manifests are read for GET /changes.
  const resources = new OrganizationResources(
    { get: () => snapshot },
    objects,
    new EventViews(objects, VIEW_BYTES),
    new PinnedSnapshots(store, 0, MANIFEST_BYTES),
    new ChangeAnswers(0),
    // Whether `since` is kept is the store's answer now, as a gateway would give it.
    new RetainedSnapshots(store, { maxAgeMs: 0, maxBytes: 0 }),
  );
  try {
    const match = matchRoute(path);
    if (match === undefined) throw notFound();
    const representation = await match.route.answer(
      { resources, organizationId: orgId, queryString: url.search.slice(1), now: at.getTime(), pin: undefined, snapshotId: undefined },
      match.idOrSlug,
    );
    return answer(200, JSON.parse(representation.bytes.toString('utf8')), representation.quotedEtag);
  } catch (error) {
    if (error instanceof ApiError) return problem(error);
    throw error;
  }
};
