// Conditional requests (docs/api.md §6.1): strong tags on every 200, If-None-Match with one
// tag, a list, `*` or a weak tag gives 304 without a body, whatever the request's Cache-Control;
// caching headers on 200 and 304.
import { describe, expect, it } from 'vitest';
import { acmeFixture, API, publishFixture, startHarness } from '../../support/gateway-fixtures.ts';
import { useAcmeWorld } from '../../support/gateway-world.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

const acme = useAcmeWorld();
const PATHS = [
  '/organization',
  '/team',
  '/speakers',
  '/sponsors',
  '/events',
  '/events?timing=all&pageSize=2&page=2',
  '/events/acme-conf',
  '/events/acme-conf/sessions',
  '/events/acme-conf/speakers',
  '/events/acme-conf/sponsors',
];

async function tagOf(path: string): Promise<string> {
  const reply = await acme.call(path);
  expect(reply.status).toBe(200);
  return reply.headers.etag!;
}

describe.each(PATHS)('%s', (path) => {
  it('carries a strong tag that stays the same while nothing changes', async () => {
    const tag = await tagOf(path);
    expect(tag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(await tagOf(path)).toBe(tag);
  });

  it.each([
    ['the tag', (tag: string) => tag],
    ['a list containing the tag', (tag: string) => `"0000", ${tag} , W/"1111"`],
    ['the tag marked weak (weak comparison)', (tag: string) => `W/${tag}`],
    ['*', () => '*'],
  ])('If-None-Match with %s gives 304 without a body, GET and HEAD', async (_what, header) => {
    const tag = await tagOf(path);
    for (const method of ['GET', 'HEAD']) {
      const reply = await acme.call(path, { method, headers: { 'if-none-match': header(tag) } });
      expect(reply.status).toBe(304);
      expect(reply.body).toBe('');
      expect(reply.headers.etag).toBe(tag);
      expect(reply.headers['cache-control']).toBe('private, max-age=60');
      expect(reply.headers['content-type']).toBeUndefined();
      expect(reply.headers['access-control-allow-origin']).toBe('*');
    }
  });

  // What every fetch() sends when a page sets If-None-Match itself (Fetch standard), and what a
  // browser sends for fetch(url, { cache: 'no-cache' }): the origin evaluates the tag regardless.
  it.each([
    ['Cache-Control: no-cache and Pragma: no-cache', { 'cache-control': 'no-cache', pragma: 'no-cache' }],
    ['Cache-Control: max-age=0', { 'cache-control': 'max-age=0' }],
    ['Cache-Control: no-store', { 'cache-control': 'no-store' }],
  ])('If-None-Match with the tag and %s still gives 304', async (_what, extra) => {
    const tag = await tagOf(path);
    const reply = await acme.call(path, { headers: { 'if-none-match': tag, ...extra } });
    expect(reply.status).toBe(304);
    expect(reply.body).toBe('');
  });

  it('If-Modified-Since alone is not evaluated (no Last-Modified is sent): the full 200', async () => {
    const reply = await acme.call(path, { headers: { 'if-modified-since': new Date(Date.UTC(2100, 0)).toUTCString() } });
    expect(reply.status).toBe(200);
    expect(reply.headers['last-modified']).toBeUndefined();
  });

  it('If-None-Match with other tags gives the full 200', async () => {
    const reply = await acme.call(path, { headers: { 'if-none-match': '"0000", W/"1111"' } });
    expect(reply.status).toBe(200);
    expect(reply.body.length).toBeGreaterThan(1);
  });
});

describe('tags differ between representations', () => {
  it('every path has its own tag', async () => {
    const tags = await Promise.all(PATHS.map(tagOf));
    expect(new Set(tags).size).toBe(PATHS.length);
  });

  it('the same representation has the same tag under id and slug', async () => {
    const detail = await acme.call('/events/acme-conf');
    const id = detail.json<{ id: string }>().id;
    expect(await tagOf(`/events/${id}`)).toBe(detail.headers.etag);
  });

  it('a new build with changed content changes the stored tag; an identical build keeps it', async () => {
    const local = await startHarness();
    try {
      const fixture = new PlatformFixture();
      acmeFixture(fixture);
      await publishFixture(local.store, fixture);
      const localKey = await local.keyFor(fixture.organization.id);
      const before = (await local.call(`${API}/organization`, { key: localKey })).headers.etag;
      await publishFixture(local.store, fixture, { now: new Date('2026-02-01T00:00:00Z') });
      await local.channel.announce(fixture.organization.id);
      expect((await local.call(`${API}/organization`, { key: localKey })).headers.etag).toBe(before);
      fixture.organization.description = 'Now with a description';
      await publishFixture(local.store, fixture, { now: new Date('2026-02-02T00:00:00Z') });
      await local.channel.announce(fixture.organization.id);
      const after = await local.call(`${API}/organization`, { key: localKey, headers: { 'if-none-match': before! } });
      expect(after.status).toBe(200);
      expect(after.headers.etag).not.toBe(before);
    } finally {
      await local.close();
    }
  });
});
