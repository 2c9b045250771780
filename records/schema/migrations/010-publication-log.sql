-- The publication log (docs/design.md "History as evidence"; records/publication-log/): every
-- manifest and state record published, every one retention removed, and the audit trail's heads,
-- one leaf each, numbered from 0 without gaps, in an RFC 9162 Merkle tree whose signed checkpoints
-- (size and root hash) commit to all of it at once.
--
-- marquee_publication_log holds the leaves: `leaf` is the exact bytes hashed (the entry's canonical
-- JSON: records/publication-log/log-entry.ts) and `leaf_hash` their RFC 9162 leaf hash;
-- organization_id and kind are copies of the entry's members, for the readers' filters.
-- marquee_publication_log_subtrees holds the hash of each perfect subtree — (level, index) covers
-- leaves [index·2^level, (index+1)·2^level), level 0 the leaves themselves — written by the append
-- that completes it: every root and proof is a fold of O(log n) of them (merkle.ts), so nothing is
-- ever recomputed from the leaves. Appends are serialized by an advisory lock (log-store.ts) and the
-- primary keys make a fork impossible even without it. The triggers refuse UPDATE, DELETE and
-- TRUNCATE to every role but one that drops them, which the signed checkpoints kept in the snapshot
-- store catch anyway: a rewritten log has no consistency proof to a checkpoint it contradicts.
CREATE TABLE IF NOT EXISTS marquee_publication_log (
  seq bigint PRIMARY KEY CHECK (seq >= 0),
  leaf bytea NOT NULL,
  leaf_hash bytea NOT NULL CHECK (octet_length(leaf_hash) = 32),
  organization_id text,
  kind text NOT NULL CHECK (kind IN ('manifest', 'state-record', 'removal', 'trail-head')),
  appended_at timestamptz NOT NULL,
  CHECK ((kind = 'trail-head') = (organization_id IS NULL))
);
-- entriesOf: one organization's entries, oldest first.
CREATE INDEX IF NOT EXISTS marquee_publication_log_organization ON marquee_publication_log (organization_id, seq);
COMMENT ON TABLE marquee_publication_log IS 'Marquee: what was published and removed, and the audit trail''s heads; append-only, an RFC 9162 Merkle tree''s leaves';

CREATE TABLE IF NOT EXISTS marquee_publication_log_subtrees (
  level smallint NOT NULL CHECK (level >= 0 AND level < 63),
  index bigint NOT NULL CHECK (index >= 0),
  hash bytea NOT NULL CHECK (octet_length(hash) = 32),
  PRIMARY KEY (level, index)
);
COMMENT ON TABLE marquee_publication_log_subtrees IS 'Marquee: the hash of each perfect subtree of the publication log, written once when complete';

CREATE OR REPLACE FUNCTION marquee_publication_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the publication log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
DROP TRIGGER IF EXISTS marquee_publication_log_no_change ON marquee_publication_log;
CREATE TRIGGER marquee_publication_log_no_change BEFORE UPDATE OR DELETE ON marquee_publication_log
  FOR EACH ROW EXECUTE FUNCTION marquee_publication_log_append_only();
DROP TRIGGER IF EXISTS marquee_publication_log_no_truncate ON marquee_publication_log;
CREATE TRIGGER marquee_publication_log_no_truncate BEFORE TRUNCATE ON marquee_publication_log
  FOR EACH STATEMENT EXECUTE FUNCTION marquee_publication_log_append_only();
DROP TRIGGER IF EXISTS marquee_publication_log_subtrees_no_change ON marquee_publication_log_subtrees;
CREATE TRIGGER marquee_publication_log_subtrees_no_change BEFORE UPDATE OR DELETE ON marquee_publication_log_subtrees
  FOR EACH ROW EXECUTE FUNCTION marquee_publication_log_append_only();
DROP TRIGGER IF EXISTS marquee_publication_log_subtrees_no_truncate ON marquee_publication_log_subtrees;
CREATE TRIGGER marquee_publication_log_subtrees_no_truncate BEFORE TRUNCATE ON marquee_publication_log_subtrees
  FOR EACH STATEMENT EXECUTE FUNCTION marquee_publication_log_append_only();
