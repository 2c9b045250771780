// GET /changes (docs/api.md §10): a site that synced once follows the changes since the snapshot it
// read and ends with exactly what the API answers now — every ETag it lists is the one a GET of
// that path answers — and knows from nextClockChangeAt when the clock alone changes an answer.
// Runs embedded and, as a gateway suite, on S3 through the CDN with Redis (vitest.config.ts).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Changes } from '../../../snapshot/schema-types.ts';
import { API, type GatewayHarness, publishFixture, startHarness } from '../../support/gateway-fixtures.ts';
import { fixtureUuid, PlatformFixture } from '../../support/platform-fixture.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const MINUTE = 60_000;

let harness: GatewayHarness;
let key: string;
let fixture: PlatformFixture;
let first: string;
let second: string;
/** The initial sync, taken while `first` was current. */
let initial: Changes;

const call = (path: string, headers: Record<string, string> = {}) => harness.call(`${API}${path}`, { key, headers });

async function changes(query = '', headers: Record<string, string> = {}): Promise<Changes> {
  const reply = await call(`/changes${query}`, headers);
  expect(reply.status, reply.body).toBe(200);
  return reply.json<Changes>();
}

/** Every listed path's ETag is what a GET of it answers now. */
async function expectTagsAnsweredNow(listed: Changes['changed']): Promise<void> {
  for (const { path, etag } of listed) {
    const reply = await harness.call(path, { key });
    expect(reply.status, path).toBe(200);
    expect(reply.headers.etag, path).toBe(etag);
  }
}

beforeAll(async () => {
  harness = await startHarness({ now: new Date(NOW).toISOString() });
  fixture = new PlatformFixture({ id: fixtureUuid(7_001), slug: 'changing', name: 'Changing' });
  fixture.teamMember({ fullName: 'Ada' });
  const talk = fixture.event({ name: 'Talk', slug: 'talk', startsAt: '2026-03-01T14:00:00Z', endsAt: '2026-03-01T16:00:00Z' });
  fixture.session(talk, { name: 'Opening', startsAt: '2026-03-01T14:00:00Z', endsAt: '2026-03-01T14:30:00Z' });
  fixture.event({ name: 'Later', slug: 'later', startsAt: '2026-05-01T09:00:00Z', endsAt: '2026-05-01T17:00:00Z' });
  const gone = fixture.event({ name: 'Gone', slug: 'gone', startsAt: '2026-06-01T09:00:00Z', endsAt: '2026-06-01T17:00:00Z' });
  first = (await publishFixture(harness.store, fixture, { now: new Date(NOW - 10 * MINUTE) })).snapshotId!;
  key = await harness.keyFor(fixture.organization.id);
  initial = await changes();
  // The next snapshot: a team member more, an event renamed, an event unpublished.
  fixture.teamMember({ fullName: 'Grace' });
  fixture.events.find((event) => event.slug === 'later')!.name = 'Later, renamed';
  fixture.events.splice(fixture.events.indexOf(gone), 1);
  second = (await publishFixture(harness.store, fixture, { now: new Date(NOW - MINUTE) })).snapshotId!;
  await harness.channel.announce(fixture.organization.id);
  await vi.waitFor(async () => expect((await call('/organization')).headers['marquee-snapshot-id']).toBe(second), { timeout: 5_000 });
});
afterAll(() => harness?.close());

describe('GET /changes', () => {
  it('without since lists every path of the snapshot, each with the tag a GET answers, and the next clock change', async () => {
    expect(initial).toMatchObject({ snapshotId: first, since: null, removed: [] });
    // The organization's four resources, the list, and four resources per event.
    expect(initial.changed).toHaveLength(5 + 4 * 3);
    expect(initial.changed.map((entry) => entry.path)).toEqual([...initial.changed.map((entry) => entry.path)].sort());
    // The talk starts at 14:00 on the day: the first boundary after noon.
    expect(initial.nextClockChangeAt).toBe('2026-03-01T14:00:00Z');
    const now = await changes();
    expect(now.snapshotId).toBe(second);
    await expectTagsAnsweredNow(now.changed);
  });

  it('with since lists what changed and what was removed; followed from the initial sync it gives every current tag', async () => {
    const delta = await changes(`?since=${first}`);
    expect(delta.snapshotId).toBe(second);
    expect(delta.since).toBe(first);
    const paths = delta.changed.map((entry) => entry.path);
    const later = fixture.events.find((event) => event.slug === 'later')!.id;
    const gone = initial.changed.map((entry) => entry.path).filter((path) => !paths.includes(path) && path.includes('/events/') && !path.includes(later));
    expect(paths).toEqual([`${API}/events`, `${API}/events/${later}`, `${API}/team`]);
    expect(delta.removed).toHaveLength(4);
    for (const path of delta.removed) expect(gone).toContain(path);
    await expectTagsAnsweredNow(delta.changed);

    const followed = new Map(initial.changed.map(({ path, etag }) => [path, etag]));
    for (const path of delta.removed) followed.delete(path);
    for (const { path, etag } of delta.changed) followed.set(path, etag);
    expect(followed).toEqual(new Map((await changes()).changed.map(({ path, etag }) => [path, etag])));
  });

  it('since the current snapshot lists nothing; a 304 while nothing changes', async () => {
    const reply = await call(`/changes?since=${second}`);
    expect(reply.json<Changes>()).toMatchObject({ snapshotId: second, since: second, changed: [], removed: [] });
    expect(reply.headers['marquee-snapshot-id']).toBe(second);
    const again = await call(`/changes?since=${second}`, { 'If-None-Match': reply.headers.etag! });
    expect(again.status).toBe(304);
  });

  it('names the tags of clock-dependent answers at the time of the request, and its own tag changes when the clock changes one', async () => {
    const before = await call('/changes');
    const at = harness.clock.now;
    try {
      harness.clock.now = Date.parse('2026-03-01T14:00:00Z');
      const during = await call('/changes');
      expect(during.headers.etag).not.toBe(before.headers.etag);
      const body = during.json<Changes>();
      expect(body.nextClockChangeAt).toBe('2026-03-01T16:00:00Z');
      await expectTagsAnsweredNow(body.changed);
      harness.clock.now = Date.parse('2026-07-01T00:00:00Z');
      expect((await changes()).nextClockChangeAt).toBeNull();
    } finally {
      harness.clock.now = at;
    }
  });

  it('can be pinned like any answer', async () => {
    const pinned = await changes('', { 'Marquee-Snapshot-Id': first });
    expect(pinned.snapshotId).toBe(first);
    expect(pinned.changed.map((entry) => entry.etag)).toEqual(initial.changed.map((entry) => entry.etag));
  });

  it('a since the store does not keep is 410 SNAPSHOT_EXPIRED naming the current snapshot; one that names no snapshot is 400', async () => {
    const expired = await call('/changes?since=20250101T000000000Z-0123456789ab');
    expect(expired.status).toBe(410);
    expect(expired.json()).toMatchObject({ errorCode: 'SNAPSHOT_EXPIRED', currentSnapshotId: second });
    const malformed = await call('/changes?since=yesterday');
    expect(malformed.status).toBe(400);
    expect(malformed.json<{ detail: string }>().detail).toMatch(/since/);
    expect((await call(`/changes?since=${first}&since=${second}`)).status).toBe(400);
  });
});
