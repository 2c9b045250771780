// Retention (docs/design.md "Store layout"): which snapshots and state records an organization
// keeps, then the deletion of the rest, of objects no retained manifest references, and of
// leftovers of interrupted writes. `gc` runs it over the store; a build runs it for one
// organization after a publish (builder/build.ts).
//
// Kept: every snapshot younger than `days` (an auditor's evidence), at least the newest `keep`,
// the current one, and any snapshot that stopped being current less than the grace period ago
// (a gateway may still hold its manifest and load its objects). State records by the same rule
// of age and count, and always the newest (it says what the organization's state is).
//
// Objects younger than the grace period are spared even when unreferenced: a build publishing
// right now has written its objects but not yet the manifest that names them, and deleting those
// would leave its snapshot pointing at missing objects. Publish writes again every object the
// latest manifest does not name (builder/publish.ts), which makes it young. So gc may run beside
// running builders and gateways. An object's coded forms (`{hash}.json.br`, `.json.gz`) are part
// of it: kept, spared and deleted with its JSON, and counted with it as one object.
//
// With the publication log (records/publication-log/), the manifests and state records retention
// deletes are appended to it as removals ('retention'), one append per organization, before the
// first of them is deleted: the log never lacks a removal that happened. An append that fails
// deletes nothing of the organization's documents (the next run tries again).
import type { LogRecord } from '../records/publication-log/log-entry.ts';
import type { PublicationLog } from '../records/publication-log/log-store.ts';
import { sha256Hex } from '../snapshot/hash.ts';
import { instantOfName, manifestKey, objectPrefix, stateRecordName } from '../snapshot/layout.ts';
import type { Pointer } from '../snapshot/manifest.ts';
import { listOrganizationIds, listSnapshotIds, readManifest, readPointer } from '../snapshot/reader.ts';
import { listStateMarks, type StateMark } from '../snapshot/state-records.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { type ObjectFiles, objectFiles } from './object-files.ts';

export const DEFAULT_KEEP = 50;
/** Every snapshot younger than this many days is kept, however many there are: an auditor's evidence. */
export const DEFAULT_RETENTION_DAYS = 90;
/** Far longer than any one organization's publish takes, or than a gateway holds a replaced manifest. */
export const DEFAULT_GRACE_MINUTES = 60;

export interface RetentionPolicy {
  /** The newest this many snapshots (and state records) are kept whatever their age; ≥ 1. */
  keep: number;
  /** Everything younger than this many days is kept; 0: age keeps nothing. */
  days: number;
  graceMinutes: number;
  now: Date;
}

export interface RetentionOptions extends Partial<RetentionPolicy> {
  /** Report what would be deleted, delete nothing. */
  dryRun?: boolean;
  /** Where removals are logged before they are made; absent: not logged (a store without its platform database). */
  publicationLog?: PublicationLog;
}

/** What retention deleted (or, in a dry run, would delete) of one organization. */
export interface OrganizationRetention {
  organizationId: string;
  /** Snapshot ids, oldest first. */
  snapshots: string[];
  /** State record keys, oldest first. */
  stateRecords: string[];
  objects: number;
  /** Unreferenced, but younger than the grace period. */
  objectsSpared: number;
}

export interface RetentionReport {
  dryRun: boolean;
  organizations: number;
  manifestsDeleted: number;
  stateRecordsDeleted: number;
  objectsDeleted: number;
  objectsSpared: number;
  /** null in a dry run: leftovers of interrupted writes are not looked for then. */
  interruptedWritesDeleted: number | null;
  /** Organizations with something to delete. */
  deleted: OrganizationRetention[];
}

