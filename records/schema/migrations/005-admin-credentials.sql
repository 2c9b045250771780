-- Named admin credentials (admin/credentials/, docs/design.md "Who did what"): who may use the
-- admin port besides ADMIN_TOKEN, each with one role. The SHA-256 of each secret, never the secret;
-- the prefix only lets a person recognise one. Rows are never deleted: a revoked credential keeps
-- its name, so a name in the audit trail always names one credential.
CREATE TABLE IF NOT EXISTS marquee_admin_credentials (
  name text PRIMARY KEY,
  role text NOT NULL CHECK (role IN ('auditor', 'operator', 'owner')),
  secret_hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  created_at timestamptz NOT NULL,
  created_by text NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz,
  revoked_by text,
  last_used_at timestamptz
);
COMMENT ON TABLE marquee_admin_credentials IS 'Marquee: named admin credentials with their roles (SHA-256 of each secret, never the secret)';
