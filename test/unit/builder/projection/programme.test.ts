// docs/api.md §2 Session and EventDetail.speakers; docs/api.md §4 /events/{id}/sessions and /speakers;
// docs/design.md Orders: sessions by start, end, name, id; session speakers in billing order.
import { describe, expect, it } from 'vitest';
import { PlatformFixture } from '../../../support/platform-fixture.ts';
import { project, withExtraColumns } from '../../../support/projection.ts';

const onlyEvent = (fixture: PlatformFixture) => {
  const { events, eventIndex } = project(fixture);
  expect(events).toHaveLength(1);
  return { detail: events[0]!, summary: eventIndex[0]! };
};

describe('sessions', () => {
  it('leaves out sessions without both times and counts only scheduled ones', () => {
    const fixture = new PlatformFixture();
    const event = fixture.event();
    const scheduled = fixture.session(event, { name: 'Scheduled' });
    fixture.session(event, { name: 'No times', startsAt: null, endsAt: null });
    fixture.session(event, { name: 'Start only', endsAt: null });
    fixture.session(event, { name: 'End only', startsAt: null });

    const { detail, summary } = onlyEvent(fixture);

    expect(detail.sessions.map((session) => session.id)).toEqual([scheduled.id]);
    expect(summary.sessionCount).toBe(1);
  });

  it('orders by start, then end, then name, then id', () => {
    const fixture = new PlatformFixture();
    const event = fixture.event();
    const late = fixture.session(event, { name: 'A', startsAt: '2026-05-01T11:00:00Z', endsAt: '2026-05-01T12:00:00Z' });
    const longer = fixture.session(event, { name: 'A', startsAt: '2026-05-01T09:00:00Z', endsAt: '2026-05-01T10:30:00Z' });
    // Created against name order, so that only the name can put them right.
    const lower = fixture.session(event, { name: 'apple', startsAt: '2026-05-01T09:00:00Z', endsAt: '2026-05-01T10:00:00Z' });
    const upper = fixture.session(event, { name: 'Zebra', startsAt: '2026-05-01T09:00:00Z', endsAt: '2026-05-01T10:00:00Z' });
    const twinB = fixture.session(event, { name: 'Talk', startsAt: '2026-05-01T09:00:00Z', endsAt: '2026-05-01T10:00:00Z' });
    const twinA = fixture.session(event, { name: 'Talk', startsAt: '2026-05-01T09:00:00Z', endsAt: '2026-05-01T10:00:00Z' });
    const early = fixture.session(event, { name: 'Z', startsAt: '2026-05-01T08:59:59Z', endsAt: '2026-05-01T18:00:00Z' });

    const { detail } = onlyEvent(fixture);

    expect(detail.sessions.map((session) => session.id)).toEqual([early.id, twinB.id, twinA.id, upper.id, lower.id, longer.id, late.id]);
  });

  it('builds each session field by field, with instants in the event time zone', () => {
    const fixture = new PlatformFixture();
    const event = fixture.event({ timeZone: 'Asia/Kolkata' });
    const row = fixture.session(event, {
      name: 'Keynote',
      description: 'Opening.',
      room: 'Hall 1',
      capacity: 300,
      startsAt: '2026-05-01T04:30:00Z',
      endsAt: '2026-05-01T05:15:00Z',
    });
    withExtraColumns(row, { moderatorEmail: 'mod@private.example' });

    expect(onlyEvent(fixture).detail.sessions).toEqual([
      {
        id: row.id,
        name: 'Keynote',
        description: 'Opening.',
        room: 'Hall 1',
        capacity: 300,
        start: { utc: '2026-05-01T04:30:00Z', local: '2026-05-01T10:00:00+05:30', timeZoneId: 'Asia/Kolkata' },
        end: { utc: '2026-05-01T05:15:00Z', local: '2026-05-01T10:45:00+05:30', timeZoneId: 'Asia/Kolkata' },
        speakers: [],
        speakerNames: null,
      },
    ]);
  });

  it('gives null for absent values', () => {
    const fixture = new PlatformFixture();
    fixture.session(fixture.event());
    expect(onlyEvent(fixture).detail.sessions[0]).toMatchObject({ description: null, room: null, capacity: null, speakerNames: null });
  });

  it('ignores sessions of unpublished and unknown events', () => {
    const fixture = new PlatformFixture();
    fixture.event();
    fixture.session(fixture.event({ status: 'draft' }));
    fixture.sessions.push({ ...fixture.sessions[0]!, id: fixture.nextId(), eventId: fixture.nextId() });
    expect(onlyEvent(fixture).detail.sessions).toEqual([]);
  });
});

