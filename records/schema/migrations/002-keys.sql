-- API keys' durable record (records/keys/postgres-key-store.ts, docs/design.md "Keys outlive any
-- cache"): the SHA-256 of each secret, never the secret; with REDIS_URL, Redis holds the gateways'
-- copy. marquee_key_changes numbers every write, so a copy knows what it missed. IF NOT EXISTS: an
-- earlier release's relations, moved here just before, are kept as they are (migrate.ts).
CREATE SEQUENCE IF NOT EXISTS marquee_key_changes;
CREATE TABLE IF NOT EXISTS marquee_keys (
  id text PRIMARY KEY,
  secret_hash text NOT NULL UNIQUE,
  organization_id text NOT NULL,
  label text,
  origins jsonb NOT NULL,
  prefix text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz,
  revocation_scheduled boolean NOT NULL DEFAULT false,
  last_used_at timestamptz,
  change bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS marquee_keys_organization ON marquee_keys (organization_id);
CREATE INDEX IF NOT EXISTS marquee_keys_change ON marquee_keys (change);
COMMENT ON TABLE marquee_keys IS 'Marquee API keys: the durable record (SHA-256 of each secret, never the secret); Redis holds a copy for the gateways';
