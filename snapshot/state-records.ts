// State records and the timeline: when an organization was suspended, closed or reactivated, and
// which snapshot and state were current at any instant. A state record is a small write-once JSON
// object at orgs/{id}/states/{instant}-{state}.json that publish writes after the pointer's state
// changed (builder/publish.ts). The snapshot format and the pointer are unchanged: the gateway
// serves from pointer → manifest → objects and never reads these; history, audit, retention and
// the as-of answers (gateway/as-of.ts) do.
import { contentObject } from './hash.ts';
import { instantOfName, stateRecordPrefix } from './layout.ts';
import { ORGANIZATION_STATES, SNAPSHOT_FORMAT, type BuildTrigger, type OrganizationState, type Pointer } from './manifest.ts';
import type { ListableSource } from './reader.ts';
import type { Signature } from './signing.ts';

export interface StateRecord {
  format: typeof SNAPSHOT_FORMAT;
  organizationId: string;
  /** The state from `publishedAt` on; 'active' is a reactivation. */
  state: OrganizationState;
  /** The state before; null when the organization had no pointer yet. */
  previousState: OrganizationState | null;
  publishedAt: string;
  trigger: BuildTrigger;
  /** The hash of the organization's previous state record's bytes (null for its first); absent in records from before chaining. */
  previous?: string | null;
  /** By the builders' signing key (snapshot/signing.ts); absent before signing or with SNAPSHOT_SIGNING_KEY=none. */
  signature?: Signature;
}

export function serializeStateRecord(record: StateRecord): Buffer {
  return contentObject(record).bytes;
}

/** A record's bytes checked field by field; a string saying what is wrong when they are not one of `orgId`'s records. */
export function parseStateRecord(orgId: string, bytes: Uint8Array): StateRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return 'not JSON';
  }
  const record = (typeof value === 'object' && value !== null ? value : {}) as Partial<Record<keyof StateRecord, unknown>>;
  if (record.format !== SNAPSHOT_FORMAT) return `format is not ${SNAPSHOT_FORMAT}`;
  if (record.organizationId !== orgId) return 'it names another organization';
  if (!ORGANIZATION_STATES.includes(record.state as OrganizationState)) return 'unknown state';
  if (!(record.previousState === null || ORGANIZATION_STATES.includes(record.previousState as OrganizationState))) return 'unknown previousState';
  if (typeof record.publishedAt !== 'string' || Number.isNaN(Date.parse(record.publishedAt))) return 'no publishedAt';
  if (typeof record.trigger !== 'string') return 'no trigger';
  return record as StateRecord;
}

/** What a record's key says, without reading it: enough for the timeline. */
export interface StateMark {
  key: string;
  at: Date;
  state: OrganizationState;
}

/** The organization's state records by their keys, oldest first; keys that are not records are left out (audit reports them). */
export async function listStateMarks(store: ListableSource, orgId: string): Promise<StateMark[]> {
  const prefix = stateRecordPrefix(orgId);
  const marks: StateMark[] = [];
  for (const key of await store.list(prefix)) {
    const mark = stateMarkOf(key.slice(prefix.length), key);
    if (mark !== undefined) marks.push(mark);
  }
  return marks.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** `{instant}-{state}.json` → its instant and state; undefined for any other name. */
export function stateMarkOf(name: string, key: string): StateMark | undefined {
  const match = /^(\d{8}T\d{9}Z)-([a-z]+)\.json$/.exec(name);
  const at = match ? instantOfName(match[1]!) : undefined;
  const state = match?.[2] as OrganizationState | undefined;
  if (at === undefined || state === undefined || !ORGANIZATION_STATES.includes(state)) return undefined;
  return { key, at, state };
}

/** What was current at one instant. */
export type CurrentThen =
  /** Nothing had been published, or the snapshot then is no longer retained. */
  { state: null; snapshotId: null } | { state: 'suspended' | 'closed'; snapshotId: null } | { state: 'active'; snapshotId: string };

/**
 * The state and snapshot current at `at`: the newest state record at or before it decides the
 * state (the pointer counts as one when it is not active, for organizations suspended before
 * state records were written), and while active, the newest snapshot published at or before it.
 * Pure; `snapshotIds` oldest first (they sort by time).
 */
export function currentAt(at: Date, snapshotIds: readonly string[], marks: readonly StateMark[], pointer: Pointer | undefined): CurrentThen {
  const time = at.getTime();
  const all = [...marks];
  if (pointer !== undefined && pointer.state !== 'active') all.push({ key: '', at: new Date(pointer.publishedAt), state: pointer.state });
  let state: OrganizationState | undefined;
  let stateAt = -Infinity;
  for (const mark of all) {
    const markAt = mark.at.getTime();
    if (markAt <= time && markAt >= stateAt) [state, stateAt] = [mark.state, markAt];
  }
  if (state === 'suspended' || state === 'closed') return { state, snapshotId: null };
  let snapshotId: string | undefined;
  for (const id of snapshotIds) {
    const publishedAt = instantOfName(id);
    if (publishedAt !== undefined && publishedAt.getTime() <= time) snapshotId = id;
  }
  return snapshotId === undefined ? { state: null, snapshotId: null } : { state: 'active', snapshotId };
}
