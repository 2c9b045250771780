// Retention (DESIGN.md "Store layout"): keep the newest N manifests per organization (and always
// the current one), then delete objects no retained manifest references, and leftovers of
// interrupted writes.
import { manifestKey, objectKey, objectPrefix, ORGS_PREFIX } from '../snapshot/layout.ts';
import { listSnapshotIds, readManifest, readPointer } from '../snapshot/reader.ts';
import type { SnapshotStore } from '../snapshot/store.ts';

export const DEFAULT_KEEP = 50;

export interface RetentionReport {
  organizations: number;
  manifestsDeleted: number;
  objectsDeleted: number;
}

export async function applyRetention(store: SnapshotStore, keep = DEFAULT_KEEP): Promise<RetentionReport> {
  if (!Number.isInteger(keep) || keep < 1) throw new RangeError(`--keep must be a whole number ≥ 1, got ${keep}`);
  const report: RetentionReport = { organizations: 0, manifestsDeleted: 0, objectsDeleted: 0 };
  for (const orgId of await organizationsInStore(store)) {
    report.organizations++;
    const pointer = await readPointer(store, orgId);
    const ids = await listSnapshotIds(store, orgId);
    const retained = new Set(ids.slice(-keep));
    if (pointer?.snapshotId) retained.add(pointer.snapshotId);
    const referenced = new Set<string>();
    for (const id of retained) {
      const manifest = await readManifest(store, orgId, id);
      for (const hash of Object.values(manifest?.resources ?? {})) referenced.add(hash);
    }
    // Manifests go first: a manifest never outlives the objects it names.
    for (const id of ids.filter((id) => !retained.has(id))) {
      await store.delete(manifestKey(orgId, id));
      report.manifestsDeleted++;
    }
    const prefix = objectPrefix(orgId);
    for (const key of await store.list(prefix)) {
      const hash = key.slice(prefix.length, -'.json'.length);
      if (!referenced.has(hash)) {
        await store.delete(objectKey(orgId, hash));
        report.objectsDeleted++;
      }
    }
  }
  return report;
}

async function organizationsInStore(store: SnapshotStore): Promise<string[]> {
  const ids = new Set<string>();
  for (const key of await store.list(ORGS_PREFIX)) {
    const id = key.split('/')[1];
    if (id) ids.add(id);
  }
  return [...ids].sort();
}
