-- The audit trail's numbers are never handed out twice (docs/design.md "Who did what";
-- records/trail/audit-trail.ts). Until now the appender took the head's number plus one, so an
-- owner who dropped the triggers and deleted the newest entries had the next appends take their
-- numbers again, and the chain closed over the removal. Now the appender draws its number here,
-- under the same advisory lock: a removal of the newest entries leaves a gap in the numbers that
-- the next append does not fill, which `audit-log verify` reports as entries missing.
--
-- A one-row counter rather than a SEQUENCE: nextval is not undone when its transaction rolls back,
-- so an append that failed after drawing (a dropped connection, a killed process) would leave a
-- gap no one made, which verify could not tell from a deletion. This row moves only when an entry
-- is committed. It only rises: the trigger refuses lowering it, deleting it and TRUNCATE, to every
-- role but one that drops the trigger — and a trail rewritten that far still disagrees with the
-- heads kept in the snapshot store.
CREATE TABLE IF NOT EXISTS marquee_audit_trail_counter (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  last_seq bigint NOT NULL CHECK (last_seq >= 0)
);
COMMENT ON TABLE marquee_audit_trail_counter IS 'Marquee: the last number the audit trail handed out; only rises';

-- An existing trail continues after its newest entry: what was removed before this migration is
-- not known to the database (the heads in the store still know it).
INSERT INTO marquee_audit_trail_counter (only_row, last_seq)
  SELECT true, coalesce(max(seq), 0) FROM marquee_audit_trail
  ON CONFLICT (only_row) DO NOTHING;

CREATE OR REPLACE FUNCTION marquee_audit_trail_counter_rises() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.last_seq >= OLD.last_seq THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION 'the audit trail''s counter only rises: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
DROP TRIGGER IF EXISTS marquee_audit_trail_counter_rises ON marquee_audit_trail_counter;
CREATE TRIGGER marquee_audit_trail_counter_rises BEFORE UPDATE OR DELETE ON marquee_audit_trail_counter
  FOR EACH ROW EXECUTE FUNCTION marquee_audit_trail_counter_rises();
DROP TRIGGER IF EXISTS marquee_audit_trail_counter_no_truncate ON marquee_audit_trail_counter;
CREATE TRIGGER marquee_audit_trail_counter_no_truncate BEFORE TRUNCATE ON marquee_audit_trail_counter
  FOR EACH STATEMENT EXECUTE FUNCTION marquee_audit_trail_counter_rises();
