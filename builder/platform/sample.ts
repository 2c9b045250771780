// `marquee db seed --sample` and the first run of `marquee start` (docs/design.md "Process model"):
// loads the sample dataset of sample-rows.ts into an empty, migrated platform database.
import { DEFAULT_PUBLIC_BASE_URL } from '../defaults.ts';
import { SAMPLE_TABLES, sampleRows } from './sample-rows.ts';
import { listOrganizations, type OrganizationRef } from './organizations.ts';
import type { SqlClient, SqlQueries } from '../../records/database/sql.ts';

export { SAMPLE } from './sample-rows.ts';

export interface SeedOptions {
  /** Times in the sample are placed around this instant (past, ongoing, upcoming events). */
  now: Date;
  /** Prefix of the sample's image urls; PLATFORM_PUBLIC_URL's default when unset. */
  publicBaseUrl?: string;
}

export interface SeedResult {
  /** False when the database already had organizations: the sample never mixes with real data. */
  seeded: boolean;
  /** Every organization in the database afterwards, ordered by id. */
  organizations: OrganizationRef[];
}

export async function seedSample(db: SqlClient, options: SeedOptions): Promise<SeedResult> {
  const rows = sampleRows(options.now, options.publicBaseUrl ?? DEFAULT_PUBLIC_BASE_URL);
  const seeded = await db.transaction(async (tx) => {
    const [existing] = await tx.query<{ count: number }>('SELECT count(*)::int4 AS count FROM organizations');
    if ((existing?.count ?? 0) > 0) return false;
    for (const table of SAMPLE_TABLES) await insertRows(tx, table, rows[table]);
    return true;
  });
  return { seeded, organizations: await listOrganizations(db) };
}

/** One multi-row INSERT per table; a column missing from a row is inserted as null. */
async function insertRows(tx: SqlQueries, table: string, rows: Array<Record<string, unknown>>): Promise<void> {
  if (rows.length === 0) return;
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const params: unknown[] = [];
  const tuples = rows.map((row) => {
    const placeholders = columns.map((column) => {
      params.push(row[column] ?? null);
      return `$${params.length}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  await tx.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, params);
}
