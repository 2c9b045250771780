// Marquee's own relations (docs/platform.md §7): one numbered path of migrations, in a schema of
// their own (MARQUEE_SCHEMA, `marquee` by default), apart from the platform's relations. Each
// migration is a .sql file in migrations/ beside this one, applied once and recorded in marquee_migrations
// (number, name, applied at). `marquee db migrate` applies them, and so do `start`, `builder` and
// the one-off commands that write these relations, before anything else: a platform of views never
// runs `db migrate`. The whole path runs in one transaction under an advisory lock, so two
// builders starting at once apply each migration once, and a refusal leaves the database as it was.
//
// An earlier release made these relations in the platform's schema, each area when it was first
// needed. A migration names the ones it stands for: found there, they are moved into Marquee's
// schema (ALTER … SET SCHEMA keeps every row, index, constraint and owned sequence), and its script,
// safe to run after the move, creates only what is still missing.
import { readFile } from 'node:fs/promises';
import { packagePath } from '../../runtime/package-root.ts';
import { PlatformDatabaseError, quoteIdentifier, type SqlClient, type SqlQueries } from '../database/sql.ts';
import { migrationRefusal } from './migration-grants.ts';
import { reachSourceVersionsFromTriggers } from './source-versions.ts';

interface MarqueeMigration {
  number: number;
  /** Also names its file: 001-versions.sql. */
  name: string;
  /** Relations an earlier release made in the platform's schema: tables, and the sequences no table owns. */
  earlier: readonly string[];
  /** Run after the script, in the same transaction. */
  after?: (tx: SqlQueries, db: SqlClient) => Promise<void>;
}

const MIGRATIONS: readonly MarqueeMigration[] = [
  {
    number: 1,
    name: 'versions',
    earlier: ['marquee_source_version', 'marquee_source_versions', 'marquee_built_versions'],
    after: reachSourceVersionsFromTriggers,
  },
  { number: 2, name: 'keys', earlier: ['marquee_key_changes', 'marquee_keys'] },
  { number: 3, name: 'webhooks', earlier: ['marquee_webhook_endpoints', 'marquee_webhook_messages', 'marquee_webhook_deliveries', 'marquee_webhook_attempts'] },
  { number: 4, name: 'runs', earlier: ['marquee_runs', 'marquee_run_organizations', 'marquee_run_results', 'marquee_schedule_claims'] },
  { number: 5, name: 'admin-credentials', earlier: [] },
  { number: 6, name: 'audit-trail', earlier: [] },
  { number: 7, name: 'records', earlier: [] },
  { number: 8, name: 'webhook-order', earlier: [] },
  { number: 9, name: 'trail-sequence', earlier: [] },
  { number: 10, name: 'publication-log', earlier: [] },
  { number: 11, name: 'trail-head-index', earlier: [] },
  { number: 12, name: 'key-usage', earlier: [] },
  { number: 14, name: 'change-claims', earlier: [] },
];

/** Every migration's number, in the order they are applied. */
export const MARQUEE_MIGRATION_NUMBERS: readonly number[] = MIGRATIONS.map((migration) => migration.number);

/** Each migration's name by its number: the audit trail names the ones a process applied (bin/commands/trail.ts). */
export const MARQUEE_MIGRATION_NAMES: ReadonlyMap<number, string> = new Map(MIGRATIONS.map((migration) => [migration.number, migration.name]));

export const LATEST_MARQUEE_MIGRATION = Math.max(...MARQUEE_MIGRATION_NUMBERS);

/** Serializes concurrent migrators (builders starting at once, a CLI beside them): "mqmg". */
const MIGRATION_LOCK = 0x6d716d67;

export interface MarqueeMigrationResult {
  /** Numbers applied by this call; empty when every one was applied already. */
  applied: number[];
  latest: number;
}

/**
 * Applies what is missing. Once everything is applied, this is one read: a role that may read and
 * write Marquee's relations, but not create any, starts as well as the one that made them.
 */
