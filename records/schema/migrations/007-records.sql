-- Every build run as operators see it, whoever or whatever asked for it (records/runs/run-record.ts,
-- docs/design.md "Runs are part of the record"): the run as the admin API shows it, written by the
-- process that runs it (a builder, start, or `marquee build`) as it goes, so that every builder's
-- admin API and console list the same runs, across restarts. Kept 90 days. written_at is the
-- database's time of the last write: a process writes its unfinished runs at least every 30 s, so
-- one not written for longer was left by a process that died (its readers show it failed).
CREATE TABLE IF NOT EXISTS marquee_run_records (
  id text PRIMARY KEY,
  queued_at timestamptz NOT NULL,
  state text NOT NULL,
  run jsonb NOT NULL,
  written_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS marquee_run_records_newest ON marquee_run_records (queued_at DESC, id DESC);
COMMENT ON TABLE marquee_run_records IS 'Marquee: every build run, with its trigger and who requested it';
-- The running builders and the webhook destinations each accepts (WEBHOOK_ALLOW_PRIVATE and
-- WEBHOOK_ALLOW_INSECURE), refreshed while it runs (builder/webhooks/webhook-store.ts, announcePolicy): a
-- registration made elsewhere (the CLI) warns when a running builder would refuse to deliver there.
CREATE TABLE IF NOT EXISTS marquee_builder_policies (
  builder text PRIMARY KEY,
  allow_private boolean NOT NULL,
  allow_insecure boolean NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE marquee_builder_policies IS 'Marquee: the webhook destinations each running builder delivers to';
