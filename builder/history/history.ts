// Snapshot history for auditors: an organization's snapshots and state changes (suspended,
// closed, reactivated), and what changed between any two snapshots, resource by resource.
//
// Exports (the CLI and the admin API call them):
// - `snapshotHistory(store, orgId): Promise<HistoryEntry[]>`, newest first. A snapshot entry is
//   `{snapshotId, publishedAt, trigger, resources, current}`; a state entry is
//   `{state, snapshotId: null, publishedAt, trigger, current}` (state 'active' is a reactivation),
//   from the state records publish writes (snapshot/state-records.ts). Tell them apart by `state`.
// - `diffSnapshots(store, orgId, from, to): Promise<SnapshotDiff>`: `added` and `removed` resource
//   paths, and per changed resource an RFC 6902 `patch` that turns the old resource into the new
//   one (array elements matched by id: builder/history/diff.ts) and the same as `changes`, FieldChange[]
//   for display. `current` names the snapshot the pointer names.
import type { Operation } from 'fast-json-patch';
import { OperatorError } from '../../runtime/errors.ts';
import type { BuildTrigger, Manifest, OrganizationState } from '../../snapshot/manifest.ts';
import { listSnapshotIds, readManifest, readObjectBytes, readPointer } from '../../snapshot/reader.ts';
import { listStateMarks, parseStateRecord } from '../../snapshot/state-records.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';
import { diffResource, type FieldChange } from './diff.ts';

interface SnapshotEntry {
  snapshotId: string;
  publishedAt: string;
  trigger: BuildTrigger;
  /** Number of resources in the snapshot. */
  resources: number;
  current: boolean;
}

interface StateEntry {
  /** The state from publishedAt on: 'suspended', 'closed', or 'active' (reactivated). */
  state: OrganizationState;
  snapshotId: null;
  publishedAt: string;
  trigger: BuildTrigger;
  /** The newest state entry, while the pointer is in that state. */
  current: boolean;
}

export type HistoryEntry = SnapshotEntry | StateEntry;

/** `history`/`diff` of a snapshot (or object) that is not in the store. */
export class SnapshotNotFoundError extends OperatorError {
  override name = 'SnapshotNotFoundError';
}

/** Newest first; at one instant, a snapshot before the state change published with it. */
export async function snapshotHistory(store: SnapshotStore, orgId: string): Promise<HistoryEntry[]> {
  const [ids, marks, pointer] = await Promise.all([listSnapshotIds(store, orgId), listStateMarks(store, orgId), readPointer(store, orgId)]);
  const entries: HistoryEntry[] = [];
  for (const id of ids) {
    const manifest = await readManifest(store, orgId, id);
    if (!manifest) continue;
    entries.push({
      snapshotId: id,
      publishedAt: manifest.publishedAt,
      trigger: manifest.trigger,
      resources: Object.keys(manifest.resources).length,
      current: pointer?.state === 'active' && pointer.snapshotId === id,
    });
  }
  const newestMark = marks[marks.length - 1];
  for (const mark of marks) {
    const bytes = await store.get(mark.key);
    if (bytes === undefined) continue; // deleted since the listing (retention)
    const record = parseStateRecord(orgId, bytes);
    // A malformed record is the audit's finding; history shows what the key says.
    entries.push({
      state: mark.state,
      snapshotId: null,
      publishedAt: typeof record === 'string' ? mark.at.toISOString() : record.publishedAt,
      trigger: typeof record === 'string' ? 'manual' : record.trigger,
      current: mark === newestMark && pointer?.state === mark.state,
    });
  }
  const rank = (entry: HistoryEntry) => ('state' in entry ? 0 : 1);
  return entries.sort((a, b) => b.publishedAt.localeCompare(a.publishedAt) || rank(a) - rank(b));
}

interface ResourceChanges {
  /** The resource path, below /api/integration/v1. */
  path: string;
  /** RFC 6902; applied to the old resource in order, gives the new one. */
  patch: Operation[];
  /** The same changes for people: labels such as `team[id=…].role`. */
  changes: FieldChange[];
}

export interface SnapshotDiff {
  added: string[];
  removed: string[];
  changed: ResourceChanges[];
}

export async function diffSnapshots(store: SnapshotStore, orgId: string, from: string, to: string): Promise<SnapshotDiff> {
  const [before, after] = await Promise.all([loadManifest(store, orgId, from), loadManifest(store, orgId, to)]);
  const paths = (m: Manifest) => Object.keys(m.resources);
  const added = paths(after)
    .filter((p) => !(p in before.resources))
    .sort();
  const removed = paths(before)
    .filter((p) => !(p in after.resources))
    .sort();
  const changed: ResourceChanges[] = [];
  for (const path of paths(after)
    .filter((p) => p in before.resources)
    .sort()) {
    const [a, b] = [before.resources[path]!, after.resources[path]!];
    if (a === b) continue;
    const [left, right] = await Promise.all([loadObject(store, orgId, a), loadObject(store, orgId, b)]);
    const diff = diffResource(left, right, path.slice(1));
    changed.push({ path, patch: diff.patch, changes: diff.changes });
  }
  return { added, removed, changed };
}

async function loadManifest(store: SnapshotStore, orgId: string, snapshotId: string): Promise<Manifest> {
  let id = snapshotId;
  if (id === 'current') {
    const pointer = await readPointer(store, orgId);
    if (!pointer?.snapshotId) throw new SnapshotNotFoundError(`organization ${orgId} has no current snapshot`);
    id = pointer.snapshotId;
  }
  const manifest = await readManifest(store, orgId, id);
  if (!manifest) throw new SnapshotNotFoundError(`organization ${orgId} has no snapshot ${snapshotId}`);
  return manifest;
}

async function loadObject(store: SnapshotStore, orgId: string, hash: string): Promise<unknown> {
  const bytes = await readObjectBytes(store, orgId, hash);
  if (!bytes) throw new SnapshotNotFoundError(`object ${hash} of organization ${orgId} is missing`);
  return JSON.parse(bytes.toString('utf8'));
}
