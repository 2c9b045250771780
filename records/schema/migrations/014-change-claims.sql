-- Which builder builds an organization's latest change (builder/runs/database-change-claims.ts):
-- every builder hears each change notification, and the first to claim the organization after
-- hearing it builds it; the others see a claim taken after they heard the change and leave it. A
-- claim its builder stops keeping (kept_at, renewed while it builds) is taken over by another
-- builder once older than the claim timeout, so a builder that dies mid-change does not lose it.
-- One row per organization, replaced by each new claim; nothing else refers to it.
CREATE TABLE IF NOT EXISTS marquee_change_claims (
  organization_id text PRIMARY KEY,
  builder text NOT NULL,
  token text NOT NULL,
  claimed_at timestamptz NOT NULL,
  kept_at timestamptz NOT NULL,
  done boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE marquee_change_claims IS 'Marquee: the builder that builds each organization''s latest change';
