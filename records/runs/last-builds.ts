// Each organization's last build, read from the runs' record (migration 13 keeps it as each run's
// end is written, whichever process ran it), so every builder's console and admin API show the
// same one: not only the builds of the process that answers.
import type { SqlQueries } from '../database/sql.ts';

/** An organization's result in the latest run to end with one for it. */
export interface LastBuild {
  runId: string;
  result: 'published' | 'unchanged' | 'suspended' | 'failed';
  /** When that run ended: results carry no instant of their own. */
  finishedAt: string;
  error?: string;
}

interface LastBuildRow {
  organization_id: string;
  run_id: string;
  result: LastBuild['result'];
  error: string | null;
  finished_at: Date | string;
}

/** The last builds of the organizations named (ids the record has none for are absent), or of every one. */
export async function lastBuildsOf(db: SqlQueries, organizationIds: readonly string[] | 'every'): Promise<Map<string, LastBuild>> {
  if (organizationIds !== 'every' && organizationIds.length === 0) return new Map();
  const rows =
    organizationIds === 'every'
      ? await db.query<LastBuildRow>('SELECT organization_id, run_id, result, error, finished_at FROM marquee_last_builds')
      : await db.query<LastBuildRow>('SELECT organization_id, run_id, result, error, finished_at FROM marquee_last_builds WHERE organization_id = ANY($1::text[])', [
          organizationIds,
        ]);
  return new Map(rows.map((row) => [row.organization_id, lastBuildOf(row)]));
}

function lastBuildOf(row: LastBuildRow): LastBuild {
  const finishedAt = (row.finished_at instanceof Date ? row.finished_at : new Date(row.finished_at)).toISOString();
  return { runId: row.run_id, result: row.result, finishedAt, ...(row.error ? { error: row.error } : {}) };
}
