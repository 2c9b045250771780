-- Webhook endpoints, their messages (the outbox builds queue into), deliveries and the attempts
-- logged per endpoint (builder/webhooks/webhook-store.ts, docs/design.md "Webhooks"). IF NOT
-- EXISTS: an earlier release's relations, moved here just before, are kept as they are (migrate.ts).
CREATE TABLE IF NOT EXISTS marquee_webhook_endpoints (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  url text NOT NULL,
  description text,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  secret text NOT NULL,
  previous_secret text,
  previous_secret_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  failing_since timestamptz
);
CREATE INDEX IF NOT EXISTS marquee_webhook_endpoints_organization ON marquee_webhook_endpoints (organization_id);
CREATE TABLE IF NOT EXISTS marquee_webhook_messages (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  type text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS marquee_webhook_deliveries (
  message_id text NOT NULL REFERENCES marquee_webhook_messages (id) ON DELETE CASCADE,
  endpoint_id text NOT NULL REFERENCES marquee_webhook_endpoints (id) ON DELETE CASCADE,
  state text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  due_at timestamptz,
  claimed_by text,
  claimed_until timestamptz,
  queued_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (message_id, endpoint_id)
);
CREATE INDEX IF NOT EXISTS marquee_webhook_deliveries_due ON marquee_webhook_deliveries (due_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS marquee_webhook_deliveries_endpoint ON marquee_webhook_deliveries (endpoint_id) WHERE state = 'pending';
CREATE TABLE IF NOT EXISTS marquee_webhook_attempts (
  id bigserial PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES marquee_webhook_endpoints (id) ON DELETE CASCADE,
  message_id text NOT NULL,
  type text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  status integer,
  error text,
  duration_ms integer NOT NULL,
  response text
);
CREATE INDEX IF NOT EXISTS marquee_webhook_attempts_endpoint ON marquee_webhook_attempts (endpoint_id, id);
COMMENT ON TABLE marquee_webhook_endpoints IS 'Marquee webhook endpoints per organization, with their signing secrets';
