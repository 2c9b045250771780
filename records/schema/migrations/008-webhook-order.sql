-- The order in which an endpoint's messages were queued, kept exactly (builder/webhooks/webhook-store.ts
-- claim): queued_at is the queueing transaction's start, so messages queued in one transaction, or in
-- one tick of a clock that counts milliseconds (PGlite's), tie on it, and their random ids put them in
-- a random order. A sequence number breaks the tie as they were written. Deliveries already waiting
-- get numbers in the order of their queued_at.
ALTER TABLE marquee_webhook_deliveries ADD COLUMN IF NOT EXISTS queued_order bigint;
CREATE SEQUENCE IF NOT EXISTS marquee_webhook_deliveries_queued_order OWNED BY marquee_webhook_deliveries.queued_order;
UPDATE marquee_webhook_deliveries d SET queued_order = n.position
  FROM (SELECT message_id, endpoint_id, row_number() OVER (ORDER BY queued_at, message_id) AS position FROM marquee_webhook_deliveries) n
  WHERE d.queued_order IS NULL AND n.message_id = d.message_id AND n.endpoint_id = d.endpoint_id;
SELECT setval('marquee_webhook_deliveries_queued_order', GREATEST((SELECT max(queued_order) FROM marquee_webhook_deliveries), 0) + 1, false);
ALTER TABLE marquee_webhook_deliveries ALTER COLUMN queued_order SET DEFAULT nextval('marquee_webhook_deliveries_queued_order');
ALTER TABLE marquee_webhook_deliveries ALTER COLUMN queued_order SET NOT NULL;