describe('session speakers', () => {
  it('lists accepted speakers only, in billing order, ties by name then id, and joins their names', () => {
    const fixture = new PlatformFixture();
    const session = fixture.session(fixture.event());
    const last = fixture.speaker({ name: 'Carol' });
    const twinB = fixture.speaker({ name: 'Sam' });
    const twinA = fixture.speaker({ name: 'Sam' });
    const first = fixture.speaker({ name: 'Zed' });
    const yan = fixture.speaker({ name: 'Yan' }); // created before Xia, billed level with her
    const xia = fixture.speaker({ name: 'Xia' });
    const invited = fixture.speaker({ name: 'Invited', invitationStatus: 'invited' });
    const declined = fixture.speaker({ name: 'Declined', invitationStatus: 'declined' });
    fixture.bill(session, last, 5);
    fixture.bill(session, invited, 0);
    fixture.bill(session, twinA, 2);
    fixture.bill(session, yan, 3);
    fixture.bill(session, first, 1);
    fixture.bill(session, declined, 1);
    fixture.bill(session, xia, 3);
    fixture.bill(session, twinB, 2);

    const [projected] = onlyEvent(fixture).detail.sessions;

    expect(projected!.speakers.map((speaker) => speaker.id)).toEqual([first.id, twinB.id, twinA.id, xia.id, yan.id, last.id]);
    expect(projected!.speakerNames).toBe('Zed, Sam, Sam, Xia, Yan, Carol');
  });

  it('has speakerNames null when only unconfirmed speakers are billed', () => {
    const fixture = new PlatformFixture();
    const session = fixture.session(fixture.event());
    fixture.bill(session, fixture.speaker({ invitationStatus: 'invited' }));
    fixture.sessionSpeakers.push({ sessionId: session.id, speakerId: fixture.nextId(), billingOrder: 0 });
    const [projected] = onlyEvent(fixture).detail.sessions;
    expect(projected!.speakers).toEqual([]);
    expect(projected!.speakerNames).toBeNull();
  });

  it('lists a speaker billed twice on one session once', () => {
    const fixture = new PlatformFixture();
    const session = fixture.session(fixture.event());
    const speaker = fixture.speaker({ name: 'Echo' });
    fixture.bill(session, speaker, 1);
    fixture.bill(session, speaker, 3);
    expect(onlyEvent(fixture).detail.sessions[0]!.speakerNames).toBe('Echo');
  });
});

describe('event speakers', () => {
  it('lists each speaker once, in programme order', () => {
    const fixture = new PlatformFixture();
    const event = fixture.event();
    const afternoon = fixture.session(event, { startsAt: '2026-05-01T13:00:00Z', endsAt: '2026-05-01T14:00:00Z' });
    const morning = fixture.session(event, { startsAt: '2026-05-01T09:00:00Z', endsAt: '2026-05-01T10:00:00Z' });
    const ann = fixture.speaker({ name: 'Ann' });
    const bob = fixture.speaker({ name: 'Bob' });
    const cy = fixture.speaker({ name: 'Cy' });
    fixture.bill(afternoon, ann, 1);
    fixture.bill(afternoon, cy, 0);
    fixture.bill(morning, bob, 0);
    fixture.bill(morning, ann, 1);

    const { detail } = onlyEvent(fixture);

    expect(detail.speakers.map((speaker) => speaker.name)).toEqual(['Bob', 'Ann', 'Cy']);
  });

  it('leaves out speakers not on a scheduled session, and unconfirmed ones', () => {
    const fixture = new PlatformFixture();
    const event = fixture.event();
    const scheduled = fixture.session(event);
    const unscheduled = fixture.session(event, { startsAt: null, endsAt: null });
    const onStage = fixture.speaker({ name: 'On stage' });
    fixture.speaker({ name: 'Announced, no session' });
    fixture.bill(unscheduled, fixture.speaker({ name: 'Unscheduled only' }));
    fixture.bill(scheduled, fixture.speaker({ name: 'Invited', invitationStatus: 'invited' }));
    fixture.bill(scheduled, onStage);

    expect(onlyEvent(fixture).detail.speakers.map((speaker) => speaker.id)).toEqual([onStage.id]);
  });

  it('is an empty array when the event has no programme', () => {
    const fixture = new PlatformFixture();
    fixture.event();
    fixture.speaker();
    const { detail, summary } = onlyEvent(fixture);
    expect(detail.sessions).toEqual([]);
    expect(detail.speakers).toEqual([]);
    expect(summary.sessionCount).toBe(0);
  });
});
