// `marquee db migrate`: creates the platform relations of docs/platform.md and their change triggers.
// Each migration is a .sql file beside this one, applied once and recorded in
// marquee_schema_version (in the platform's schema, beside what it describes), so running migrate
// again is a no-op. Marquee's own relations have a migration path of their own
// (records/schema/), applied first: the change triggers write source versions there.
import { readFile } from 'node:fs/promises';
import { PlatformDatabaseError, quoteIdentifier, type SqlClient } from '../../records/database/sql.ts';
import { packagePath } from '../../runtime/package-root.ts';
import { migrateMarquee } from '../../records/schema/migrate.ts';
import { migrationRefusal } from '../../records/schema/migration-grants.ts';
import { reachSourceVersionsFromTriggers } from '../../records/schema/source-versions.ts';

interface Migration {
  version: number;
  file: string;
}

const MIGRATIONS: readonly Migration[] = [
  { version: 1, file: '001-platform-relations.sql' },
  { version: 2, file: '002-source-versions.sql' },
];

export const LATEST_SCHEMA_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));

/** Serializes concurrent migrators (a CLI and a starting builder) on the same database. */
const MIGRATION_LOCK = 0x6d617271; // "marq"

export interface MigrationResult {
  /** Versions applied by this call; empty when the schema was already current. */
  applied: number[];
  version: number;
}

export async function migrate(db: SqlClient): Promise<MigrationResult> {
  await migrateMarquee(db);
  if ((await currentVersion(db)) >= LATEST_SCHEMA_VERSION) return { applied: [], version: LATEST_SCHEMA_VERSION };
  const applied: number[] = [];
  const migrating = db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    // Scripts name relations bare: they are made in the platform's schema alone, never in Marquee's,
    // which comes first in every connection's search_path.
    await tx.exec(`
      CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(db.schema)};
      SET LOCAL search_path TO ${quoteIdentifier(db.schema)};
      CREATE TABLE IF NOT EXISTS marquee_schema_version (
        version int PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      );`);
    // Read again under the lock: another migrator may have finished while this one waited.
    const done = new Set((await tx.query<{ version: number }>('SELECT version FROM marquee_schema_version')).map((row) => row.version));
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      await tx.exec(await readFile(packagePath('builder', 'platform', 'migrations', migration.file), 'utf8'));
      await tx.query('INSERT INTO marquee_schema_version (version) VALUES ($1)', [migration.version]);
      applied.push(migration.version);
    }
    // The trigger function was just made with the search_path set above: it must reach Marquee's schema too.
    await reachSourceVersionsFromTriggers(tx, db);
  });
  // CREATE SCHEMA IF NOT EXISTS asks for CREATE on the database even when the schema exists.
  await migrating.catch(async (error: unknown) => {
    throw (await migrationRefusal(error, db, "the platform's migrations", { schema: db.schema, alwaysCreatesSchema: true })) ?? error;
  });
  return { applied, version: LATEST_SCHEMA_VERSION };
}

/** 0 when the database has never been migrated. */
export async function currentVersion(db: SqlClient): Promise<number> {
  const [row] = await db.query<{ version: number | null }>(`SELECT CASE WHEN to_regclass('marquee_schema_version') IS NULL THEN 0 END AS version`);
  if (row?.version === 0) return 0;
  const [latest] = await db.query<{ version: number }>('SELECT coalesce(max(version), 0)::int4 AS version FROM marquee_schema_version');
  return latest?.version ?? 0;
}

/**
 * Refuses a database without the platform relations (never migrated, or PLATFORM_SCHEMA names the
 * wrong schema) with the command that fixes it, instead of failing the first query with
 * `relation "organizations" does not exist`.
 */
export async function assertPlatformRelations(db: SqlClient): Promise<void> {
  const [row] = await db.query<{ found: boolean }>(`SELECT to_regclass('organizations') IS NOT NULL AS found`);
  if (row?.found) return;
  throw new PlatformDatabaseError(
    `${db.description} has no platform relations in schema "${db.schema}": for a new database run \`marquee db migrate\` (and \`marquee db seed --sample\` for sample data); if the platform keeps them in another schema, set PLATFORM_SCHEMA to it`,
  );
}
