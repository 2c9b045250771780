// The durable record of every key (docs/design.md "Keys outlive any cache"): the relation
// marquee_keys in the platform database, in Marquee's own schema (made by its migrations,
// records/schema/migrations/002-keys.sql) — where the platform's portal would create keys too. With Redis, this is the key store `keys` commands and
// the admin API write, first; Redis is the gateways' copy of it (records/keys/redis-key-store.ts),
// written after each change here (`mirror`) and refilled from here by the key keeper
// (key-keeper.ts) whenever it lost its data.
//
// Every write takes one transaction-scoped advisory lock before it draws its change number from
// marquee_key_changes, so changes commit in the order of their numbers: a keeper that has copied
// every change up to n has missed none below it. Key writes are an operator's, a few a minute;
// serializing them costs nothing. Records are never deleted. Instants are timestamptz, read back
// as toISOString writes them, so that every backend answers the same texts.
import type { SqlClient, SqlQueries } from '../database/sql.ts';
import { changedRecord, type KeyChanges, type KeyRecord, type KeyStore, mintKey, type NewKey, revokedState } from './key-store.ts';

/** Serializes key writes (a lock of its own: "mkey"). */
const KEY_WRITES_LOCK = 0x6d6b6579;

/** Keys recorded per statement by `adopt`. */
const ADOPT_BATCH = 1_000;

/** A record and the change number of its latest write. */
export interface KeptKey {
  record: KeyRecord;
  change: number;
}

export interface PostgresKeyStoreOptions {
  now?: () => Date;
  /**
   * Called after each committed write with the record as written (Redis's copy). It handles its
   * own failures: the durable record is written whatever happens to the copy.
   */
  mirror?: (kept: KeptKey) => Promise<void>;
}

const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const COLUMNS = `id, organization_id AS "organizationId", label, origins, ${iso('created_at')} AS "createdAt", ${iso('expires_at')} AS "expiresAt",
  ${iso('revoked_at')} AS "revokedAt", revocation_scheduled AS "revocationScheduled", prefix, ${iso('last_used_at')} AS "lastUsedAt",
  secret_hash AS "secretHash", change::float8 AS change`;

type Row = KeyRecord & { change: number };

const keptOf = ({ change, ...record }: Row): KeptKey => ({ record, change });

export class PostgresKeyStore implements KeyStore {
  private readonly now: () => Date;
  private readonly mirror: (kept: KeptKey) => Promise<void>;

  /** The relation must exist (migrateMarquee). */
  constructor(
    private readonly db: SqlClient,
    options: PostgresKeyStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.mirror = options.mirror ?? (async () => {});
  }

  async findBySecretHash(secretHash: string): Promise<KeyRecord | undefined> {
    return (await this.one('secret_hash = $1', [secretHash]))?.record;
  }

  async findById(id: string): Promise<KeyRecord | undefined> {
    return (await this.one('id = $1', [id]))?.record;
  }

  async create(key: NewKey): Promise<{ record: KeyRecord; secret: string }> {
    const { record, secret } = mintKey(key, this.now());
    const change = await this.write(async (tx, change) => {
      await insert(tx, record, change);
      return change;
    });
    await this.mirror({ record, change });
    return { record, secret };
  }

  async update(id: string, changes: KeyChanges): Promise<KeyRecord | undefined> {
    return this.change(id, (record) => changedRecord(record, changes));
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    return (await this.change(id, (record) => ({ ...record, ...revokedState(record, at.toISOString(), false) }))) !== undefined;
  }

  async scheduleRevocation(id: string, at: Date): Promise<boolean> {
    return (await this.change(id, (record) => ({ ...record, ...revokedState(record, at.toISOString(), true) }))) !== undefined;
  }

  /** The latest use only moves forward, and is not a change to copy: gateways hold a later one already. */
  async recordUse(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    if (lastUsed.size === 0) return;
    await this.db.query(
      `UPDATE marquee_keys k SET last_used_at = greatest(k.last_used_at, u.at)
         FROM unnest($1::text[], $2::timestamptz[]) AS u(id, at) WHERE k.id = u.id`,
      [[...lastUsed.keys()], [...lastUsed.values()].map((at) => at.toISOString())],
    );
  }

