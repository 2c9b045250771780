// Security properties over generated organizations (docs/api.md §1 rule 3, §5.3): a key of organization
// A never reads a byte of organization B — not by B's event ids, not by a slug both share, not by
// traversal or encoding tricks — no input makes the gateway answer 5xx, and every 200 body
// validates against its API schema.
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SchemaName } from '../../../snapshot/schema-catalog.ts';
import { SchemaSet } from '../../../snapshot/schemas.ts';
import { API, publishFixture } from '../../support/gateway-fixtures.ts';
import { useHarness } from '../../support/gateway-world.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

const schemas = new SchemaSet();
const gateway = useHarness();

interface GeneratedEvent {
  slug: string;
  startDay: number;
  days: number;
  registration: boolean;
}

const slugArbitrary = fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8})?$/);
const eventArbitrary = fc.record({
  slug: slugArbitrary,
  startDay: fc.integer({ min: 0, max: 400 }),
  days: fc.integer({ min: 0, max: 5 }),
  registration: fc.boolean(),
});
const eventsArbitrary = fc.uniqueArray(eventArbitrary, { minLength: 1, maxLength: 6, selector: (event) => event.slug });

interface PublishedOrganization {
  id: string;
  key: string;
  eventIds: string[];
  slugs: string[];
  /** A string that appears in this organization's data and nowhere else. */
  marker: string;
}

/** An organization with fresh ids everywhere, so two generated organizations share none. */
async function publishGenerated(events: GeneratedEvent[], sharedSlug: string): Promise<PublishedOrganization> {
  const marker = `marker${randomUUID().replaceAll('-', '')}`;
  const fixture = new PlatformFixture({ id: randomUUID(), name: `Org ${marker}`, slug: `org-${marker}` });
  const speaker = fixture.speaker({ id: randomUUID(), name: `Speaker ${marker}` });
  const eventIds: string[] = [];
  const allEvents = [...events, { slug: sharedSlug, startDay: 100, days: 1, registration: true }];
  for (const [index, event] of allEvents.entries()) {
    const start = new Date(Date.parse('2026-01-01T09:00:00Z') + event.startDay * 86_400_000);
    const row = fixture.event({
      id: randomUUID(),
      name: `Event ${index} ${marker}`,
      slug: event.slug,
      startsAt: start.toISOString().replace('.000', ''),
      endsAt: new Date(start.getTime() + event.days * 86_400_000 + 3_600_000).toISOString().replace('.000', ''),
      registrationEnabled: event.registration,
    });
    const session = fixture.session(row, { id: randomUUID(), name: `Session ${marker}`, startsAt: row.startsAt, endsAt: row.endsAt });
    fixture.bill(session, speaker);
    eventIds.push(row.id);
  }
  await publishFixture(gateway.harness.store, fixture);
  return {
    id: fixture.organization.id,
    key: await gateway.harness.keyFor(fixture.organization.id),
    eventIds,
    slugs: allEvents.map((event) => event.slug),
    marker,
  };
}

/** Segments a hostile or confused client might put where an idOrSlug goes. */
function hostileSegments(b: PublishedOrganization): string[] {
  const id = b.eventIds[0]!;
  return [
    ...b.eventIds,
    ...b.eventIds.map((eventId) => eventId.toUpperCase()),
    ...b.slugs.map(encodeURIComponent),
    b.id,
    '..',
    '%2e%2e',
    '%2E%2E',
    '.%2e',
    '..%2F..%2Forgs',
    `..%2F..%2F..%2Forgs%2F${b.id}%2Fcurrent.json`,
    `%2F..%2F${id}`,
    `${id}%2Fsessions`,
    `${id}%2F..%2F${id}`,
    `%2e%2e%2f%2e%2e%2forgs%2f${b.id}`,
    '%00',
    '%25',
    '%',
    '%ZZ',
    '%C0%AE%C0%AE',
    '%E2%80%AE',
    encodeURIComponent('événement'),
    encodeURIComponent('🎉'),
    'x'.repeat(8000),
    encodeURIComponent('é'.repeat(2000)),
    '__proto__',
    'constructor',
    'hasOwnProperty',
  ];
}

function schemaOf(path: string): SchemaName | undefined {
  if (path.startsWith(`${API}/events?`) || path === `${API}/events`) return 'paged-event-summaries';
  if (/\/events\/[^/]+\/sessions$/.test(path)) return 'session-list';
  if (/\/events\/[^/]+\/speakers$/.test(path)) return 'speaker-list';
  if (/\/events\/[^/]+\/sponsors$/.test(path)) return 'sponsor-list';
  if (/\/events\/[^/]+$/.test(path)) return 'event-detail';
  return undefined;
}

async function expectIsolated(a: PublishedOrganization, b: PublishedOrganization, path: string): Promise<void> {
  const reply = await gateway.harness.call(path, { key: a.key });
  expect(reply.status, path).toBeLessThan(500);
  // A problem's `instance` echoes the path the client sent, B's id included: that is the
  // client's own input, not B's data, so it is left out of the comparison.
  const body = reply.status === 200 ? reply.body : JSON.stringify({ ...reply.json<object>(), instance: null });
  expect(body.includes(b.marker), path).toBe(false);
  for (const id of [b.id, ...b.eventIds]) expect(body.toLowerCase().includes(id), path).toBe(false);
  if (reply.status === 200) {
    const schema = schemaOf(path);
    if (schema) expect(schemas.validate(schema, reply.json()), path).toEqual({ valid: true });
  }
}

