// Every GET route answering from the organization's snapshot (docs/api.md §4): bodies, schemas, tags.
import { describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../../gateway/api-routes.ts';
import { objectKey } from '../../../snapshot/layout.ts';
import { readManifest, readPointer } from '../../../snapshot/reader.ts';
import type { EventDetail, PagedEventSummaries } from '../../../snapshot/schema-types.ts';
import type { SchemaName } from '../../../snapshot/schema-catalog.ts';
import { SchemaSet } from '../../../snapshot/schemas.ts';
import { API } from '../../support/gateway-fixtures.ts';
import { useAcmeWorld } from '../../support/gateway-world.ts';

const schemas = new SchemaSet();
const acme = useAcmeWorld();

async function manifestHashOf(path: string): Promise<string> {
  const orgId = acme.fixture.organization.id;
  const pointer = (await readPointer(acme.harness.store, orgId))!;
  const manifest = (await readManifest(acme.harness.store, orgId, pointer.snapshotId!))!;
  return manifest.resources[path]!;
}

describe('every route of the table', () => {
  it.each(API_ROUTES.map((route) => [route.name, route] as const))('%s answers 200 with a body its schema accepts (strict: no member it does not list)', async (_name, route) => {
    const reply = await acme.call(route.pattern.replace('{idOrSlug}', 'acme-conf'));
    expect(reply.status).toBe(200);
    expect(schemas.validate(route.schema, reply.json())).toEqual({ valid: true });
  });
});

describe('stored resources', () => {
  it('serves only what the organization shows: accepted speakers, visible members (docs/api.md §1 rules 6-7)', async () => {
    const speakers = (await acme.call('/speakers')).json<Array<{ name: string }>>();
    expect(speakers.map((s) => s.name)).toEqual(['Ada Lovelace', 'Grace Hopper']);
    const team = (await acme.call('/team')).json<Array<{ fullName: string }>>();
    expect(team.map((m) => m.fullName)).toEqual(['Visible Member']);
  });

  it.each([
    ['/organization', 'organization'],
    ['/team', 'team'],
    ['/speakers', 'speaker-list'],
    ['/sponsors', 'sponsor-list'],
  ] as Array<[string, SchemaName]>)('GET %s serves the stored bytes, tagged with their hash', async (path, schema) => {
    const reply = await acme.call(path);
    expect(reply.status).toBe(200);
    const hash = await manifestHashOf(path);
    expect(reply.headers.etag).toBe(`"${hash}"`);
    expect(reply.body).toBe((await acme.harness.store.get(objectKey(acme.fixture.organization.id, hash)))!.toString('utf8'));
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['cache-control']).toBe('private, max-age=60');
    expect(schemas.validate(schema, reply.json())).toEqual({ valid: true });
  });

  it('serves what the builder published, no more: the visible team only', async () => {
    const team = await acme.call('/team');
    expect(team.body).toContain('Visible Member');
    expect(team.body).not.toContain('Hidden Member');
  });
});

describe('GET /events', () => {
  it('lists upcoming events by default, with computed clock fields', async () => {
    const reply = await acme.call('/events');
    expect(reply.status).toBe(200);
    const page = reply.json<PagedEventSummaries>();
    expect(schemas.validate('paged-event-summaries', page)).toEqual({ valid: true });
    expect(page.items.map((item) => [item.slug, item.timing, item.isRegistrationOpen])).toEqual([
      ['acme-conf', 'upcoming', false],
      ['workshop', 'upcoming', true],
    ]);
    expect(page).toMatchObject({ page: 1, pageSize: 20, totalCount: 2, hasMore: false });
  });

  it.each([
    ['ongoing', ['hackathon']],
    ['past', ['winter']],
    ['all', ['winter', 'hackathon', 'acme-conf', 'workshop']],
  ])('timing=%s', async (timing, slugs) => {
    const page = (await acme.call(`/events?timing=${timing}`)).json<PagedEventSummaries>();
    expect(page.items.map((item) => item.slug)).toEqual(slugs);
  });

  it('never lists drafts or cancelled events', async () => {
    const reply = await acme.call('/events?timing=all&pageSize=100');
    expect(reply.body).not.toContain('Secret Draft');
    expect(reply.body).not.toContain('Cancelled');
  });
});

describe('GET /events/{idOrSlug}', () => {
  it('serves the detail with computed clock fields, by id and by slug alike', async () => {
    const byId = await acme.call(`/events/${acme.events.ongoing.id}`);
    const bySlug = await acme.call('/events/hackathon');
    expect(byId.status).toBe(200);
    expect(bySlug.body).toBe(byId.body);
    expect(bySlug.headers.etag).toBe(byId.headers.etag);
    const detail = byId.json<EventDetail>();
    expect(schemas.validate('event-detail', detail)).toEqual({ valid: true });
    expect(detail).toMatchObject({ id: acme.events.ongoing.id, timing: 'ongoing', isRegistrationOpen: true });
  });

  it('tags a computed detail differently from its stored object', async () => {
    const reply = await acme.call('/events/acme-conf');
    expect(reply.headers.etag).not.toBe(`"${await manifestHashOf(`/events/${acme.events.conference.id}`)}"`);
    expect(reply.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
  });

  it.each([
    ['sessions', 'session-list'],
    ['speakers', 'speaker-list'],
    ['sponsors', 'sponsor-list'],
  ] as Array<['sessions' | 'speakers' | 'sponsors', SchemaName]>)("/%s equals the detail's array", async (part, schema) => {
    const detail = (await acme.call('/events/acme-conf')).json<EventDetail>();
    for (const idOrSlug of ['acme-conf', acme.events.conference.id]) {
      const reply = await acme.call(`/events/${idOrSlug}/${part}`);
      expect(reply.status).toBe(200);
      expect(reply.json()).toEqual(detail[part]);
      expect(schemas.validate(schema, reply.json())).toEqual({ valid: true });
      expect(reply.headers.etag).toBe(`"${await manifestHashOf(`/events/${acme.events.conference.id}/${part}`)}"`);
    }
    expect(detail[part].length).toBeGreaterThan(0);
  });

  it('an event without a programme has empty arrays', async () => {
    const reply = await acme.call('/events/workshop/speakers');
    expect(reply.json()).toEqual([]);
  });
});

describe('HEAD and health', () => {
  it('HEAD answers like GET without a body', async () => {
    for (const path of ['/organization', '/events?timing=all', '/events/acme-conf', '/events/acme-conf/sessions']) {
      const get = await acme.call(path);
      const head = await acme.call(path, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.body).toBe('');
      for (const name of ['etag', 'cache-control', 'content-type', 'content-length']) expect(head.headers[name]).toBe(get.headers[name]);
    }
  });

  it('GET /healthz (alive) and GET /readyz (ready, with its backends) answer 200 without a key', async () => {
    const alive = await acme.harness.call('/healthz');
    expect(alive.status).toBe(200);
    expect(alive.json()).toEqual({ status: 'alive' });
    const ready = await acme.harness.call('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ready', backends: { store: { state: 'ok' } } });
  });

  it('answers CORS preflights without a key', async () => {
    const reply = await acme.harness.call(`${API}/events`, {
      method: 'OPTIONS',
      headers: { origin: 'https://site.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect(reply.status).toBe(204);
    expect(reply.headers['access-control-allow-origin']).toBe('*');
  });
});
