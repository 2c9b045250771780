// The largest organization the gateway benchmark serves (bench/gateway.ts), shared with the test
// that keeps its hot answers parsed once under the default cache budget
// (test/integration/gateway/large-organization.test.ts) and with bench/cache-weights.ts: 5,000
// published events spread over ±4 years around now (about half upcoming), and one of them with a
// large programme, the largest event detail the benchmarks build.
import { randomUUID } from 'node:crypto';
import { PlatformFixture } from './platform-fixture.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export const LARGE_ORGANIZATION_EVENTS = 5000;
/** The slug of the event with the large programme. */
export const LARGE_PROGRAMME_SLUG = 'big-programme';

export function largeOrganization(now = Date.now(), events = LARGE_ORGANIZATION_EVENTS): PlatformFixture {
  const fixture = new PlatformFixture({ id: randomUUID(), name: 'Big Events', slug: 'big' });
  for (let e = 0; e < events; e++) {
    const start = now + Math.round((e - events / 2) * ((0.7 * 5000) / events) * DAY);
    fixture.event({
      name: `Big Event ${e}`,
      slug: e === 0 ? LARGE_PROGRAMME_SLUG : `big-${e}`,
      description: 'One of many events.',
      venueName: 'Hall',
      city: 'Paris',
      country: 'FR',
      startsAt: iso(start),
      // The first is a three-day conference (below); the others last an afternoon.
      endsAt: iso(start + (e === 0 ? 3 * DAY : 6 * HOUR)),
      cover: fixture.image(),
    });
  }
  // A three-day conference's programme: 8 rooms × 3 days × 8 slots, every session with two
  // speakers of 120 and its sponsors: a detail of a few hundred kilobytes.
  const [conference] = fixture.events;
  const speakers = Array.from({ length: 120 }, (_, i) =>
    fixture.speaker({
      name: `Speaker ${i}`,
      jobTitle: 'Engineer',
      company: `Company ${i % 17}`,
      bio: 'Speaks about the things that matter to this audience.',
      photo: fixture.image(),
    }),
  );
  const start = Date.parse(conference!.startsAt);
  let n = 0;
  for (let day = 0; day < 3; day++) {
    for (let room = 0; room < 8; room++) {
      for (let slot = 0; slot < 8; slot++) {
        const at = start + day * DAY + slot * HOUR;
        const session = fixture.session(conference!, {
          name: `Talk ${n}`,
          description: 'A talk in the programme.',
          room: `Room ${room}`,
          startsAt: iso(at),
          endsAt: iso(at + 50 * 60_000),
        });
        fixture.bill(session, speakers[n % speakers.length]!, 0);
        fixture.bill(session, speakers[(n + 7) % speakers.length]!, 1);
        n++;
      }
    }
  }
  for (let i = 0; i < 12; i++) fixture.place(conference!, fixture.sponsor({ name: `Sponsor ${i}`, logo: fixture.image() }), { tier: i < 3 ? 'Gold' : 'Silver', sortOrder: i });
  return fixture;
}
