// One entry of the publication log (docs/design.md "History as evidence"): what a leaf records and its
// exact bytes. Every manifest and state record a builder publishes is appended before a pointer
// names it, every one retention removes is appended as a removal, and the audit trail's head is
// appended from time to time, so one checkpoint of the log covers the published history and the
// trail at once. Pure: the relation (log-store.ts) stores these bytes, any verifier recomputes them.
//
// The leaf's bytes are the entry's canonical JSON (RFC 8785: members sorted, no whitespace, UTF-8),
// and nothing else: no length prefix, no version byte. Each kind has exactly the members below, no
// optional one, so an entry has one form and one hash. Every member is ASCII (the checks below), so
// the bytes are the characters. For example, a manifest:
//
//   {"at":"2026-11-26T10:00:00.123Z","hash":"9f86…0f00a08","id":"20261126T100000000Z-0123456789ab","kind":"manifest","organizationId":"5b6d…"}
//
// Members:
//   kind            'manifest' | 'state-record' | 'removal' | 'trail-head'.
//   organizationId  The organization whose store prefix (orgs/{organizationId}/) holds the object;
//                   every kind but 'trail-head', which belongs to no organization.
//   removed         'removal' only: what was removed, 'manifest' or 'state-record'.
//   reason          'removal' only: why. 'retention': retention (gc, or a build's retention after
//                   a publish) deleted a document that was published; 'withdrawn': a publish
//                   deleted the manifest it had just logged because another publish won the
//                   pointer, so it never was current (builder/publish.ts).
//   id              Names the object within the kind:
//                     manifest      its snapshot id: orgs/{organizationId}/snapshots/{id}.json;
//                     state-record  its name: orgs/{organizationId}/states/{id}.json;
//                     removal       the removed object's id, as its own entry gave it;
//                     trail-head    the audit trail head's seq, in decimal (records/trail/).
//   hash            Lowercase hex SHA-256: of the object's bytes as stored (manifest, state-record;
//                   for a removal, of the bytes removed, the hash their publication was logged
//                   with); of the trail's head entry, its `hash` (trail-head).
//   at              When the log recorded the entry: ISO 8601, UTC, milliseconds. The document's
//                   own instant (publishedAt) is inside the document, which `hash` covers.
import { canonicalJson } from '../../snapshot/canonical.ts';
import { isSnapshotId, manifestPrefix, stateRecordPrefix } from '../../snapshot/layout.ts';

const LOG_ENTRY_KINDS = ['manifest', 'state-record', 'removal', 'trail-head'] as const;
type LogEntryKind = (typeof LOG_ENTRY_KINDS)[number];

/** What a removal may remove: the published documents, never the content objects (a manifest commits to those). */
const REMOVABLE_KINDS = ['manifest', 'state-record'] as const;
type RemovableKind = (typeof REMOVABLE_KINDS)[number];

/** Why a document was removed: retention's pruning of history, or a publish withdrawing its own manifest that never became current. */
const REMOVAL_REASONS = ['retention', 'withdrawn'] as const;
type RemovalReason = (typeof REMOVAL_REASONS)[number];

interface ManifestEntry {
  readonly kind: 'manifest';
  readonly organizationId: string;
  readonly id: string;
  readonly hash: string;
  readonly at: string;
}

interface StateRecordEntry {
  readonly kind: 'state-record';
  readonly organizationId: string;
  readonly id: string;
  readonly hash: string;
  readonly at: string;
}

interface RemovalEntry {
  readonly kind: 'removal';
  readonly organizationId: string;
  readonly removed: RemovableKind;
  readonly reason: RemovalReason;
  readonly id: string;
  readonly hash: string;
  readonly at: string;
}

interface TrailHeadEntry {
  readonly kind: 'trail-head';
  readonly id: string;
  readonly hash: string;
  readonly at: string;
}

export type LogEntry = ManifestEntry | StateRecordEntry | RemovalEntry | TrailHeadEntry;

/** What a caller hands to the log: an entry without its instant, which the log gives when it appends. */
export type LogRecord = Omit<ManifestEntry, 'at'> | Omit<StateRecordEntry, 'at'> | Omit<RemovalEntry, 'at'> | Omit<TrailHeadEntry, 'at'>;

/** Each kind's members, exactly: a leaf with one more or one fewer is not an entry. */
const MEMBERS: Record<LogEntryKind, readonly string[]> = {
  manifest: ['at', 'hash', 'id', 'kind', 'organizationId'],
  'state-record': ['at', 'hash', 'id', 'kind', 'organizationId'],
  removal: ['at', 'hash', 'id', 'kind', 'organizationId', 'reason', 'removed'],
  'trail-head': ['at', 'hash', 'id', 'kind'],
};

