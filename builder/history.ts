// Snapshot history for auditors: the list of an organization's manifests, and what changed
// between any two of them as RFC 6902 patches.
import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { OperatorError } from '../snapshot/errors.ts';
import type { Manifest } from '../snapshot/manifest.ts';
import { listSnapshotIds, readManifest, readObjectBytes, readPointer } from '../snapshot/reader.ts';
import type { SnapshotStore } from '../snapshot/store.ts';

export interface HistoryEntry {
  snapshotId: string;
  publishedAt: string;
  trigger: Manifest['trigger'];
  /** Number of resources in the snapshot. */
  resources: number;
  current: boolean;
}

/** `history`/`diff` of a snapshot (or object) that is not in the store. */
class SnapshotNotFoundError extends OperatorError {
  override name = 'SnapshotNotFoundError';
}

/** Newest first. */
export async function snapshotHistory(store: SnapshotStore, orgId: string): Promise<HistoryEntry[]> {
  const [ids, pointer] = await Promise.all([listSnapshotIds(store, orgId), readPointer(store, orgId)]);
  const entries: HistoryEntry[] = [];
  for (const id of ids.reverse()) {
    const manifest = await readManifest(store, orgId, id);
    if (!manifest) continue;
    entries.push({
      snapshotId: id,
      publishedAt: manifest.publishedAt,
      trigger: manifest.trigger,
      resources: Object.keys(manifest.resources).length,
      current: pointer?.snapshotId === id,
    });
  }
  return entries;
}

export interface SnapshotDiff {
  added: string[];
  removed: string[];
  changed: Array<{ path: string; patch: Operation[] }>;
}

/** `current` stands for the snapshot the pointer names. */
export async function diffSnapshots(store: SnapshotStore, orgId: string, from: string, to: string): Promise<SnapshotDiff> {
  const [before, after] = await Promise.all([loadManifest(store, orgId, from), loadManifest(store, orgId, to)]);
  const paths = (m: Manifest) => Object.keys(m.resources);
  const added = paths(after)
    .filter((p) => !(p in before.resources))
    .sort();
  const removed = paths(before)
    .filter((p) => !(p in after.resources))
    .sort();
  const changed: SnapshotDiff['changed'] = [];
  for (const path of paths(after)
    .filter((p) => p in before.resources)
    .sort()) {
    const [a, b] = [before.resources[path]!, after.resources[path]!];
    if (a === b) continue;
    const [left, right] = await Promise.all([loadObject(store, orgId, a), loadObject(store, orgId, b)]);
    changed.push({ path, patch: fastJsonPatch.compare(left as object, right as object) });
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
