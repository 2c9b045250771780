// What `marquee db status` reports of Marquee's own migrations (docs/operation.md "Upgrades and
// rollback"): which of this release's are applied and when, which are pending, and which the
// database holds that this release does not know — a newer release migrated it, and this one runs on
// that schema all the same (migrations are additive within a major), which is what a rollback is.
import { quoteIdentifier, type SqlClient } from '../database/sql.ts';
import { MARQUEE_MIGRATION_NAMES } from './migrate.ts';

interface AppliedMigration {
  number: number;
  name: string;
  appliedAt: string;
}

export interface MigrationStatus {
  /** This release's migrations the database records, oldest first. */
  applied: AppliedMigration[];
  /** This release's migrations the database does not record yet: `marquee db migrate` applies them. */
  pending: Array<{ number: number; name: string }>;
  /** Recorded by a newer release; this one ignores what they made. */
  newer: AppliedMigration[];
}

/** Sorts the recorded rows against the migrations this release knows. Pure. */
function classifyMigrations(known: ReadonlyMap<number, string>, recorded: readonly AppliedMigration[]): MigrationStatus {
  const byNumber = new Map(recorded.map((row) => [row.number, row]));
  const applied: AppliedMigration[] = [];
  const pending: MigrationStatus['pending'] = [];
  for (const [number, name] of [...known].sort(([a], [b]) => a - b)) {
    const row = byNumber.get(number);
    if (row === undefined) pending.push({ number, name });
    else applied.push(row);
  }
  const newer = recorded.filter((row) => !known.has(row.number)).sort((a, b) => a.number - b.number);
  return { applied, pending, newer };
}

/** Reads, never writes: a role that may only read Marquee's schema can ask, and so can an auditor. */
export async function marqueeMigrationStatus(db: SqlClient): Promise<MigrationStatus> {
  const table = `${quoteIdentifier(db.marqueeSchema)}.marquee_migrations`;
  const [found] = await db.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [table]);
  const recorded = found?.present
    ? await db.query<AppliedMigration>(`SELECT number, name, to_char(applied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "appliedAt" FROM ${table} ORDER BY number`)
    : [];
  return classifyMigrations(MARQUEE_MIGRATION_NAMES, recorded);
}
