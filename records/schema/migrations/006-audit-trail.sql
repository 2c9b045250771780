-- The audit trail (docs/design.md "Who did what"; admin/trail/): one row per state-changing action
-- through any door, numbered without gaps and hash-chained: `hash` is the SHA-256 of the entry's
-- canonical form, which holds `previous_hash`, so an edit or a removal anywhere breaks the chain
-- (records/trail/audit-entry.ts). Appends are serialized by an advisory lock (audit-trail.ts); the
-- primary key and the unique predecessor make a fork impossible even without it. The triggers
-- refuse UPDATE, DELETE and TRUNCATE to every role but one that drops them, which `audit-log
-- verify` catches anyway, against the heads kept in the snapshot store.
CREATE TABLE IF NOT EXISTS marquee_audit_trail (
  seq bigint PRIMARY KEY CHECK (seq >= 1),
  at timestamptz NOT NULL,
  actor text NOT NULL,
  actor_role text NOT NULL,
  door text NOT NULL CHECK (door IN ('api', 'console', 'cli')),
  action text NOT NULL,
  organization_id text,
  target_id text,
  outcome text NOT NULL CHECK (outcome IN ('ok', 'refused', 'failed')),
  reason text,
  request_id text,
  client_address text,
  changes jsonb NOT NULL,
  previous_hash text NOT NULL UNIQUE,
  hash text NOT NULL UNIQUE
);
-- The readers' filters, newest first: by organization, by actor, by action.
CREATE INDEX IF NOT EXISTS marquee_audit_trail_organization ON marquee_audit_trail (organization_id, seq DESC);
CREATE INDEX IF NOT EXISTS marquee_audit_trail_actor ON marquee_audit_trail (actor, seq DESC);
CREATE INDEX IF NOT EXISTS marquee_audit_trail_action ON marquee_audit_trail (action, seq DESC);
CREATE INDEX IF NOT EXISTS marquee_audit_trail_at ON marquee_audit_trail (at);
COMMENT ON TABLE marquee_audit_trail IS 'Marquee: who did what, through which door; append-only and hash-chained';

CREATE OR REPLACE FUNCTION marquee_audit_trail_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit trail is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
DROP TRIGGER IF EXISTS marquee_audit_trail_no_change ON marquee_audit_trail;
CREATE TRIGGER marquee_audit_trail_no_change BEFORE UPDATE OR DELETE ON marquee_audit_trail
  FOR EACH ROW EXECUTE FUNCTION marquee_audit_trail_append_only();
DROP TRIGGER IF EXISTS marquee_audit_trail_no_truncate ON marquee_audit_trail;
CREATE TRIGGER marquee_audit_trail_no_truncate BEFORE TRUNCATE ON marquee_audit_trail
  FOR EACH STATEMENT EXECUTE FUNCTION marquee_audit_trail_append_only();