describe('organization isolation', () => {
  it('no key of A reads any byte of B, whatever the path', async () => {
    await fc.assert(
      fc.asyncProperty(eventsArbitrary, eventsArbitrary, slugArbitrary, async (eventsA, eventsB, shared) => {
        const sharedSlug = `shared-${shared}`;
        const a = await publishGenerated(eventsA, sharedSlug);
        const b = await publishGenerated(eventsB, sharedSlug);
        // The shared slug answers with A's own event for A's key and B's for B's.
        const mine = await gateway.harness.call(`${API}/events/${sharedSlug}`, { key: a.key });
        expect(mine.status).toBe(200);
        expect(mine.body).toContain(a.marker);
        const theirs = await gateway.harness.call(`${API}/events/${sharedSlug}`, { key: b.key });
        expect(theirs.body).toContain(b.marker);

        for (const segment of hostileSegments(b)) {
          for (const path of [
            `${API}/events/${segment}`,
            `${API}/events/${segment}/sessions`,
            `${API}/events/${segment}/speakers`,
            `${API}/${segment}`,
            `${API}/${segment}/organization`,
          ]) {
            await expectIsolated(a, b, path);
          }
        }
        for (const timing of ['all', 'past', 'upcoming', 'ongoing']) {
          await expectIsolated(a, b, `${API}/events?timing=${timing}&pageSize=100`);
        }
        for (const path of ['/organization', '/team', '/speakers', '/sponsors']) await expectIsolated(a, b, `${API}${path}`);
      }),
      { numRuns: 12 },
    );
  });

  it('every 200 of every route validates against its API schema (generated organizations)', async () => {
    await fc.assert(
      fc.asyncProperty(eventsArbitrary, fc.integer({ min: 0, max: 500 }), async (events, day) => {
        gateway.harness.clock.now = Date.parse('2026-01-01T00:00:00Z') + day * 86_400_000;
        const org = await publishGenerated(events, 'shared');
        const paths: Array<[string, SchemaName]> = [
          ['/organization', 'organization'],
          ['/team', 'team'],
          ['/speakers', 'speaker-list'],
          ['/sponsors', 'sponsor-list'],
        ];
        for (const timing of ['upcoming', 'ongoing', 'past', 'all']) paths.push([`/events?timing=${timing}`, 'paged-event-summaries']);
        for (const slug of org.slugs) {
          paths.push(
            [`/events/${slug}`, 'event-detail'],
            [`/events/${slug}/sessions`, 'session-list'],
            [`/events/${slug}/speakers`, 'speaker-list'],
            [`/events/${slug}/sponsors`, 'sponsor-list'],
          );
        }
        for (const [path, schema] of paths) {
          const reply = await gateway.harness.call(`${API}${path}`, { key: org.key });
          expect(reply.status, path).toBe(200);
          expect(schemas.validate(schema, reply.json()), path).toEqual({ valid: true });
        }
      }),
      { numRuns: 15 },
    );
  });
});

describe('bad input never causes a 5xx', () => {
  it('arbitrary query strings and path segments', async () => {
    const org = await publishGenerated([{ slug: 'only', startDay: 200, days: 1, registration: true }], 'shared');
    const text = fc.string({ unit: 'grapheme', maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(text, text, text, fc.constantFrom('timing', 'page', 'pageSize', 'other'), async (segment, value, other, name) => {
        for (const path of [
          `${API}/events/${encodeURIComponent(segment)}`,
          `${API}/events/${encodeURIComponent(segment)}/sponsors`,
          `${API}/events?${name}=${encodeURIComponent(value)}&${encodeURIComponent(other)}=${encodeURIComponent(value)}`,
          `${API}/events?${name}=${encodeURIComponent(value)}&${name}=${encodeURIComponent(other)}`,
        ]) {
          const reply = await gateway.harness.call(path, { key: org.key });
          expect(reply.status, path).toBeLessThan(500);
          expect([200, 400, 404], path).toContain(reply.status);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('raw non-ASCII bytes in the request line', async () => {
    const org = await publishGenerated([{ slug: 'only', startDay: 200, days: 1, registration: true }], 'shared');
    const status = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(gateway.harness.origin).port), '127.0.0.1', () => {
        socket.write(
          Buffer.concat([
            Buffer.from(`GET ${API}/events/`),
            Buffer.from('événement/../../organization', 'utf8'),
            Buffer.from(` HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${org.key}\r\nConnection: close\r\n\r\n`),
          ]),
        );
      });
      let data = '';
      socket.on('data', (chunk: Buffer) => {
        data += chunk.toString('latin1');
      });
      socket.on('end', () => resolve(data.split('\r\n')[0] ?? ''));
      socket.on('error', reject);
    });
    expect(status).toMatch(/^HTTP\/1\.1 (400|404) /);
  });
});
