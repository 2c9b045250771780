// Where named admin credentials are kept: the relation marquee_admin_credentials in the platform
// database, in Marquee's own schema (migrations/005-admin-credentials.sql), beside the API keys'
// durable record (embedded: the PGlite under MARQUEE_HOME). One statement per change, so there is
// nothing to serialize. Instants are read back as toISOString writes them, as keys' are.
import type { SqlQueries } from '../database/sql.ts';
import type { AdminRole } from '../actor.ts';

export interface AdminCredentialRecord {
  name: string;
  role: AdminRole;
  secretHash: string;
  /** `mqa_` and the first characters of the secret, to recognise it by. */
  prefix: string;
  createdAt: string;
  /** The actor who made it. */
  createdBy: string;
  expiresAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
  lastUsedAt: string | null;
}

const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const COLUMNS = `name, role, secret_hash AS "secretHash", prefix, ${iso('created_at')} AS "createdAt", created_by AS "createdBy",
  ${iso('expires_at')} AS "expiresAt", ${iso('revoked_at')} AS "revokedAt", revoked_by AS "revokedBy", ${iso('last_used_at')} AS "lastUsedAt"`;

export class AdminCredentialStore {
  /** The relation must exist (migrateMarquee). */
  constructor(private readonly db: SqlQueries) {}

  /** False when the name is taken (by a credential in use or a revoked one): nothing is written then. */
  async insert(record: AdminCredentialRecord): Promise<boolean> {
    const rows = await this.db.query<{ name: string }>(
      `INSERT INTO marquee_admin_credentials (name, role, secret_hash, prefix, created_at, created_by, expires_at, revoked_at, revoked_by, last_used_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (name) DO NOTHING RETURNING name`,
      [record.name, record.role, record.secretHash, record.prefix, record.createdAt, record.createdBy, record.expiresAt, record.revokedAt, record.revokedBy, record.lastUsedAt],
    );
    return rows.length === 1;
  }

  /** Oldest first. */
  list(): Promise<AdminCredentialRecord[]> {
    return this.db.query<AdminCredentialRecord>(`SELECT ${COLUMNS} FROM marquee_admin_credentials ORDER BY created_at, name`);
  }

  async byName(name: string): Promise<AdminCredentialRecord | undefined> {
    return (await this.db.query<AdminCredentialRecord>(`SELECT ${COLUMNS} FROM marquee_admin_credentials WHERE name = $1`, [name]))[0];
  }

  /** By the unique index on the hash: one index probe per admin request that offers a credential. */
  async bySecretHash(secretHash: string): Promise<AdminCredentialRecord | undefined> {
    return (await this.db.query<AdminCredentialRecord>(`SELECT ${COLUMNS} FROM marquee_admin_credentials WHERE secret_hash = $1`, [secretHash]))[0];
  }

  /** Final: a credential revoked before keeps its time and revoker. Undefined when no credential has the name. */
  async revoke(name: string, at: Date, by: string): Promise<AdminCredentialRecord | undefined> {
    const [row] = await this.db.query<AdminCredentialRecord>(
      `UPDATE marquee_admin_credentials SET revoked_at = coalesce(revoked_at, $2), revoked_by = coalesce(revoked_by, $3)
        WHERE name = $1 RETURNING ${COLUMNS}`,
      [name, at.toISOString(), by],
    );
    return row;
  }

  /** The latest use only moves forward (two builders may record one each). */
  async recordUse(name: string, at: Date): Promise<void> {
    await this.db.query('UPDATE marquee_admin_credentials SET last_used_at = greatest(last_used_at, $2) WHERE name = $1', [name, at.toISOString()]);
  }
}