export function retentionPolicy(options: Partial<RetentionPolicy>): RetentionPolicy {
  const policy = {
    keep: options.keep ?? DEFAULT_KEEP,
    days: options.days ?? DEFAULT_RETENTION_DAYS,
    graceMinutes: options.graceMinutes ?? DEFAULT_GRACE_MINUTES,
    now: options.now ?? new Date(),
  };
  if (!Number.isInteger(policy.keep) || policy.keep < 1) throw new RangeError(`--keep must be a whole number ≥ 1, got ${policy.keep}`);
  if (!Number.isFinite(policy.days) || policy.days < 0) throw new RangeError(`--days must be ≥ 0, got ${policy.days}`);
  if (!Number.isFinite(policy.graceMinutes) || policy.graceMinutes < 0) throw new RangeError(`--grace-minutes must be ≥ 0, got ${policy.graceMinutes}`);
  return policy;
}

export async function applyRetention(store: SnapshotStore, options: RetentionOptions = {}): Promise<RetentionReport> {
  const policy = retentionPolicy(options);
  const dryRun = options.dryRun ?? false;
  const report: RetentionReport = {
    dryRun,
    organizations: 0,
    manifestsDeleted: 0,
    stateRecordsDeleted: 0,
    objectsDeleted: 0,
    objectsSpared: 0,
    interruptedWritesDeleted: null,
    deleted: [],
  };
  for (const orgId of await listOrganizationIds(store)) {
    report.organizations++;
    const result = await retainOrganization(store, orgId, policy, dryRun, options.publicationLog);
    report.manifestsDeleted += result.snapshots.length;
    report.stateRecordsDeleted += result.stateRecords.length;
    report.objectsDeleted += result.objects;
    report.objectsSpared += result.objectsSpared;
    if (result.snapshots.length + result.stateRecords.length + result.objects > 0) report.deleted.push(result);
  }
  if (!dryRun) report.interruptedWritesDeleted = await store.sweepInterrupted(graceCutoff(policy));
  return report;
}

/** Retention of one organization; `dryRun` deletes nothing and reports the same. */
export async function retainOrganization(store: SnapshotStore, orgId: string, policy: RetentionPolicy, dryRun = false, log?: PublicationLog): Promise<OrganizationRetention> {
  const [pointer, ids, marks] = await Promise.all([readPointer(store, orgId), listSnapshotIds(store, orgId), listStateMarks(store, orgId)]);
  const retained = retainedSnapshots(ids, marks, pointer, policy);
  const result: OrganizationRetention = {
    organizationId: orgId,
    snapshots: ids.filter((id) => !retained.has(id)),
    stateRecords: deletableStateRecords(marks, policy).map((mark) => mark.key),
    objects: 0,
    objectsSpared: 0,
  };
  const referenced = new Set<string>();
  for (const id of retained) {
    const manifest = await readManifest(store, orgId, id);
    for (const hash of Object.values(manifest?.resources ?? {})) referenced.add(hash);
  }
  if (!dryRun && log !== undefined) await logRemovals(store, log, orgId, result);
  // Manifests go first: a manifest never outlives the objects it names.
  if (!dryRun) for (const id of result.snapshots) await store.delete(manifestKey(orgId, id));
  if (!dryRun) for (const key of result.stateRecords) await store.delete(key);
  const cutoff = graceCutoff(policy);
  for (const [hash, files] of objectFiles(orgId, await store.list(objectPrefix(orgId)))) {
    if (referenced.has(hash)) continue;
    const written = await writtenAt(store, files);
    if (written !== undefined && written >= cutoff) {
      result.objectsSpared++;
      continue;
    }
    // The coded forms first: retention killed in between leaves the JSON without them, as a killed
    // publish does, never a coded form without its JSON (an audit finding).
    if (!dryRun) for (const key of [...files.coded.map((form) => form.key), ...(files.json === undefined ? [] : [files.json])]) await store.delete(key);
    result.objects++;
  }
  return result;
}

/**
 * When the object was written: its JSON's time, since a publish writes the JSON first and its coded
 * forms right after (a publish under way has made it young); without a JSON, its newest coded form's.
 * Undefined when it is gone since the listing.
 */
