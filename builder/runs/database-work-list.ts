// The work list of divided runs in the platform database, shared by every builder of a deployment
// (docs/design.md "Runs divided among builders" and "A run never lies"). A run and each of its
// organizations are rows, so what a run listed, who holds what and what is done survive anything
// short of the database itself: Redis may lose its data (it runs without persistence) and no run
// loses its list or reports itself finished short. An organization is taken with `FOR UPDATE SKIP
// LOCKED`, so builders asking at once never get the same one; a claim its builder stops keeping
// (the process died) is taken over once it is older than the claim timeout, measured by the
// database's clock, so builders' clocks need not agree. Each result is numbered by the run's own
// counter, updated in the statement that records it, so results are read in the order they were
// committed, a late duplicate counts nothing, and the run is finished by the result that completes
// it. Its relations are Marquee's own (records/schema/migrations/004-runs.sql), made by the
// migrations every builder runs at start. Passes test/contracts/work-list.ts, on PostgreSQL and on PGlite.
import type { Target } from '../build.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import { type Claim, DEFAULT_CLAIM_TIMEOUT_MS, type OpenedRun, type RunProgress, type RunResult, type WorkList } from './work-list.ts';

/** Organizations written per statement when a run is opened. */
const OPEN_BATCH = 5_000;

/** Finished runs are kept this long for the builders still reading their last results; unfinished ones a week, then given up. */
const FINISHED_KEPT = '1 day';
const UNFINISHED_KEPT = '7 days';

// In list order, skipping those held now: the claims in flight are few, so the scan of the waiting
// index stays short whatever the run's size. The pick is a MATERIALIZED CTE, run once: as a plain
// subquery PostgreSQL may plan it as the inner side of a nested loop and run it again for each of
// the run's rows, each time locking and claiming the next one — a take of one then claimed the
// whole run (it does so once the relation has been analyzed while empty, autovacuum's doing), and
// every claim it did not return waited out the claim timeout before any builder built it.
const TAKE = `
  WITH picked AS MATERIALIZED (
    SELECT position FROM marquee_run_organizations
    WHERE run_id = $1 AND NOT done AND (claimed_at IS NULL OR claimed_at < clock_timestamp() - $4 * interval '1 millisecond')
    ORDER BY position
    LIMIT $3
    FOR UPDATE SKIP LOCKED
  )
  UPDATE marquee_run_organizations o SET claimed_by = $2, claimed_at = clock_timestamp()
  FROM picked
  WHERE o.run_id = $1 AND o.position = picked.position
  RETURNING o.position, o.organization`;

// The organization's row is updated first: of two results for it at once, the second waits for
// the first's row lock, then finds it done and changes nothing. The run's row then counts it, and
// its new count numbers the result; the run is finished by the result that makes the count whole.
const COMPLETE = `
  WITH organization AS (
    UPDATE marquee_run_organizations SET done = true, claimed_by = NULL, claimed_at = NULL
    WHERE run_id = $1 AND position = $2 AND NOT done
    RETURNING run_id
  ), counted AS (
    UPDATE marquee_runs r SET done = r.done + 1, finished_at = CASE WHEN r.done + 1 >= r.total THEN clock_timestamp() ELSE NULL END
    FROM organization WHERE r.id = organization.run_id
    RETURNING r.done
  )
  INSERT INTO marquee_run_results (run_id, ordinal, result) SELECT $1, counted.done, $3::jsonb FROM counted`;

// One statement, so the count, the finish and the results are of one moment.
const PROGRESS = `
  SELECT r.run, r.done, r.finished_at,
         (SELECT coalesce(json_agg(x.result ORDER BY x.ordinal), '[]'::json) FROM marquee_run_results x WHERE x.run_id = r.id AND x.ordinal > $2) AS results
  FROM marquee_runs r WHERE r.id = $1`;

export class DatabaseWorkList implements WorkList {
  private readonly claimTimeoutMs: number;

  constructor(
    private readonly db: SqlClient,
    options: { claimTimeoutMs?: number } = {},
  ) {
    this.claimTimeoutMs = options.claimTimeoutMs ?? DEFAULT_CLAIM_TIMEOUT_MS;
  }

  async open(run: OpenedRun, organizations: readonly Target[]): Promise<void> {
    // Listed as unfinished in the same transaction that lists its organizations: a builder joining sees the whole run.
    await this.db.transaction(async (tx) => {
      await tx.query(`DELETE FROM marquee_runs WHERE finished_at < now() - interval '${FINISHED_KEPT}' OR opened_at < now() - interval '${UNFINISHED_KEPT}'`);
      await tx.query('INSERT INTO marquee_runs (id, run, total, finished_at) VALUES ($1, $2::jsonb, $3, CASE WHEN $3 = 0 THEN clock_timestamp() END)', [
        run.id,
        JSON.stringify(run),
        organizations.length,
      ]);
      for (let start = 0; start < organizations.length; start += OPEN_BATCH) {
        const batch = organizations.slice(start, start + OPEN_BATCH);
        await tx.query(
          `INSERT INTO marquee_run_organizations (run_id, position, organization)
           SELECT $1, position, organization FROM unnest($2::int4[], $3::jsonb[]) AS listed (position, organization)`,
          [run.id, batch.map((_, index) => start + index), batch.map((organization) => JSON.stringify(organization))],
        );
      }
    });
  }

  async unfinished(): Promise<OpenedRun[]> {
    const rows = await this.db.query<{ run: OpenedRun }>(
      `SELECT run FROM marquee_runs WHERE finished_at IS NULL AND opened_at >= now() - interval '${UNFINISHED_KEPT}' ORDER BY opened_at`,
    );
    return rows.map((row) => row.run);
  }

  async waiting(): Promise<Set<string>> {
    const rows = await this.db.query<{ id: string }>(
      `SELECT DISTINCT o.organization->>'id' AS id
       FROM marquee_runs r JOIN marquee_run_organizations o ON o.run_id = r.id AND NOT o.done
       WHERE r.finished_at IS NULL AND r.opened_at >= now() - interval '${UNFINISHED_KEPT}'`,
    );
    return new Set(rows.map((row) => row.id));
  }

  async take(runId: string, builder: string, count: number): Promise<Claim[]> {
    const rows = await this.db.query<{ position: number; organization: Target }>(TAKE, [runId, builder, count, this.claimTimeoutMs]);
    return rows.sort((a, b) => a.position - b.position).map((row) => ({ entry: String(row.position), organization: row.organization }));
  }

  async keep(runId: string, builder: string, entries: readonly string[]): Promise<void> {
    if (entries.length === 0) return;
    await this.db.query('UPDATE marquee_run_organizations SET claimed_at = clock_timestamp() WHERE run_id = $1 AND claimed_by = $2 AND NOT done AND position = ANY($3::int4[])', [
      runId,
      builder,
      entries.map(Number),
    ]);
  }

  async complete(runId: string, entry: string, result: RunResult): Promise<void> {
    await this.db.query(COMPLETE, [runId, Number(entry), JSON.stringify(result)]);
  }

  async progress(runId: string, from = 0): Promise<RunProgress | undefined> {
    const [row] = await this.db.query<{ run: OpenedRun; done: number; finished_at: Date | string | null; results: RunResult[] }>(PROGRESS, [runId, from]);
    if (row === undefined) return undefined;
    return {
      run: row.run,
      done: row.done,
      finishedAt: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
      results: row.results,
    };
  }

  /** The database is the process's own: whoever opened it closes it. */
  async close(): Promise<void> {}
}
