// The audit trail's relation (migration 006, marquee_audit_trail): append one entry, read them by
// filter, walk them in order. Appends from every builder and CLI serialize on one advisory lock in
// the database, inside the transaction that draws the next number (migration 009's counter), reads
// the head and inserts after it: one chain, no fork, no gap, whichever process writes (the
// embedded PGlite takes the same path). A number is never handed out twice: entries deleted from
// the end (by an owner who dropped the triggers) leave a gap the next append does not fill.
import type { SqlClient, SqlQueries } from '../database/sql.ts';
import type { AdminRole, Door } from '../actor.ts';
import { type AuditAction, type AuditChanges, type AuditEntry, type AuditOutcome, type AuditRecord, chainedEntry } from './audit-entry.ts';

/** "mqau": the appenders' lock, apart from the migrations' (migrate.ts). */
const APPEND_LOCK = 0x6d716175;

interface AuditFilter {
  readonly organizationId?: string;
  readonly actor?: string;
  readonly action?: string;
  /** Entries at or after this instant. */
  readonly since?: Date;
  /** Entries before this instant (exclusive: since..until is a half-open window, so windows end to end count each entry once). */
  readonly until?: Date;
  /** Paging, newest first: entries before this sequence number. */
  readonly beforeSeq?: number;
  readonly limit: number;
}

export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

export interface AuditTrail {
  append(record: AuditRecord): Promise<AuditEntry>;
  /** The newest entry's number and hash; undefined while the trail is empty. */
  head(): Promise<ChainHead | undefined>;
  /** Newest first. */
  list(filter: AuditFilter): Promise<AuditEntry[]>;
  /** Every entry, oldest first, read in pages so that a long trail is never held whole. */
  walk(pageSize?: number): AsyncIterable<AuditEntry>;
}

// seq as text (bigint would be a string in pg, a BigInt in PGlite): every ORDER BY names the column, not this text alias.
const COLUMNS = `seq::text AS seq, at, actor, actor_role, door, action, organization_id, target_id, outcome, reason, request_id, client_address, changes, previous_hash, hash`;

interface EntryRow {
  seq: string;
  at: Date | string;
  actor: string;
  actor_role: AdminRole;
  door: Door;
  action: AuditAction;
  organization_id: string | null;
  target_id: string | null;
  outcome: AuditOutcome;
  reason: string | null;
  request_id: string | null;
  client_address: string | null;
  changes: AuditChanges | string;
  previous_hash: string;
  hash: string;
}

export function databaseAuditTrail(db: SqlClient): AuditTrail {
  return {
    append: (record) => db.transaction((tx) => appendIn(tx, record)),
    head: async () => {
      const [row] = await db.query<{ seq: string; hash: string }>('SELECT seq::text AS seq, hash FROM marquee_audit_trail ORDER BY marquee_audit_trail.seq DESC LIMIT 1');
      return row === undefined ? undefined : { seq: Number(row.seq), hash: row.hash };
    },
    list: async (filter) => {
      const conditions: string[] = [];
      const params: unknown[] = [];
      const where = (condition: (placeholder: string) => string, value: unknown) => {
        params.push(value);
        conditions.push(condition(`$${params.length}`));
      };
      if (filter.organizationId !== undefined) where((p) => `organization_id = ${p}`, filter.organizationId);
      if (filter.actor !== undefined) where((p) => `actor = ${p}`, filter.actor);
      if (filter.action !== undefined) where((p) => `action = ${p}`, filter.action);
      if (filter.since !== undefined) where((p) => `at >= ${p}`, filter.since.toISOString());
      if (filter.until !== undefined) where((p) => `at < ${p}`, filter.until.toISOString());
      if (filter.beforeSeq !== undefined) where((p) => `seq < ${p}`, filter.beforeSeq);
      params.push(filter.limit);
      const rows = await db.query<EntryRow>(
        `SELECT ${COLUMNS} FROM marquee_audit_trail ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY marquee_audit_trail.seq DESC LIMIT $${params.length}`,
        params,
      );
      return rows.map(entryOf);
    },
    walk: (pageSize = 5000) => ({
      async *[Symbol.asyncIterator]() {
        let after = 0;
        for (;;) {
          const rows = await db.query<EntryRow>(`SELECT ${COLUMNS} FROM marquee_audit_trail WHERE seq > $1 ORDER BY marquee_audit_trail.seq LIMIT $2`, [after, pageSize]);
          for (const row of rows) yield entryOf(row);
          if (rows.length < pageSize) return;
          after = Number(rows[rows.length - 1]!.seq);
        }
      },
    }),
  };
}

/**
 * The next number: one past the last handed out, and past the newest entry whatever the counter
 * says (a counter row deleted with its trigger dropped is made again, and still never repeats a
 * number the trail holds). Moves with the transaction: an append that fails uses up no number.
 */
const NEXT_SEQ = `INSERT INTO marquee_audit_trail_counter AS counter (only_row, last_seq)
  VALUES (true, coalesce((SELECT max(seq) FROM marquee_audit_trail), 0) + 1)
  ON CONFLICT (only_row) DO UPDATE SET last_seq = greatest(counter.last_seq, coalesce((SELECT max(seq) FROM marquee_audit_trail), 0)) + 1
  RETURNING last_seq::text AS seq`;

/** Under the lock, the number drawn and the head read are this entry's: no other appender can be between. */
async function appendIn(tx: SqlQueries, record: AuditRecord): Promise<AuditEntry> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
  const [next] = await tx.query<{ seq: string }>(NEXT_SEQ);
  const [head] = await tx.query<{ seq: string; hash: string }>('SELECT seq::text AS seq, hash FROM marquee_audit_trail ORDER BY marquee_audit_trail.seq DESC LIMIT 1');
  const entry = chainedEntry(record, head === undefined ? undefined : { seq: Number(head.seq), hash: head.hash }, new Date(), Number(next!.seq));
  await tx.query(
    `INSERT INTO marquee_audit_trail (seq, at, actor, actor_role, door, action, organization_id, target_id, outcome, reason, request_id, client_address, changes, previous_hash, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $15)`,
    [
      entry.seq,
      entry.at,
      entry.actor,
      entry.actorRole,
      entry.door,
      entry.action,
      entry.organizationId,
      entry.targetId,
      entry.outcome,
      entry.reason,
      entry.requestId,
      entry.clientAddress,
      JSON.stringify(entry.changes),
      entry.previousHash,
      entry.hash,
    ],
  );
  return entry;
}

function entryOf(row: EntryRow): AuditEntry {
  return {
    seq: Number(row.seq),
    at: (row.at instanceof Date ? row.at : new Date(row.at)).toISOString(),
    actor: row.actor,
    actorRole: row.actor_role,
    door: row.door,
    action: row.action,
    organizationId: row.organization_id,
    targetId: row.target_id,
    outcome: row.outcome,
    reason: row.reason,
    requestId: row.request_id,
    clientAddress: row.client_address,
    changes: typeof row.changes === 'string' ? (JSON.parse(row.changes) as AuditChanges) : row.changes,
    previousHash: row.previous_hash,
    hash: row.hash,
  };
}
