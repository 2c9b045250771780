-- Each organization's last build as the runs' record holds it (records/runs/last-builds.ts): the
-- console and the admin API show it beside the organization, the same on every process, whichever
-- process ran the build (a builder, start, `marquee build`). One row per organization, kept by a
-- trigger on marquee_run_records in the statement that records a run's end, so every writer of
-- runs keeps it, an earlier release's included, and no reader has to open the runs' results: a
-- run over 100,000 organizations holds them all in one value.
CREATE TABLE IF NOT EXISTS marquee_last_builds (
  organization_id text PRIMARY KEY,
  run_id text NOT NULL,
  result text NOT NULL,
  error text,
  finished_at timestamptz NOT NULL
);
COMMENT ON TABLE marquee_last_builds IS 'Marquee: each organization''s result in the latest run to end with one for it';

-- A run's results are written once it has ended (records/runs/run-record.ts); an organization
-- listed twice in one run (built again after its builder died) keeps its later result. An end
-- older than the one kept (a slow run ending after a quicker, later one) changes nothing.
-- search_path FROM CURRENT: the function finds marquee_last_builds in the schema this migration
-- runs in (MARQUEE_SCHEMA), whatever the search_path of the connection that writes a run.
CREATE OR REPLACE FUNCTION marquee_keep_last_builds() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO marquee_last_builds AS kept (organization_id, run_id, result, error, finished_at)
  SELECT DISTINCT ON (built.value->>'id') built.value->>'id', NEW.id, built.value->>'result', nullif(built.value->>'error', ''),
         coalesce((NEW.run->>'finishedAt')::timestamptz, NEW.written_at)
  FROM jsonb_array_elements(CASE WHEN jsonb_typeof(NEW.run->'organizations') = 'array' THEN NEW.run->'organizations' ELSE '[]'::jsonb END)
       WITH ORDINALITY AS built (value, position)
  WHERE built.value->>'id' IS NOT NULL AND built.value->>'result' IS NOT NULL
  ORDER BY built.value->>'id', built.position DESC
  ON CONFLICT (organization_id) DO UPDATE
    SET run_id = excluded.run_id, result = excluded.result, error = excluded.error, finished_at = excluded.finished_at
    WHERE kept.finished_at <= excluded.finished_at;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS marquee_run_records_last_builds ON marquee_run_records;
CREATE TRIGGER marquee_run_records_last_builds AFTER INSERT OR UPDATE ON marquee_run_records
  FOR EACH ROW WHEN (NEW.state IN ('finished', 'failed')) EXECUTE FUNCTION marquee_keep_last_builds();

-- The runs recorded before this migration: each organization's latest result among them.
INSERT INTO marquee_last_builds (organization_id, run_id, result, error, finished_at)
SELECT DISTINCT ON (built.value->>'id') built.value->>'id', record.id, built.value->>'result', nullif(built.value->>'error', ''),
       coalesce((record.run->>'finishedAt')::timestamptz, record.written_at)
FROM marquee_run_records AS record
CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(record.run->'organizations') = 'array' THEN record.run->'organizations' ELSE '[]'::jsonb END)
     WITH ORDINALITY AS built (value, position)
WHERE record.state IN ('finished', 'failed') AND built.value->>'id' IS NOT NULL AND built.value->>'result' IS NOT NULL
ORDER BY built.value->>'id', coalesce((record.run->>'finishedAt')::timestamptz, record.written_at) DESC, built.position DESC
ON CONFLICT (organization_id) DO NOTHING;
