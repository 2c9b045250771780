// The webhook store's promises on a real database (PGlite, in process): a failing endpoint's run of
// failures disables it after WEBHOOK_DISABLE_AFTER, saying so, and its deliveries wait until it is
// enabled again; the last retry's failure ends a delivery as failed; a delivery is held by one
// builder at a time, and a second claim of the same endpoint waits for the first to finish; an
// attempt finished by a builder that lost its claim is logged but changes nothing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openFreshPglite } from '../../support/fresh-pglite.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { testMessage } from '../../../builder/webhooks/messages.ts';
import { WebhookStore } from '../../../builder/webhooks/webhook-store.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';

let db: SqlClient;
let store: WebhookStore;
const failedAttempt = { status: 500, error: 'answered 500', durationMs: 3, response: 'no' };

beforeAll(async () => {
  db = await openFreshPglite();
  await migrateMarquee(db);
  await migrateMarquee(db); // idempotent
  store = new WebhookStore(db);
}, 60_000);

afterAll(async () => {
  await db?.close();
});

const endpointFor = async (organizationId: string) => (await store.create({ organizationId, url: 'https://hooks.example/a', description: null })).endpoint;

it('disables an endpoint whose every attempt failed for the time allowed, and holds its deliveries until it is enabled', async () => {
  const endpoint = await endpointFor('org-disable');
  await store.queueFor(endpoint, testMessage('org-disable', 'disable', endpoint.id, new Date()));
  const [first] = await store.claim('a', 10, 30_000);
  expect(first!.endpointId).toBe(endpoint.id);
  // The first failure starts the run of failures; not yet disabled.
  expect(await store.finish('a', first!, failedAttempt, { outcome: 'retry', afterMs: 0 }, 50)).toEqual({ disabled: false });
  await new Promise((resolve) => setTimeout(resolve, 80));
  const [second] = await store.claim('a', 10, 30_000);
  expect(await store.finish('a', second!, failedAttempt, { outcome: 'retry', afterMs: 0 }, 50)).toEqual({ disabled: true });
  const disabled = (await store.get(endpoint.id))!;
  expect(disabled.enabled).toBe(false);
  expect(disabled.disabledReason).toMatch(/^disabled by the deliverer at \S+: every attempt failed since \S+$/);
  expect(await store.claim('a', 10, 30_000)).toEqual([]);
  // Enabled again by an operator: the reason and the run are gone, the delivery is due.
  const enabled = (await store.update(endpoint.id, { enabled: true }))!;
  expect(enabled).toMatchObject({ enabled: true, disabledReason: null });
  const [third] = await store.claim('a', 10, 30_000);
  expect(third).toMatchObject({ messageId: first!.messageId, attempts: 2 });
  expect(await store.finish('a', third!, { status: 204, error: null, durationMs: 1, response: '' }, { outcome: 'delivered' }, 50)).toEqual({ disabled: false });
  expect((await store.attempts(endpoint.id)).map((attempt) => attempt.status)).toEqual([204, 500, 500]);
});

it('ends a delivery failed after its last retry, and sends one message per endpoint at a time, in order', async () => {
  const endpoint = await endpointFor('org-order');
  const ids = [];
  for (let n = 0; n < 3; n++) ids.push(await store.queueFor(endpoint, testMessage('org-order', 'order', endpoint.id, new Date())));
  // Queued in one tick of the clock (PGlite's counts milliseconds), as one transaction's would be:
  // their order must still be the order they were written, not their random ids'.
  await db.query('UPDATE marquee_webhook_deliveries SET queued_at = (SELECT max(queued_at) FROM marquee_webhook_deliveries) WHERE endpoint_id = $1', [endpoint.id]);
  const [taken, ...others] = await store.claim('a', 10, 30_000);
  expect(others.filter((claim) => claim.endpointId === endpoint.id)).toEqual([]);
  expect(taken!.messageId).toBe(ids[0]);
  // Another builder finds nothing of this endpoint while the first holds its delivery.
  expect((await store.claim('b', 10, 30_000)).filter((claim) => claim.endpointId === endpoint.id)).toEqual([]);
  await store.finish('a', taken!, failedAttempt, { outcome: 'failed' }, 86_400_000);
  const [next] = await store.claim('b', 10, 30_000);
  expect(next!.messageId).toBe(ids[1]);
  // A builder that no longer holds it (its lease was taken over) logs the attempt, changes nothing.
  await store.finish('a', next!, failedAttempt, { outcome: 'failed' }, 86_400_000);
  expect((await store.claim('c', 10, 30_000)).filter((claim) => claim.endpointId === endpoint.id)).toEqual([]);
  await store.finish('b', next!, { status: 200, error: null, durationMs: 1, response: '' }, { outcome: 'delivered' }, 86_400_000);
  expect((await store.claim('c', 10, 30_000)).map((claim) => claim.messageId)).toEqual([ids[2]]);
  // The failed one can be sent again, as new, under its id.
  expect(await store.redeliver(endpoint.id, ids[0]!)).toBe(true);
  expect(await store.redeliver(endpoint.id, 'msg_unknown')).toBe(false);
});

it("holds back an endpoint's later messages while its oldest waits for a retry: a site gets them in the order they were queued", async () => {
  const endpoint = await endpointFor('org-retry-order');
  const first = await store.queueFor(endpoint, testMessage('org-retry-order', 'first', endpoint.id, new Date()));
  const second = await store.queueFor(endpoint, testMessage('org-retry-order', 'second', endpoint.id, new Date()));
  const ofEndpoint = async (builder: string) => (await store.claim(builder, 10, 30_000)).filter((claim) => claim.endpointId === endpoint.id);
  const [taken] = await ofEndpoint('a');
  expect(taken!.messageId).toBe(first);
  await store.finish('a', taken!, failedAttempt, { outcome: 'retry', afterMs: 300 }, 86_400_000);
  // The second is due, the first is not yet: nothing of this endpoint is sent until the first is.
  expect(await ofEndpoint('b')).toEqual([]);
  let retried: Awaited<ReturnType<typeof ofEndpoint>> = [];
  await expect.poll(async () => (retried = await ofEndpoint('b')).length, { timeout: 5_000, interval: 50 }).toBe(1);
  expect(retried[0]!.messageId).toBe(first);
  await store.finish('b', retried[0]!, { status: 200, error: null, durationMs: 1, response: '' }, { outcome: 'delivered' }, 86_400_000);
  expect((await ofEndpoint('c')).map((claim) => claim.messageId)).toEqual([second]);
});

it('queues a publish for every enabled endpoint of the organization, and nothing where it has none', async () => {
  const one = await endpointFor('org-queue');
  const two = await endpointFor('org-queue');
  await store.update(two.id, { enabled: false });
  const message = { type: 'snapshot.published' as const, timestamp: new Date().toISOString(), data: {} };
  expect(await store.queue('org-queue', [message])).toBe(1);
  expect(await store.queue('org-without-endpoints', [message])).toBe(0);
  const [{ count }] = (await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM marquee_webhook_messages WHERE organization_id = 'org-without-endpoints'`)) as [
    { count: number },
  ];
  expect(count).toBe(0);
  expect((await store.claim('a', 10, 30_000)).filter((claim) => claim.endpointId === one.id)).toHaveLength(1);
});
