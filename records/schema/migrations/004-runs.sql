-- How builders coordinate their runs (docs/design.md "A run never lies"): marquee_runs holds a run
-- as builders see it and its count of results; marquee_run_organizations one row per organization a
-- run listed, with its claim; marquee_run_results the results in the order they were recorded
-- (builder/runs/database-work-list.ts); marquee_schedule_claims which builder ran each period of
-- the schedule (builder/runs/database-schedule-claims.ts). IF NOT EXISTS: an earlier release's
-- relations, moved here just before, are kept as they are (migrate.ts).
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
COMMENT ON TABLE marquee_schedule_claims IS 'Marquee: the builder that ran each period of the schedule';