export async function migrateMarquee(db: SqlClient): Promise<MarqueeMigrationResult> {
  if ((await appliedMarqueeMigration(db)) >= LATEST_MARQUEE_MIGRATION) return { applied: [], latest: LATEST_MARQUEE_MIGRATION };
  const schema = quoteIdentifier(db.marqueeSchema);
  const applied: number[] = [];
  try {
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      // CREATE SCHEMA IF NOT EXISTS would still ask for CREATE on the database: a schema made for
      // Marquee by an administrator is enough.
      const [found] = await tx.query<{ present: boolean }>('SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = $1) AS present', [db.marqueeSchema]);
      if (!found?.present) await tx.exec(`CREATE SCHEMA ${schema}`);
      // Scripts name relations bare: they are made in Marquee's schema alone.
      await tx.exec(`SET LOCAL search_path TO ${schema};
        CREATE TABLE IF NOT EXISTS marquee_migrations (
          number int PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        );
        COMMENT ON TABLE marquee_migrations IS 'Marquee: the migrations of its own relations applied to this schema';`);
      // Read again under the lock: another migrator may have finished while this one waited.
      const done = new Set((await tx.query<{ number: number }>('SELECT number FROM marquee_migrations')).map((row) => row.number));
      for (const migration of MIGRATIONS) {
        if (done.has(migration.number)) continue;
        await adoptEarlier(tx, db, migration.earlier);
        await tx.exec(await readFile(packagePath('records', 'schema', 'migrations', fileOf(migration)), 'utf8'));
        await migration.after?.(tx, db);
        await tx.query('INSERT INTO marquee_migrations (number, name) VALUES ($1, $2)', [migration.number, migration.name]);
        applied.push(migration.number);
      }
    });
  } catch (error) {
    // Made only when missing (above), so CREATE on the database is asked only then.
    const refusal = await migrationRefusal(error, db, "Marquee's migrations", { schema: db.marqueeSchema, alwaysCreatesSchema: false });
    if (refusal) throw refusal;
    throw new PlatformDatabaseError(
      `cannot apply Marquee's migrations to ${db.description} (schema "${db.marqueeSchema}"): ${(error as Error).message}; the role of DATABASE_URL needs, once, CREATE on the database (to create schema "${db.marqueeSchema}") or on that schema if it exists, and ownership of any marquee_* relations an earlier release made in schema "${db.schema}" — or run \`marquee db migrate\` once as a role that has them (docs/platform.md)`,
      { cause: error },
    );
  }
  return { applied, latest: LATEST_MARQUEE_MIGRATION };
}

/** The number of the latest migration applied; 0 when none (or no schema yet). */
export async function appliedMarqueeMigration(db: SqlClient): Promise<number> {
  const table = `${quoteIdentifier(db.marqueeSchema)}.marquee_migrations`;
  const [row] = await db.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [table]);
  if (!row?.present) return 0;
  const [latest] = await db.query<{ number: number }>(`SELECT coalesce(max(number), 0)::int4 AS number FROM ${table}`);
  return latest?.number ?? 0;
}

const fileOf = (migration: MarqueeMigration): string => `${String(migration.number).padStart(3, '0')}-${migration.name}.sql`;

/** Moves the relations an earlier release left in the platform's schema into Marquee's, rows and all. */
async function adoptEarlier(tx: SqlQueries, db: SqlClient, names: readonly string[]): Promise<void> {
  if (db.schema === db.marqueeSchema) return;
  const found = await tx.query<{ name: string; kind: string }>(
    `SELECT c.relname AS name, c.relkind::text AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) AND c.relkind IN ('r', 'S')`,
    [db.schema, [...names]],
  );
  for (const { name, kind } of found) {
    await tx.exec(`ALTER ${kind === 'S' ? 'SEQUENCE' : 'TABLE'} ${quoteIdentifier(db.schema)}.${quoteIdentifier(name)} SET SCHEMA ${quoteIdentifier(db.marqueeSchema)}`);
  }
}
