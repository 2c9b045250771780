// GET /changes?since= a snapshot retention removed answers 410 SNAPSHOT_EXPIRED on every gateway
// (docs/api.md §10): on one that served it before and still holds its manifest in memory as on one
// that never read it, because the store's retention decides, not a gateway's cache
// (gateway/snapshot-cache/retained-snapshots.ts). Two gateways on one store, as behind a load balancer.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { retainOrganization, retentionPolicy } from '../../../builder/retention.ts';
import { API, type GatewayHarness, publishFixture, startHarness } from '../../support/gateway-fixtures.ts';
import { fixtureUuid, PlatformFixture } from '../../support/platform-fixture.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const HOUR = 3_600_000;

let served: GatewayHarness;
let other: GatewayHarness;
let servedKey: string;
let otherKey: string;
let fixture: PlatformFixture;
let old: string;
let current: string;

beforeAll(async () => {
  served = await startHarness({ now: new Date(NOW).toISOString() });
  other = await startHarness({ now: new Date(NOW).toISOString(), store: served.store });
  fixture = new PlatformFixture({ id: fixtureUuid(7_101), slug: 'retained', name: 'Retained' });
  fixture.teamMember({ fullName: 'Ada' });
  old = (await publishFixture(served.store, fixture, { now: new Date(NOW - 3 * HOUR) })).snapshotId!;
  fixture.teamMember({ fullName: 'Grace' });
  current = (await publishFixture(served.store, fixture, { now: new Date(NOW - 2 * HOUR) })).snapshotId!;
  servedKey = await served.keyFor(fixture.organization.id);
  otherKey = await other.keyFor(fixture.organization.id);
});
afterAll(async () => {
  await other?.close();
  await served?.close();
});

const changesSince = (harness: GatewayHarness, key: string, since: string) => harness.call(`${API}/changes?since=${since}`, { key });

it('a since retention removed is 410 on the gateway that served it as on one that never did', async () => {
  const before = await changesSince(served, servedKey, old);
  expect(before.status, before.body).toBe(200);
  expect(before.json()).toMatchObject({ snapshotId: current, since: old });

  // Retention keeps the current snapshot alone: the old one stopped being current two hours ago.
  const removed = await retainOrganization(served.store, fixture.organization.id, retentionPolicy({ keep: 1, days: 0, graceMinutes: 0, now: new Date(NOW) }));
  expect(removed.snapshots).toEqual([old]);

  const expired = { status: 410, errorCode: 'SNAPSHOT_EXPIRED', currentSnapshotId: current };
  const answer = async (harness: GatewayHarness, key: string) => {
    const reply = await changesSince(harness, key, old);
    return { status: reply.status, ...reply.json<{ errorCode?: string; currentSnapshotId?: string }>() };
  };
  expect(await answer(other, otherKey)).toMatchObject(expired);
  // The served one asks the store again once its last yes is older than a pointer may be (1 s).
  await expect.poll(() => answer(served, servedKey), { timeout: 5_000, interval: 100 }).toMatchObject(expired);
  expect(await answer(other, otherKey)).toMatchObject(expired);
  // What is kept still compares on both.
  expect((await changesSince(served, servedKey, current)).status).toBe(200);
  expect((await changesSince(other, otherKey, current)).status).toBe(200);
});