  async list(organizationId?: string): Promise<KeyRecord[]> {
    const rows =
      organizationId === undefined
        ? await this.db.query<Row>(`SELECT ${COLUMNS} FROM marquee_keys ORDER BY created_at, change`)
        : await this.db.query<Row>(`SELECT ${COLUMNS} FROM marquee_keys WHERE organization_id = $1 ORDER BY created_at, change`, [organizationId]);
    return rows.map((row) => keptOf(row).record);
  }

  /** Up to `limit` records written after change `after`, in the order of their changes. */
  async changedSince(after: number, limit: number): Promise<KeptKey[]> {
    return (await this.db.query<Row>(`SELECT ${COLUMNS} FROM marquee_keys WHERE change > $1 ORDER BY change LIMIT $2`, [after, limit])).map(keptOf);
  }

  /** The change number of the latest committed write; 0 when none. */
  async latestChange(): Promise<number> {
    const [row] = await this.db.query<{ change: number }>('SELECT coalesce(max(change), 0)::float8 AS change FROM marquee_keys');
    return row?.change ?? 0;
  }

  /**
   * Records keys made before this store existed (kept by Redis alone), as they are: same id,
   * secret hash, times and state. A key the store knows already is left as the store has it.
   * Answers how many were new. One transaction, a statement per thousand keys.
   */
  async adopt(records: readonly KeyRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [KEY_WRITES_LOCK]);
      let adopted = 0;
      for (let from = 0; from < records.length; from += ADOPT_BATCH) {
        const rows = await tx.query<{ id: string }>(
          `INSERT INTO marquee_keys (id, secret_hash, organization_id, label, origins, prefix, created_at, expires_at, revoked_at, revocation_scheduled, last_used_at, change)
           SELECT id, "secretHash", "organizationId", label, origins, prefix, "createdAt", "expiresAt", "revokedAt", "revocationScheduled", "lastUsedAt", nextval('marquee_key_changes')
             FROM jsonb_to_recordset($1::jsonb) AS r(id text, "secretHash" text, "organizationId" text, label text, origins jsonb, prefix text,
               "createdAt" timestamptz, "expiresAt" timestamptz, "revokedAt" timestamptz, "revocationScheduled" boolean, "lastUsedAt" timestamptz)
           ON CONFLICT DO NOTHING RETURNING id`,
          [JSON.stringify(records.slice(from, from + ADOPT_BATCH))],
        );
        adopted += rows.length;
      }
      return adopted;
    });
  }

  private async one(where: string, params: unknown[]): Promise<KeptKey | undefined> {
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM marquee_keys WHERE ${where}`, params);
    return row && keptOf(row);
  }

  /** Reads the record under the lock, applies `next` and writes it back with a new change number. */
  private async change(id: string, next: (record: KeyRecord) => KeyRecord): Promise<KeyRecord | undefined> {
    const kept = await this.write(async (tx, change) => {
      const [row] = await tx.query<Row>(`SELECT ${COLUMNS} FROM marquee_keys WHERE id = $1`, [id]);
      if (row === undefined) return undefined;
      const record = next(keptOf(row).record);
      await tx.query(`UPDATE marquee_keys SET label = $2, origins = $3::jsonb, revoked_at = $4, revocation_scheduled = $5, change = $6 WHERE id = $1`, [
        id,
        record.label,
        JSON.stringify(record.origins),
        record.revokedAt,
        record.revocationScheduled,
        change,
      ]);
      return { record, change };
    });
    if (kept === undefined) return undefined;
    await this.mirror(kept);
    return kept.record;
  }

  /** One write, in one transaction: under the lock, with the next change number. */
  private write<T>(work: (tx: SqlQueries, change: number) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [KEY_WRITES_LOCK]);
      const [next] = await tx.query<{ change: number }>(`SELECT nextval('marquee_key_changes')::float8 AS change`);
      return work(tx, next!.change);
    });
  }
}

async function insert(tx: SqlQueries, record: KeyRecord, change: number): Promise<void> {
  await tx.query(
    `INSERT INTO marquee_keys (id, secret_hash, organization_id, label, origins, prefix, created_at, expires_at, revoked_at, revocation_scheduled, last_used_at, change)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $12)`,
    [
      record.id,
      record.secretHash,
      record.organizationId,
      record.label,
      JSON.stringify(record.origins),
      record.prefix,
      record.createdAt,
      record.expiresAt,
      record.revokedAt,
      record.revocationScheduled,
      record.lastUsedAt,
      change,
    ],
  );
}
