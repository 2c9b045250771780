-- What a scheduled run needs to build only what changed (builder/platform/versions.ts, docs/platform.md
-- §5.1): each organization's source version, advanced by the platform's change triggers, and what
-- each build read, per snapshot store. IF NOT EXISTS: an earlier release's relations, moved here
-- just before, are kept as they are (migrate.ts).
--
-- The source version comes from one sequence, not a per-organization counter: a version is never
-- reused, so a relation emptied by hand makes every organization differ rather than match.
CREATE SEQUENCE IF NOT EXISTS marquee_source_version;
CREATE TABLE IF NOT EXISTS marquee_source_versions (
  organization_id uuid PRIMARY KEY,
  version bigint NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE marquee_source_versions IS 'Marquee: advanced by the change triggers on every change to an organization''s rows';
CREATE TABLE IF NOT EXISTS marquee_built_versions (
  store text NOT NULL,
  organization_id uuid NOT NULL,
  source_version bigint NOT NULL,
  projection_version text NOT NULL,
  built_at timestamptz NOT NULL,
  PRIMARY KEY (store, organization_id)
);
CREATE INDEX IF NOT EXISTS marquee_built_versions_built_at ON marquee_built_versions (store, built_at);
COMMENT ON TABLE marquee_built_versions IS 'Marquee: the versions each organization was last built from, per snapshot store';