const HASH = /^[0-9a-f]{64}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** One path segment of the store's keys: no slash, nothing a key could not hold. */
const ORGANIZATION_ID = /^[0-9A-Za-z][0-9A-Za-z._-]{0,127}$/;
/** stateRecordKey's name: the instant, then the state. */
const STATE_RECORD_ID = /^\d{8}T\d{9}Z-(active|suspended|closed)$/;
/** The trail numbers its entries from 1. */
const TRAIL_SEQ = /^[1-9]\d{0,15}$/;

/** What is wrong with `entry`, or undefined when it is a well-formed entry. */
function problemOf(entry: Record<string, unknown>): string | undefined {
  const kind = entry.kind as LogEntryKind;
  if (!LOG_ENTRY_KINDS.includes(kind)) return `kind must be one of ${LOG_ENTRY_KINDS.join(', ')}, got ${JSON.stringify(entry.kind)}`;
  const members = Object.keys(entry).sort();
  const expected = MEMBERS[kind];
  if (members.length !== expected.length || members.some((name, position) => name !== expected[position])) {
    return `a ${kind} entry has exactly the members ${expected.join(', ')}, got ${members.join(', ')}`;
  }
  if (typeof entry.hash !== 'string' || !HASH.test(entry.hash)) return 'hash must be 64 lowercase hex digits';
  if (typeof entry.at !== 'string' || !INSTANT.test(entry.at) || new Date(entry.at).toISOString() !== entry.at) return 'at must be an ISO 8601 UTC instant with milliseconds';
  if (kind !== 'trail-head' && (typeof entry.organizationId !== 'string' || !ORGANIZATION_ID.test(entry.organizationId))) {
    return `organizationId must be a store path segment, got ${JSON.stringify(entry.organizationId)}`;
  }
  const idKind = kind === 'removal' ? (entry.removed as RemovableKind) : kind;
  if (kind === 'removal' && !REMOVABLE_KINDS.includes(idKind as RemovableKind)) return `removed must be one of ${REMOVABLE_KINDS.join(', ')}, got ${JSON.stringify(entry.removed)}`;
  if (kind === 'removal' && !REMOVAL_REASONS.includes(entry.reason as RemovalReason))
    return `reason must be one of ${REMOVAL_REASONS.join(', ')}, got ${JSON.stringify(entry.reason)}`;
  const id = typeof entry.id === 'string' ? entry.id : '';
  switch (idKind) {
    case 'manifest':
      return isSnapshotId(id) ? undefined : `id must be a snapshot id, got ${JSON.stringify(entry.id)}`;
    case 'state-record':
      return STATE_RECORD_ID.test(id) ? undefined : `id must be a state record's name ({instant}-{state}), got ${JSON.stringify(entry.id)}`;
    default:
      return TRAIL_SEQ.test(id) && Number.isSafeInteger(Number(id)) ? undefined : `id must be the trail head's seq in decimal, got ${JSON.stringify(entry.id)}`;
  }
}

/** The entry `record` makes when the log records it at `at`; throws when a member is not as documented. */
export function logEntry(record: LogRecord, at: Date): LogEntry {
  const entry = { ...record, at: at.toISOString() } as LogEntry;
  const problem = problemOf(entry as unknown as Record<string, unknown>);
  if (problem !== undefined) throw new RangeError(`not a publication log entry: ${problem}`);
  return entry;
}

/** The leaf: the entry's canonical JSON, UTF-8. */
export function leafBytes(entry: LogEntry): Buffer {
  return Buffer.from(canonicalJson(entry), 'utf8');
}

/** The entry a leaf's bytes hold, checked member by member and byte for byte; a string saying what is wrong otherwise. */
export function parseLeaf(bytes: Uint8Array): LogEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return 'not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const problem = problemOf(value as Record<string, unknown>);
  if (problem !== undefined) return problem;
  // Another spelling of the same members (spaces, another order, escapes) would be another leaf hash.
  if (!leafBytes(value as LogEntry).equals(Buffer.from(bytes))) return 'not in canonical form';
  return value as LogEntry;
}

/** The organization an entry belongs to; null for the trail's head. */
export const organizationOf = (entry: LogEntry | LogRecord): string | null => (entry.kind === 'trail-head' ? null : entry.organizationId);

/** The store key of the object an entry names; undefined for the trail's head (its heads live under audit/heads/). */
export function storeKeyOf(entry: LogEntry): string | undefined {
  if (entry.kind === 'trail-head') return undefined;
  const kind = entry.kind === 'removal' ? entry.removed : entry.kind;
  return kind === 'manifest' ? `${manifestPrefix(entry.organizationId)}${entry.id}.json` : `${stateRecordPrefix(entry.organizationId)}${entry.id}.json`;
}
