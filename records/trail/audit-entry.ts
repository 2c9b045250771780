// One entry of the audit trail (docs/design.md "The audit trail"): what it records, its canonical form
// and its hash. Pure: the relation (audit-trail.ts) stores what this computes, the checker
// (audit-verify.ts) recomputes it. Each entry's hash covers its predecessor's, as a git commit names
// its parent: an edit or a removal anywhere changes every hash after it.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../snapshot/canonical.ts';
import type { AdminRole, Door } from '../actor.ts';

/**
 * Every kind of action the trail records: a closed list, so an operation without its action is a
 * type error. `db.*` are the CLI's commands on the platform database; `admin.*` are for the admin
 * credentials, `admin.login` a wrong one offered (summarized per address and minute: admin/login-throttle.ts).
 */
export const AUDIT_ACTIONS = [
  'key.created',
  'key.updated',
  'key.revoked',
  'key.rolled',
  'webhook.created',
  'webhook.updated',
  'webhook.enabled',
  'webhook.disabled',
  'webhook.rotated',
  'webhook.deleted',
  'webhook.tested',
  'webhook.redelivered',
  'build.requested',
  'verification.requested',
  'db.migrated',
  'db.seeded',
  'db.sql',
  'admin.created',
  'admin.revoked',
  'admin.login',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const AUDIT_OUTCOMES = ['ok', 'refused', 'failed'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** Field names and their new values; never a secret (scrubSecrets). */
export type AuditChanges = Readonly<Record<string, unknown>>;

/** What a door or an operation hands over; the trail numbers, times and chains it. */
export interface AuditRecord {
  readonly actor: string;
  readonly actorRole: AdminRole;
  readonly door: Door;
  readonly action: AuditAction;
  /** The organization's id; null when the action names none (db.*) or it could not be found. */
  readonly organizationId: string | null;
  /** The key, webhook endpoint, build run or organization acted on; null when none. */
  readonly targetId: string | null;
  readonly outcome: AuditOutcome;
  /** Why it was refused or failed: the error code, or the operator's one-line message. */
  readonly reason: string | null;
  readonly requestId: string | null;
  readonly clientAddress: string | null;
  readonly changes: AuditChanges;
}

export interface AuditEntry extends AuditRecord {
  readonly seq: number;
  /** ISO 8601, milliseconds, UTC. */
  readonly at: string;
  readonly previousHash: string;
  readonly hash: string;
}

/** The predecessor of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * The bytes an entry's hash is taken of: every member but the hash itself, as canonical JSON
 * (RFC 8785: sorted members, ECMAScript numbers and strings), so any reader can recompute it.
 */
function canonicalEntry(entry: Omit<AuditEntry, 'hash'>): string {
  const { seq, at, actor, actorRole, door, action, organizationId, targetId, outcome, reason, requestId, clientAddress, changes, previousHash } = entry;
  return canonicalJson({ seq, at, actor, actorRole, door, action, organizationId, targetId, outcome, reason, requestId, clientAddress, changes, previousHash });
}

export function entryHash(entry: Omit<AuditEntry, 'hash'>): string {
  return createHash('sha256').update(canonicalEntry(entry), 'utf8').digest('hex');
}

/**
 * The next entry after `previous` (undefined: the first), numbered `seq`: the trail's counter
 * (audit-trail.ts), which is the predecessor's number plus one unless entries were removed after
 * it; numbers are never handed out twice, so a removal of the newest entries stays a gap.
 */
export function chainedEntry(record: AuditRecord, previous: { seq: number; hash: string } | undefined, at: Date, seq: number = (previous?.seq ?? 0) + 1): AuditEntry {
  const unhashed = {
    ...scrubbedRecord(record),
    seq,
    at: at.toISOString(),
    previousHash: previous?.hash ?? GENESIS_HASH,
  };
  return { ...unhashed, hash: entryHash(unhashed) };
}

/** The secrets Marquee issues: API keys, admin credentials, webhook signing secrets. */
const SECRET = /(mqk|mqa|whsec)_[A-Za-z0-9+/=_-]*/g;

/** Any secret a value holds, replaced: a `db sql` statement or a label may quote one. Matched anywhere in a text, so no entry ever holds a secret prefix. */
export function scrubSecrets<T>(value: T): T {
  if (typeof value === 'string') return value.replace(SECRET, '[redacted secret]') as T;
  if (Array.isArray(value)) return value.map(scrubSecrets) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, scrubSecrets(member)])) as T;
  }
  return value;
}

/** A secret the process knows by its value (ADMIN_TOKEN has no prefix to match), and the marker it is replaced by. */
export interface KnownSecret {
  readonly value: string;
  /** What stands in its place, e.g. `[ADMIN_TOKEN]`. */
  readonly marker: string;
}

/** Every occurrence of a known secret in a value (its strings, however deep) replaced by its marker. */
export function redactKnown<T>(value: T, known: readonly KnownSecret[]): T {
  if (known.length === 0) return value;
  if (typeof value === 'string') return known.reduce((text, { value: secret, marker }) => (secret === '' ? text : text.replaceAll(secret, marker)), value as string) as T;
  if (Array.isArray(value)) return value.map((member: unknown) => redactKnown(member, known)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, redactKnown(member, known)])) as T;
  }
  return value;
}

/**
 * What is stored is what jsonb gives back: no undefined members, no NUL (jsonb refuses it), only
 * JSON values. So the hash computed now is the one recomputed from the row later.
 */
function scrubbedRecord(record: AuditRecord): AuditRecord {
  const changes = JSON.parse(JSON.stringify(scrubSecrets(record.changes)).replaceAll('\\u0000', '')) as AuditChanges;
  return { ...record, reason: record.reason === null ? null : scrubSecrets(record.reason), changes };
}
