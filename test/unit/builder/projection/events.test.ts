// docs/api.md §2 EventSummary/EventDetail in their stored forms (snapshot/schema-types.ts), docs/api.md §1 rule 4,
// docs/api.md §4 GET /events order, and the EventClock of docs/design.md "Clock-dependent fields".
import { describe, expect, it } from 'vitest';
import { BuildError } from '../../../../builder/errors.ts';
import type { EventRow } from '../../../../builder/platform/rows.ts';
import { PlatformFixture } from '../../../support/platform-fixture.ts';
import { project, withExtraColumns } from '../../../support/projection.ts';

describe('events', () => {
  it('publishes only published events', () => {
    const fixture = new PlatformFixture();
    const published = fixture.event({ status: 'published' });
    for (const status of ['draft', 'cancelled', 'suspended'] as const) fixture.event({ status });
    const projection = project(fixture);
    expect(projection.eventIndex.map((event) => event.id)).toEqual([published.id]);
    expect(projection.events.map((event) => event.id)).toEqual([published.id]);
    expect(projection.slugs).toEqual({ [published.slug]: published.id });
  });

  it('orders the index and the details by start, then name, then id', () => {
    const fixture = new PlatformFixture();
    const later = fixture.event({ name: 'A', startsAt: '2026-06-01T07:00:00Z', endsAt: '2026-06-01T08:00:00Z' });
    const twinB = fixture.event({ name: 'Conf', startsAt: '2026-05-01T07:00:00Z' });
    const twinA = fixture.event({ name: 'Conf', startsAt: '2026-05-01T07:00:00Z' });
    const lower = fixture.event({ name: 'conf', startsAt: '2026-05-01T07:00:00Z' });
    const upper = fixture.event({ name: 'Zoo', startsAt: '2026-05-01T07:00:00Z' });
    // Same instant written with another offset: order follows the instant, not the text.
    const earlier = fixture.event({ name: 'Z', startsAt: '2026-05-01T08:59:59+02:00', endsAt: '2026-05-01T08:00:00Z' });

    const projection = project(fixture);

    const expected = [earlier.id, twinB.id, twinA.id, upper.id, lower.id, later.id];
    expect(projection.eventIndex.map((event) => event.id)).toEqual(expected);
    expect(projection.events.map((event) => event.id)).toEqual(expected);
  });

  it('builds the summary and the detail field by field', () => {
    const fixture = new PlatformFixture({ slug: 'acme' });
    const cover = fixture.image();
    const logo = fixture.image();
    const row = fixture.event({
      name: 'Summit',
      slug: 'summit 2026',
      description: 'Big.',
      cover,
      logo,
      timeZone: 'America/New_York',
      startsAt: '2026-11-01T05:30:00Z',
      endsAt: '2026-11-01T07:00:00Z',
      venueName: 'Hall',
      address: '1 Main St',
      city: 'New York',
      country: 'US',
      latitude: 40.7,
      longitude: -74,
      capacity: 100,
      registrationEnabled: true,
      registrationCount: 99,
      registrationStartsAt: '2026-09-01T04:00:00Z',
      registrationEndsAt: '2026-10-31T23:59:59Z',
    });
    withExtraColumns(row, { attendeeEmails: ['someone@private.example'], internalNotes: 'VIP list' });
    fixture.session(row, { startsAt: '2026-11-01T05:30:00Z', endsAt: '2026-11-01T06:30:00Z' });
    fixture.session(row, { startsAt: null, endsAt: null });

    const { eventIndex, events } = project(fixture);

    const core = {
      id: row.id,
      name: 'Summit',
      slug: 'summit 2026',
      description: 'Big.',
      cover,
      logo,
      start: { utc: '2026-11-01T05:30:00Z', local: '2026-11-01T01:30:00-04:00', timeZoneId: 'America/New_York' },
      end: { utc: '2026-11-01T07:00:00Z', local: '2026-11-01T02:00:00-05:00', timeZoneId: 'America/New_York' },
      venueName: 'Hall',
      city: 'New York',
      country: 'US',
      latitude: 40.7,
      longitude: -74,
      publicUrl: 'https://events.example.com/acme/events/summit%202026',
    };
    const clock = {
      start: '2026-11-01T05:30:00Z',
      end: '2026-11-01T07:00:00Z',
      registrationStart: '2026-09-01T04:00:00Z',
      registrationEnd: '2026-10-31T23:59:59Z',
      registrationAvailable: true,
    };
    expect(eventIndex).toEqual([{ ...core, sessionCount: 1, clock }]);
    expect(events).toEqual([
      {
        ...core,
        address: '1 Main St',
        registrationStart: { utc: '2026-09-01T04:00:00Z', local: '2026-09-01T00:00:00-04:00', timeZoneId: 'America/New_York' },
        registrationEnd: { utc: '2026-10-31T23:59:59Z', local: '2026-10-31T19:59:59-04:00', timeZoneId: 'America/New_York' },
        capacity: 100,
        sessions: [expect.objectContaining({ start: expect.objectContaining({ local: '2026-11-01T01:30:00-04:00' }) })],
        speakers: [],
        sponsors: [],
        clock,
      },
    ]);
  });

  it('gives null for absent values and no registration period', () => {
    const fixture = new PlatformFixture();
    fixture.event();
    const [detail] = project(fixture).events;
    expect(detail).toMatchObject({
      description: null,
      cover: null,
      logo: null,
      venueName: null,
      address: null,
      city: null,
      country: null,
      latitude: null,
      longitude: null,
      capacity: null,
      registrationStart: null,
      registrationEnd: null,
      clock: { registrationStart: null, registrationEnd: null },
    });
  });

  it('keeps a registration window that has only one end', () => {
    const fixture = new PlatformFixture();
    fixture.event({ registrationEndsAt: '2026-04-30T22:00:00Z' });
    const [detail] = project(fixture).events;
    expect(detail!.registrationStart).toBeNull();
    expect(detail!.registrationEnd).toEqual({ utc: '2026-04-30T22:00:00Z', local: '2026-05-01T00:00:00+02:00', timeZoneId: 'Europe/Berlin' });
    expect(detail!.clock).toMatchObject({ registrationStart: null, registrationEnd: '2026-04-30T22:00:00Z' });
  });

  it.each<[string, Partial<EventRow>, boolean]>([
    ['enabled, no capacity', { registrationEnabled: true, capacity: null, registrationCount: 5000 }, true],
    ['enabled, seats left', { registrationEnabled: true, capacity: 10, registrationCount: 9 }, true],
    ['enabled, full', { registrationEnabled: true, capacity: 10, registrationCount: 10 }, false],
    ['enabled, over capacity', { registrationEnabled: true, capacity: 10, registrationCount: 11 }, false],
    ['enabled, capacity zero', { registrationEnabled: true, capacity: 0, registrationCount: 0 }, false],
    ['disabled, seats left', { registrationEnabled: false, capacity: 10, registrationCount: 0 }, false],
    ['disabled, no capacity', { registrationEnabled: false, capacity: null, registrationCount: 0 }, false],
  ])('registrationAvailable when %s', (_case, row, available) => {
    const fixture = new PlatformFixture();
    fixture.event(row);
    const { eventIndex, events } = project(fixture);
    expect(eventIndex[0]!.clock.registrationAvailable).toBe(available);
    expect(events[0]!.clock.registrationAvailable).toBe(available);
  });

  it('maps every published slug to its event id', () => {
    const fixture = new PlatformFixture();
    const a = fixture.event({ slug: 'spring' });
    const b = fixture.event({ slug: '__proto__' });
    fixture.event({ slug: 'draft', status: 'draft' });
    const { slugs } = project(fixture);
    expect(Object.entries(slugs).sort()).toEqual([
      ['__proto__', b.id],
      ['spring', a.id],
    ]);
  });

  it('names the organization, the event and the zone when the time zone is unknown', () => {
    const fixture = new PlatformFixture();
    const event = fixture.event({ slug: 'moon-summit', timeZone: 'Moon/Tranquility' });
    expect(() => project(fixture)).toThrow(new RegExp(`${fixture.organization.id}.*${event.id}.*moon-summit.*"Moon/Tranquility"`));
    expect(() => project(fixture)).toThrow(
      expect.objectContaining({
        name: 'BuildError',
        stage: 'project',
        organizationId: fixture.organization.id,
        resource: `/events/${event.id}`,
      }),
    );
    expect(() => project(fixture)).toThrow(BuildError);
  });

  it('names the event and the value when a time is not a date-time', () => {
    const fixture = new PlatformFixture();
    const event = fixture.event();
    const session = fixture.session(event, { endsAt: 'soon' });
    expect(() => project(fixture)).toThrow(new RegExp(`${event.id}.*session ${session.id} endsAt "soon"`));
  });

  it('does not look at the time zones of unpublished events', () => {
    const fixture = new PlatformFixture();
    fixture.event({ status: 'draft', timeZone: 'Not/A_Zone' });
    expect(project(fixture).events).toEqual([]);
  });
});
