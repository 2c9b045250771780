// The relations through which builders coordinate their runs (docs/design.md "A run never lies"),
// in the platform database beside the version relations, so that no run depends on what Redis
// keeps: the divided runs' work list (database-work-list.ts) and the schedule's claims
// (database-schedule-claims.ts). Made when missing, as the version relations are.
import { PlatformDatabaseError, type SqlClient } from '../platform/sql.ts';

/**
 * Each statement is safe to run again. `marquee_runs` holds a run as builders see it and its count
 * of results; `marquee_run_organizations` one row per organization a run listed, with its claim;
 * `marquee_run_results` the results in the order they were recorded; `marquee_schedule_claims`
 * which builder ran each period of the schedule.
 */
const RUN_RELATIONS = `
CREATE TABLE IF NOT EXISTS marquee_runs (
  id text PRIMARY KEY,
  run jsonb NOT NULL,
  total integer NOT NULL,
  done integer NOT NULL DEFAULT 0,
  opened_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX IF NOT EXISTS marquee_runs_unfinished ON marquee_runs (opened_at) WHERE finished_at IS NULL;
COMMENT ON TABLE marquee_runs IS 'Marquee: runs divided among builders, each with its count of organizations done';
CREATE TABLE IF NOT EXISTS marquee_run_organizations (
  run_id text NOT NULL REFERENCES marquee_runs (id) ON DELETE CASCADE,
  position integer NOT NULL,
  organization jsonb NOT NULL,
  claimed_by text,
  claimed_at timestamptz,
  done boolean NOT NULL DEFAULT false,
  PRIMARY KEY (run_id, position)
);
CREATE INDEX IF NOT EXISTS marquee_run_organizations_waiting ON marquee_run_organizations (run_id, position) WHERE NOT done;
COMMENT ON TABLE marquee_run_organizations IS 'Marquee: what each divided run lists, and which builder holds each organization';
CREATE TABLE IF NOT EXISTS marquee_run_results (
  run_id text NOT NULL REFERENCES marquee_runs (id) ON DELETE CASCADE,
  ordinal integer NOT NULL,
  result jsonb NOT NULL,
  PRIMARY KEY (run_id, ordinal)
);
COMMENT ON TABLE marquee_run_results IS 'Marquee: each organization''s result in a divided run, numbered in the order recorded';
CREATE TABLE IF NOT EXISTS marquee_schedule_claims (
  slot text PRIMARY KEY,
  builder text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE marquee_schedule_claims IS 'Marquee: the builder that ran each period of the schedule';`;

/** Serializes builders creating the relations at once (CREATE ... IF NOT EXISTS races on the catalog). */
const RUN_RELATIONS_LOCK = 0x6d717275; // "mqru"

/** The relations of one database, made once per process; a failure is tried again at the next call. */
export class RunRelations {
  private made: Promise<void> | undefined;

  constructor(private readonly db: SqlClient) {}

  ready(): Promise<void> {
    this.made ??= ensureRunRelations(this.db).catch((error: unknown) => {
      this.made = undefined;
      throw error;
    });
    return this.made;
  }
}

async function ensureRunRelations(db: SqlClient): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [RUN_RELATIONS_LOCK]);
      const [found] = await tx.query<{ present: boolean }>(`SELECT to_regclass('marquee_schedule_claims') IS NOT NULL AS present`);
      if (!found?.present) await tx.exec(RUN_RELATIONS);
    });
  } catch (error) {
    throw new PlatformDatabaseError(
      `cannot create the run relations (marquee_runs, marquee_run_organizations, marquee_run_results, marquee_schedule_claims) in ${db.description} (schema "${db.schema}"): ${(error as Error).message}; the role of DATABASE_URL needs CREATE on that schema once (docs/platform.md)`,
      { cause: error },
    );
  }
}
