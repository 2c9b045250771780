// Where things live in the snapshot store (docs/design.md "Store layout"). The resource paths a
// manifest maps to object hashes are the resource catalog's (snapshot/resource-catalog.ts).
import { CODING_SUFFIX, CODINGS, type Coding } from './codings.ts';

export const pointerKey = (orgId: string): string => `orgs/${orgId}/current.json`;
/** The pointer is the one key whose object is ever replaced; everything else is written once. */
export const isPointerKey = (key: string): boolean => /^orgs\/[^/]+\/current\.json$/.test(key);
export const manifestKey = (orgId: string, snapshotId: string): string => `orgs/${orgId}/snapshots/${snapshotId}.json`;
export const manifestPrefix = (orgId: string): string => `orgs/${orgId}/snapshots/`;
export const objectKey = (orgId: string, hash: string): string => `orgs/${orgId}/objects/${hash}.json`;
export const objectPrefix = (orgId: string): string => `orgs/${orgId}/objects/`;
/**
 * An object's form in a content coding, beside its JSON and named by the same hash (the JSON's):
 * `{hash}.json.br`, `{hash}.json.gz`, as static file servers look for them (snapshot/codings.ts).
 */
export const codedObjectKey = (orgId: string, hash: string, coding: Coding): string => `${objectKey(orgId, hash)}${CODING_SUFFIX[coding]}`;

/** The hash and coding (undefined: the JSON itself) of a key listed under objectPrefix; undefined for a name of no object. */
export function objectOfName(name: string): { hash: string; coding: Coding | undefined } | undefined {
  const match = /^([0-9a-f]{64})\.json(\.br|\.gz)?$/.exec(name);
  if (match === null) return undefined;
  const coding = match[2] === undefined ? undefined : CODINGS.find((candidate) => CODING_SUFFIX[candidate] === match[2]);
  return { hash: match[1]!, coding };
}
/**
 * State records (snapshot/state-records.ts): one per change of an organization's state, written
 * once, named by instant and state so that they sort by time. Only history and audit read them;
 * the gateway serves from pointer → manifest → objects alone.
 */
export const stateRecordKey = (orgId: string, at: Date, state: string): string => `orgs/${orgId}/states/${basicInstant(at)}-${state}.json`;
export const stateRecordPrefix = (orgId: string): string => `orgs/${orgId}/states/`;
/** `{instant}-{state}`: a state record's name, as its key ends (stateRecordKey) and the publication log names it. */
export const stateRecordName = (key: string): string => key.slice(key.lastIndexOf('/') + 1, -'.json'.length);
export const ORGS_PREFIX = 'orgs/';

/**
 * Snapshot ids sort by time: UTC basic format with milliseconds, then the first 12 hex digits of
 * the content hash so that two builds in the same millisecond cannot collide.
 */
export function newSnapshotId(at: Date, contentHash: string): string {
  return `${basicInstant(at)}-${contentHash.slice(0, 12)}`;
}

/** A snapshot id's form, unanchored, for the schemas that check one in a request (admin/api-routes.ts). */
export const SNAPSHOT_ID_FORM = '\\d{8}T\\d{9}Z-[0-9a-f]{12}';
const SNAPSHOT_ID = new RegExp(`^${SNAPSHOT_ID_FORM}$`);

/** Whether `text` has the form newSnapshotId gives (a pointer's, a pin's, a `since`). */
export function isSnapshotId(text: string): boolean {
  return SNAPSHOT_ID.test(text);
}

/** `20261121T100000000Z`: UTC, milliseconds, no separators; sorts as the instant does. */
const basicInstant = (at: Date): string => at.toISOString().replace(/[-:]/g, '').replace('.', '');

/** The instant a snapshot id or state record name begins with; undefined when it begins with none. */
export function instantOfName(name: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z/.exec(name);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, ms] = match;
  const at = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (text: string): boolean => UUID.test(text);