async function writtenAt(store: SnapshotStore, files: ObjectFiles): Promise<Date | undefined> {
  if (files.json !== undefined) return store.modifiedAt(files.json);
  let newest: Date | undefined;
  for (const { key } of files.coded) {
    const at = await store.modifiedAt(key);
    if (at !== undefined && (newest === undefined || at > newest)) newest = at;
  }
  return newest;
}

/**
 * One append of the removals of `result`'s manifests and state records, each with the SHA-256 of
 * its bytes as stored (what its publication was logged with). One already gone (another gc) is
 * left out of both: there is nothing of it to remove.
 */
async function logRemovals(store: SnapshotStore, log: PublicationLog, orgId: string, result: OrganizationRetention): Promise<void> {
  const removals: LogRecord[] = [];
  const present = async (key: string) => {
    const bytes = await store.get(key);
    return bytes === undefined ? undefined : sha256Hex(bytes);
  };
  const snapshots: string[] = [];
  for (const id of result.snapshots) {
    const hash = await present(manifestKey(orgId, id));
    if (hash === undefined) continue;
    snapshots.push(id);
    removals.push({ kind: 'removal', organizationId: orgId, removed: 'manifest', reason: 'retention', id, hash });
  }
  const stateRecords: string[] = [];
  for (const key of result.stateRecords) {
    const hash = await present(key);
    if (hash === undefined) continue;
    stateRecords.push(key);
    removals.push({ kind: 'removal', organizationId: orgId, removed: 'state-record', reason: 'retention', id: stateRecordName(key), hash });
  }
  await log.append(removals);
  result.snapshots = snapshots;
  result.stateRecords = stateRecords;
}

/**
 * Whether retention could delete any of an organization's snapshots: more than `keep`, and the
 * oldest older than `days`. One listing and no reads: the test a build makes after each publish.
 */
export async function retentionMayDelete(store: SnapshotStore, orgId: string, policy: RetentionPolicy): Promise<boolean> {
  const ids = await listSnapshotIds(store, orgId);
  const oldest = ids[0] === undefined ? undefined : instantOfName(ids[0]);
  return ids.length > policy.keep && oldest !== undefined && oldest.getTime() < ageCutoff(policy);
}

/**
 * The snapshot ids (oldest first) an organization keeps: pure. A snapshot stopped being current
 * when the next snapshot, or a suspension or closure, after it was published.
 */
export function retainedSnapshots(ids: readonly string[], marks: readonly StateMark[], pointer: Pointer | undefined, policy: RetentionPolicy): Set<string> {
  const retained = new Set(ids.slice(-policy.keep));
  if (pointer?.snapshotId) retained.add(pointer.snapshotId);
  const young = ageCutoff(policy);
  const grace = graceCutoff(policy).getTime();
  const instants = ids.map((id) => instantOfName(id)?.getTime());
  for (const [index, id] of ids.entries()) {
    const at = instants[index];
    // A name without an instant is kept: retention deletes only what it understands.
    if (at === undefined || at >= young) {
      retained.add(id);
      continue;
    }
    const nextSnapshot = instants[index + 1] ?? Infinity;
    const nextState = marks.find((mark) => mark.state !== 'active' && mark.at.getTime() > at)?.at.getTime() ?? Infinity;
    const replacedAt = Math.min(nextSnapshot, nextState);
    if (replacedAt >= grace) retained.add(id);
  }
  return retained;
}

/** The state records (oldest first) retention deletes: older than `days`, not among the newest `keep`, never the newest. */
export function deletableStateRecords(marks: readonly StateMark[], policy: RetentionPolicy): StateMark[] {
  const young = ageCutoff(policy);
  return marks.slice(0, Math.max(0, marks.length - policy.keep)).filter((mark) => mark.at.getTime() < young);
}

const ageCutoff = (policy: RetentionPolicy): number => policy.now.getTime() - policy.days * 86_400_000;
const graceCutoff = (policy: RetentionPolicy): Date => new Date(policy.now.getTime() - policy.graceMinutes * 60_000);
