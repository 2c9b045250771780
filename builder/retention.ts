// Retention (docs/design.md "Store layout"): keep the newest N manifests per organization (and always
// the current one), then delete objects no retained manifest references, and leftovers of
// interrupted writes.
//
// Objects younger than the grace period are spared even when unreferenced: a build publishing
// right now has written its objects but not yet the manifest that names them, and deleting those
// would leave its snapshot pointing at missing objects. So gc may run beside a running builder.
import { manifestKey, objectKey, objectPrefix } from '../snapshot/layout.ts';
import { listOrganizationIds, listSnapshotIds, readManifest, readPointer } from '../snapshot/reader.ts';
import type { SnapshotStore } from '../snapshot/store.ts';

export const DEFAULT_KEEP = 50;
/** Every snapshot younger than this many days is kept, however many there are: an auditor's evidence. */
export const DEFAULT_RETENTION_DAYS = 90;
/** Far longer than any one organization's publish takes. */
export const DEFAULT_GRACE_MINUTES = 60;

export interface RetentionOptions {
  keep?: number;
  graceMinutes?: number;
  now?: Date;
}

export interface RetentionReport {
  organizations: number;
  manifestsDeleted: number;
  objectsDeleted: number;
  /** Unreferenced, but younger than the grace period. */
  objectsSpared: number;
  interruptedWritesDeleted: number;
}

export async function applyRetention(store: SnapshotStore, options: RetentionOptions = {}): Promise<RetentionReport> {
  const keep = options.keep ?? DEFAULT_KEEP;
  const graceMinutes = options.graceMinutes ?? DEFAULT_GRACE_MINUTES;
  if (!Number.isInteger(keep) || keep < 1) throw new RangeError(`--keep must be a whole number ≥ 1, got ${keep}`);
  if (!Number.isFinite(graceMinutes) || graceMinutes < 0) throw new RangeError(`--grace-minutes must be ≥ 0, got ${graceMinutes}`);
  const cutoff = new Date((options.now ?? new Date()).getTime() - graceMinutes * 60_000);
  const report: RetentionReport = { organizations: 0, manifestsDeleted: 0, objectsDeleted: 0, objectsSpared: 0, interruptedWritesDeleted: 0 };
  for (const orgId of await listOrganizationIds(store)) {
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
      if (referenced.has(hash)) continue;
      const written = await store.modifiedAt(key);
      if (written !== undefined && written >= cutoff) {
        report.objectsSpared++;
        continue;
      }
      await store.delete(objectKey(orgId, hash));
      report.objectsDeleted++;
    }
  }
  report.interruptedWritesDeleted = await store.sweepInterrupted(cutoff);
  return report;
}
