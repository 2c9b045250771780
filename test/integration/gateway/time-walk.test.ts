// The clock walks one event from upcoming to ongoing to past and its registration window from
// closed to open to closed (docs/design.md "Clock-dependent fields"): the computed fields follow, and
// entity tags change exactly when the computed state changes.
import { describe, expect, it } from 'vitest';
import type { EventDetail, PagedEventSummaries } from '../../../snapshot/schema-types.ts';
import { usePublishedOrganization } from '../../support/gateway-world.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

const walked = usePublishedOrganization(
  () => {
    const fixture = new PlatformFixture();
    fixture.event({
      name: 'Walked',
      slug: 'walked',
      registrationStartsAt: '2026-04-01T00:00:00Z',
      registrationEndsAt: '2026-04-15T00:00:00Z',
      startsAt: '2026-05-01T07:00:00Z',
      endsAt: '2026-05-01T16:00:00Z',
    });
    return fixture;
  },
  { now: '2026-03-01T00:00:00Z' },
);

interface Observation {
  timing: string;
  open: boolean;
  detailTag: string;
  listTags: Record<string, string>;
  listed: Record<string, number>;
}

async function observe(at: string): Promise<Observation> {
  walked.harness.clock.now = Date.parse(at);
  const detail = await walked.call('/events/walked');
  const body = detail.json<EventDetail>();
  const listTags: Record<string, string> = {};
  const listed: Record<string, number> = {};
  for (const timing of ['upcoming', 'ongoing', 'past', 'all']) {
    const list = await walked.call(`/events?timing=${timing}`);
    listTags[timing] = list.headers.etag!;
    const page = list.json<PagedEventSummaries>();
    listed[timing] = page.totalCount;
    for (const item of page.items) expect([item.timing, item.isRegistrationOpen]).toEqual([body.timing, body.isRegistrationOpen]);
  }
  return { timing: body.timing, open: body.isRegistrationOpen, detailTag: detail.headers.etag!, listTags, listed };
}

describe('time walk', () => {
  it('follows the clock across every boundary, one millisecond either side', async () => {
    const steps: Array<[string, string, boolean]> = [
      ['2026-03-01T00:00:00.000Z', 'upcoming', false],
      ['2026-03-31T23:59:59.999Z', 'upcoming', false],
      ['2026-04-01T00:00:00.000Z', 'upcoming', true],
      ['2026-04-14T23:59:59.999Z', 'upcoming', true],
      ['2026-04-15T00:00:00.000Z', 'upcoming', false],
      ['2026-05-01T06:59:59.999Z', 'upcoming', false],
      ['2026-05-01T07:00:00.000Z', 'ongoing', false],
      ['2026-05-01T15:59:59.999Z', 'ongoing', false],
      ['2026-05-01T16:00:00.000Z', 'past', false],
      ['2027-01-01T00:00:00.000Z', 'past', false],
    ];
    const seen: Observation[] = [];
    for (const [at, timing, open] of steps) {
      const observation = await observe(at);
      expect([at, observation.timing, observation.open]).toEqual([at, timing, open]);
      expect(observation.listed).toEqual({
        upcoming: timing === 'upcoming' ? 1 : 0,
        ongoing: timing === 'ongoing' ? 1 : 0,
        past: timing === 'past' ? 1 : 0,
        all: 1,
      });
      seen.push(observation);
    }
    // Tags change exactly when the computed state changes: equal state ⇔ equal tag.
    for (let i = 0; i < seen.length; i++) {
      for (let j = 0; j < seen.length; j++) {
        const sameState = seen[i]!.timing === seen[j]!.timing && seen[i]!.open === seen[j]!.open;
        expect(seen[i]!.detailTag === seen[j]!.detailTag).toBe(sameState);
        expect(seen[i]!.listTags.all === seen[j]!.listTags.all).toBe(sameState);
      }
    }
  });

  it('a 304 for a tag from before a boundary stops after it', async () => {
    const before = await observe('2026-03-31T23:59:59.999Z');
    walked.harness.clock.now = Date.parse('2026-03-31T12:00:00Z');
    expect((await walked.call('/events/walked', { headers: { 'if-none-match': before.detailTag } })).status).toBe(304);
    walked.harness.clock.now = Date.parse('2026-04-01T00:00:00Z');
    const after = await walked.call('/events/walked', { headers: { 'if-none-match': before.detailTag } });
    expect(after.status).toBe(200);
    expect(after.json<EventDetail>().isRegistrationOpen).toBe(true);
  });
});
