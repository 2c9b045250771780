// `marquee db status`: which migrations the platform database has, and which this release still
// wants (docs/operation.md "Upgrades and rollback"). It reads and changes nothing, so it is what an
// operator runs before an upgrade, after one, and before rolling back.
import { currentVersion, LATEST_SCHEMA_VERSION } from '../../builder/platform/migrations.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import { type MigrationStatus, marqueeMigrationStatus } from '../../records/schema/status.ts';
import type { Config } from '../config.ts';
import { line, printJson } from '../output.ts';
import { withDatabase } from '../services.ts';

interface DatabaseStatus {
  database: string;
  marquee: { schema: string } & MigrationStatus;
  platform: { schema: string; version: number; latest: number };
  /** Nothing of this release's is pending: `db migrate` would do nothing. */
  upToDate: boolean;
}

/** Exit status 0 when nothing is pending, 1 when `marquee db migrate` has something to apply (or the database cannot be read). */
export async function dbStatusCommand(config: Config, options: { json?: boolean }): Promise<void> {
  // Any database: one never migrated is exactly what this command must be able to describe.
  const status = await withDatabase(config, databaseStatus, { relations: 'any' });
  if (options.json) printJson(status);
  else for (const text of statusLines(status)) line(text);
  if (!status.upToDate) process.exitCode = 1;
}

async function databaseStatus(db: SqlClient): Promise<DatabaseStatus> {
  const marquee = await marqueeMigrationStatus(db);
  const version = await currentVersion(db);
  return {
    database: db.description,
    marquee: { schema: db.marqueeSchema, ...marquee },
    platform: { schema: db.schema, version, latest: LATEST_SCHEMA_VERSION },
    upToDate: marquee.pending.length === 0 && version >= LATEST_SCHEMA_VERSION,
  };
}

/** The text form: one line per migration, then what to do. Pure. */
function statusLines(status: DatabaseStatus): string[] {
  const { marquee, platform } = status;
  const width = Math.max(0, ...[...marquee.applied, ...marquee.pending, ...marquee.newer].map((m) => m.name.length));
  const row = (state: string, m: { number: number; name: string; appliedAt?: string }) =>
    `  ${state.padEnd(7)} ${String(m.number).padStart(3)} ${m.name.padEnd(width)}${m.appliedAt === undefined ? '' : `  ${m.appliedAt}`}`.trimEnd();
  const platformNote =
    platform.version > platform.latest
      ? `, made by a newer release (this one's is ${platform.latest})`
      : platform.version < platform.latest
        ? `; this release's is ${platform.latest}: pending`
        : ' (up to date)';
  const pending = marquee.pending.length + (platform.version < platform.latest ? 1 : 0);
  return [
    `${status.database}`,
    `Marquee's relations in schema "${marquee.schema}": ${marquee.applied.length} of ${marquee.applied.length + marquee.pending.length} migrations applied`,
    ...marquee.applied.map((m) => row('applied', m)),
    ...marquee.pending.map((m) => row('pending', m)),
    ...marquee.newer.map((m) => row('newer', m)),
    `platform relations in schema "${platform.schema}": version ${platform.version}${platformNote}`,
    status.upToDate
      ? `up to date${marquee.newer.length > 0 || platform.version > platform.latest ? '; a newer release migrated this database, and this release runs on its schema (migrations are additive within a major)' : ''}`
      : `${pending} pending: run \`marquee db migrate\` (builders apply Marquee's own at start too)`,
  ];
}
