-- Usage per key (docs/design.md "Usage per key"; records/usage/): what gateways counted, per key,
-- per UTC hour, per route label and per outcome, kept USAGE_RETENTION_DAYS and pruned by the
-- builders' usage intake (records/usage/usage-intake.ts).
--
-- marquee_key_usage: requests per (key, hour, route, status, error_code); error_code is the
-- problem's errorCode for a 403 (whose causes an operator must tell apart), '' otherwise.
-- organization_id is the key's, copied so that an organization's usage is one indexed read.
CREATE TABLE IF NOT EXISTS marquee_key_usage (
  key_id text NOT NULL,
  hour timestamptz NOT NULL CHECK (date_trunc('hour', hour) = hour),
  route text NOT NULL,
  status smallint NOT NULL CHECK (status BETWEEN 100 AND 599),
  error_code text NOT NULL DEFAULT '',
  organization_id text NOT NULL,
  requests bigint NOT NULL CHECK (requests > 0),
  PRIMARY KEY (key_id, hour, route, status, error_code)
);
CREATE INDEX IF NOT EXISTS marquee_key_usage_organization ON marquee_key_usage (organization_id, hour);
-- Pruning deletes by hour alone.
CREATE INDEX IF NOT EXISTS marquee_key_usage_hour ON marquee_key_usage (hour);
COMMENT ON TABLE marquee_key_usage IS 'Marquee: requests per API key, UTC hour, route and outcome, as gateways counted them';

-- The browser origins a key's requests were refused for (403 API_KEY_ORIGIN_NOT_ALLOWED), per hour.
-- A key's origins in one hour are bounded (usage-store.ts): past the bound, further new origins are
-- counted together under origin ''.
CREATE TABLE IF NOT EXISTS marquee_key_usage_origins (
  key_id text NOT NULL,
  hour timestamptz NOT NULL CHECK (date_trunc('hour', hour) = hour),
  origin text NOT NULL,
  organization_id text NOT NULL,
  requests bigint NOT NULL CHECK (requests > 0),
  PRIMARY KEY (key_id, hour, origin)
);
CREATE INDEX IF NOT EXISTS marquee_key_usage_origins_organization ON marquee_key_usage_origins (organization_id, hour);
CREATE INDEX IF NOT EXISTS marquee_key_usage_origins_hour ON marquee_key_usage_origins (hour);
COMMENT ON TABLE marquee_key_usage_origins IS 'Marquee: refused browser origins per API key and UTC hour';

-- The batches of counts already added, by id: a batch handed over twice (a gateway that moved it
-- again after a lost answer, or after Redis lost it; two builders taking it at once) is added once.
-- Its id is written in the transaction that adds its counts. Ids are kept well past the longest a
-- gateway or the shared place holds a batch, then pruned with the counts.
CREATE TABLE IF NOT EXISTS marquee_usage_batches (
  id text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS marquee_usage_batches_applied ON marquee_usage_batches (applied_at);
COMMENT ON TABLE marquee_usage_batches IS 'Marquee: usage batches already counted, so that none is counted twice';
