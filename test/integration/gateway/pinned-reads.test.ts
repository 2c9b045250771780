// Every answer a snapshot decides names it (Marquee-Snapshot-Id), and a read that names one is
// answered from it while it is current or stopped being current less than the pin window ago
// (docs/api.md §10): a site's build that pins its first answer's snapshot reads one snapshot
// throughout, whatever is published meanwhile. Runs embedded and, as a gateway suite, on S3
// through the CDN with Redis (vitest.config.ts), where a pinned snapshot the gateway never held is
// read through the CDN.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Organization, PagedEventSummaries } from '../../../snapshot/schema-types.ts';
import { API, type GatewayHarness, publishFixture, startHarness } from '../../support/gateway-fixtures.ts';
import { fixtureUuid, PlatformFixture } from '../../support/platform-fixture.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const MINUTE = 60_000;
const PIN = 'Marquee-Snapshot-Id';

let harness: GatewayHarness;
let key: string;
let fixture: PlatformFixture;
/** Published 20 minutes before NOW; superseded 5 minutes before NOW by `second`. */
let first: string;
let second: string;

const at = (ms: number) => new Date(ms);

beforeAll(async () => {
  harness = await startHarness({ now: new Date(NOW).toISOString() });
  fixture = new PlatformFixture({ name: 'Before' });
  fixture.event({ name: 'Kept', slug: 'kept', startsAt: '2026-04-01T09:00:00Z', endsAt: '2026-04-01T17:00:00Z' });
  const dropped = fixture.event({ name: 'Dropped', slug: 'dropped', startsAt: '2026-04-02T09:00:00Z', endsAt: '2026-04-02T17:00:00Z' });
  first = (await publishFixture(harness.store, fixture, { now: at(NOW - 20 * MINUTE) })).snapshotId!;
  // The next snapshot renames the organization and drops an event: both are published before the
  // gateway answers anything, so it never held the first one as current.
  fixture.organization.name = 'After';
  fixture.events.splice(fixture.events.indexOf(dropped), 1);
  second = (await publishFixture(harness.store, fixture, { now: at(NOW - 5 * MINUTE) })).snapshotId!;
  key = await harness.keyFor(fixture.organization.id);
});
afterAll(() => harness?.close());

const call = (path: string, headers: Record<string, string> = {}) => harness.call(`${API}${path}`, { key, headers });

describe('Marquee-Snapshot-Id on answers', () => {
  it('names the current snapshot on a 200, a 304 and a 404 EVENT_NOT_FOUND, and is readable by page scripts', async () => {
    const ok = await call('/organization');
    expect(ok.status).toBe(200);
    expect(ok.headers['marquee-snapshot-id']).toBe(second);
    expect(ok.headers['access-control-expose-headers']).toContain(PIN);
    const again = await call('/organization', { 'If-None-Match': ok.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.headers['marquee-snapshot-id']).toBe(second);
    const missing = await call('/events/no-such-event');
    expect(missing.status).toBe(404);
    expect(missing.json<{ errorCode: string }>().errorCode).toBe('EVENT_NOT_FOUND');
    expect(missing.headers['marquee-snapshot-id']).toBe(second);
  });

  it('is absent from answers no snapshot decides: 401, 400, 404 for an unknown path, 405', async () => {
    expect((await harness.call(`${API}/organization`, { key: 'mqk_not-a-key' })).headers['marquee-snapshot-id']).toBeUndefined();
    const badParameter = await call('/events?timing=soon');
    expect(badParameter.status).toBe(400);
    expect(badParameter.headers['marquee-snapshot-id']).toBeUndefined();
    expect((await call('/nowhere')).headers['marquee-snapshot-id']).toBeUndefined();
    expect((await harness.call(`${API}/organization`, { key, method: 'DELETE' })).headers['marquee-snapshot-id']).toBeUndefined();
  });

  it('is allowed in a preflight, so a page can pin its reads', async () => {
    const preflight = await harness.call(`${API}/events`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://site.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key, marquee-snapshot-id' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toContain(PIN);
  });
});

describe('a pinned read', () => {
  it('is answered from the snapshot it names while that stopped being current less than the window ago', async () => {
    const pinned = await call('/organization', { [PIN]: first });
    expect(pinned.status).toBe(200);
    expect(pinned.headers['marquee-snapshot-id']).toBe(first);
    expect(pinned.json<Organization>().name).toBe('Before');
    const list = await call('/events?timing=all', { [PIN]: first });
    expect(list.json<PagedEventSummaries>().items.map((event) => event.name)).toEqual(['Kept', 'Dropped']);
    expect((await call('/events/dropped', { [PIN]: first })).status).toBe(200);
    // Unpinned, the same gateway answers from the current snapshot.
    expect((await call('/events?timing=all')).json<PagedEventSummaries>().items.map((event) => event.name)).toEqual(['Kept']);
    const gone = await call('/events/dropped', { [PIN]: second });
    expect(gone.status).toBe(404);
    expect(gone.headers['marquee-snapshot-id']).toBe(second);
  });

  it('keeps entity tags and 304s, and computes clock fields for now', async () => {
    const pinned = await call('/events/kept', { [PIN]: first });
    const etag = pinned.headers.etag!;
    expect(pinned.json<{ timing: string }>().timing).toBe('upcoming');
    const revalidated = await call('/events/kept', { [PIN]: first, 'If-None-Match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers['marquee-snapshot-id']).toBe(first);
    const before = harness.clock.now;
    try {
      // Six weeks on the pin has long expired: the window is judged by the clock like everything else.
      harness.clock.now = Date.parse('2026-04-01T10:00:00Z');
      const expired = await call('/events/kept', { [PIN]: first });
      expect(expired.status).toBe(409);
    } finally {
      harness.clock.now = before;
    }
  });

  it('past the window, or for an id the organization never had, is 409 SNAPSHOT_NOT_CURRENT naming the current snapshot', async () => {
    const before = harness.clock.now;
    try {
      // The first snapshot stopped being current 5 minutes before NOW; the window is 10 minutes.
      harness.clock.now = NOW + 4 * MINUTE;
      expect((await call('/organization', { [PIN]: first })).status).toBe(200);
      harness.clock.now = NOW + 5 * MINUTE;
      const expired = await call('/organization', { [PIN]: first });
      expect(expired.status).toBe(409);
      expect(expired.headers['marquee-snapshot-id']).toBe(second);
      expect(expired.headers['cache-control']).toBe('no-store');
      const body = expired.json<{ errorCode: string; currentSnapshotId: string; detail: string }>();
      expect(body).toMatchObject({ errorCode: 'SNAPSHOT_NOT_CURRENT', currentSnapshotId: second });
      expect(body.detail).toMatch(/start over/i);
      // The current snapshot can always be pinned.
      expect((await call('/organization', { [PIN]: second })).status).toBe(200);
    } finally {
      harness.clock.now = before;
    }
    const never = await call('/organization', { [PIN]: '20250101T000000000Z-0123456789ab' });
    expect(never.status).toBe(409);
    expect(never.json<{ currentSnapshotId: string }>().currentSnapshotId).toBe(second);
  });

  it('names a snapshot published after the gateway last read the pointer (another gateway served it first): answered from it, not 409', async () => {
    const other = new PlatformFixture({ id: fixtureUuid(9_002), name: 'Read elsewhere first', slug: 'read-elsewhere-first' });
    const older = (await publishFixture(harness.store, other, { now: at(NOW - 3 * MINUTE) })).snapshotId!;
    const otherKey = await harness.keyFor(other.organization.id);
    const read = (headers: Record<string, string> = {}) => harness.call(`${API}/organization`, { key: otherKey, headers });
    expect((await read()).headers['marquee-snapshot-id']).toBe(older);
    // Published and not announced: this gateway holds `older` as current for up to a second more.
    other.organization.name = 'Read elsewhere first, renamed';
    const newer = (await publishFixture(harness.store, other, { now: at(NOW - 2 * MINUTE) })).snapshotId!;
    const pinned = await read({ [PIN]: newer });
    expect({ status: pinned.status, snapshot: pinned.headers['marquee-snapshot-id'], name: pinned.json<Organization>().name }).toEqual({
      status: 200,
      snapshot: newer,
      name: 'Read elsewhere first, renamed',
    });
    // A later id that names nothing yet, or one dated in the future, is still 409 naming the current snapshot.
    for (const bogus of [`${newer.slice(0, 20)}000000000000`, '20990101T000000000Z-0123456789ab']) {
      const refused = await read({ [PIN]: bogus });
      expect({ status: refused.status, snapshot: refused.headers['marquee-snapshot-id'] }).toEqual({ status: 409, snapshot: newer });
    }
  });

  it('that cannot name a snapshot is 400 BAD_REQUEST', async () => {
    const malformed = await call('/organization', { [PIN]: 'yesterday' });
    expect(malformed.status).toBe(400);
    expect(malformed.json<{ detail: string }>().detail).toContain(PIN);
  });

  // docs/api.md §5.10: the key, the organization's state, the origin and the rate limit, then the
  // path and the method, and only then the parameters and the pin's form.
  it('that cannot name a snapshot is judged after the key, the path and the method, on every route', async () => {
    const errorCode = (reply: { json<T>(): T }) => reply.json<{ errorCode: string }>().errorCode;
    const noKey = await harness.call(`${API}/organization`, { headers: { [PIN]: 'yesterday' } });
    expect({ status: noKey.status, errorCode: errorCode(noKey) }).toEqual({ status: 401, errorCode: 'API_KEY_INVALID' });
    const unknownPath = await call('/no-such-path', { [PIN]: 'yesterday' });
    expect({ status: unknownPath.status, errorCode: errorCode(unknownPath) }).toEqual({ status: 404, errorCode: 'NOT_FOUND' });
    const undecodable = await call('/events/%E0%A4%A', { [PIN]: 'yesterday' });
    expect({ status: undecodable.status, detail: undecodable.json<{ detail: string }>().detail }).toEqual({ status: 400, detail: expect.stringContaining('percent-encoded') });
    for (const path of [
      '/organization',
      '/team',
      '/speakers',
      '/sponsors',
      '/events',
      '/events/kept',
      '/events/kept/sessions',
      '/events/kept/speakers',
      '/events/kept/sponsors',
      '/changes',
    ]) {
      const deleted = await harness.call(`${API}${path}`, { key, method: 'DELETE', headers: { [PIN]: 'yesterday' } });
      expect({ path, status: deleted.status, errorCode: errorCode(deleted) }).toEqual({ path, status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
      const malformed = await call(path, { [PIN]: 'yesterday' });
      expect({ path, status: malformed.status, errorCode: errorCode(malformed) }).toEqual({ path, status: 400, errorCode: 'BAD_REQUEST' });
    }
  });

  it('never reads past what is judged now: a revoked key, and a suspended organization', async () => {
    const other = new PlatformFixture({ id: fixtureUuid(9_001), name: 'Soon suspended', slug: 'soon-suspended' });
    const active = (await publishFixture(harness.store, other, { now: at(NOW - 2 * MINUTE) })).snapshotId!;
    const otherKey = await harness.keyFor(other.organization.id);
    expect((await harness.call(`${API}/organization`, { key: otherKey, headers: { [PIN]: active } })).status).toBe(200);
    await publishFixture(harness.store, other, { state: 'suspended', now: at(NOW - MINUTE) });
    await harness.channel.announce(other.organization.id);
    await expect.poll(async () => (await harness.call(`${API}/organization`, { key: otherKey, headers: { [PIN]: active } })).status, { timeout: 5_000 }).toBe(403);

    const revocable = await harness.keys.create({ organizationId: fixture.organization.id, label: 'pinned', origins: [] });
    expect((await harness.call(`${API}/organization`, { key: revocable.secret, headers: { [PIN]: first } })).status).toBe(200);
    await harness.keys.revoke(revocable.record.id, new Date(NOW - MINUTE));
    expect((await harness.call(`${API}/organization`, { key: revocable.secret, headers: { [PIN]: first } })).status).toBe(401);
  });
});
