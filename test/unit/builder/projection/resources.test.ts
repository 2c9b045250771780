// resourcesOf: every resource of the snapshot, in a fixed order, each valid against its schema
// (docs/design.md steps 2–3; snapshot/resource-catalog.ts).
import { describe, expect, it } from 'vitest';
import { resourcesOf } from '../../../../builder/projection/index.ts';
import { PlatformFixture } from '../../../support/platform-fixture.ts';
import { project, withExtraColumns } from '../../../support/projection.ts';
import { schemaViolations } from '../../../support/schema-check.ts';

/** An organization that exercises every field: images, nulls, time zones, tiers, hidden rows. */
function richFixture(): PlatformFixture {
  const fixture = new PlatformFixture({ slug: 'acme', logo: null, latitude: 52.5, longitude: 13.4 });
  fixture.organization.cover = fixture.image();
  fixture.teamMember({ fullName: 'Visible', photo: fixture.image(), sortOrder: 2 });
  withExtraColumns(fixture.teamMember({ fullName: 'Hidden', showOnWebsite: false }), { email: 'hidden@private.example' });
  const ada = withExtraColumns(fixture.speaker({ name: 'Ada', photo: fixture.image() }), { email: 'ada@private.example' });
  const bob = fixture.speaker({ name: 'Bob', company: 'Bob & Co' });
  fixture.speaker({ name: 'Invited', invitationStatus: 'invited' });
  const gold = fixture.sponsor({ name: 'Gold Inc', logo: fixture.image(), isOrganizationSponsor: true });
  fixture.sponsor({ name: 'Pool only' });

  const berlin = fixture.event({
    name: 'Berlin',
    timeZone: 'Europe/Berlin',
    startsAt: '2026-03-29T00:30:00Z',
    endsAt: '2026-03-29T02:00:00Z',
    capacity: 50,
    registrationCount: 50,
  });
  const talk = fixture.session(berlin, { startsAt: '2026-03-29T00:30:00Z', endsAt: '2026-03-29T01:30:00Z', capacity: 40 });
  fixture.bill(talk, bob, 2);
  fixture.bill(talk, ada, 1);
  fixture.session(berlin, { startsAt: null, endsAt: null });
  fixture.place(berlin, gold, { tier: 'Gold', sortOrder: 1 });

  const delhi = fixture.event({ name: 'Delhi', timeZone: 'Asia/Kolkata', registrationStartsAt: '2026-01-01T00:00:00Z', registrationEndsAt: '2026-04-01T00:00:00Z' });
  fixture.bill(fixture.session(delhi), ada);
  withExtraColumns(delhi, { attendeeEmails: ['guest@private.example'] });

  fixture.event({ name: 'Draft', status: 'draft' });
  return fixture;
}

describe('resourcesOf', () => {
  it('lists the organization resources, the index, then four resources per event in index order', () => {
    const projection = project(richFixture());
    const [berlin, delhi] = projection.events;

    expect(resourcesOf(projection).map(({ path, kind }) => [path, kind])).toEqual([
      ['/organization', 'organization'],
      ['/team', 'team'],
      ['/speakers', 'speakers'],
      ['/sponsors', 'sponsors'],
      ['/events', 'eventIndex'],
      [`/events/${berlin!.id}`, 'event'],
      [`/events/${berlin!.id}/sessions`, 'eventSessions'],
      [`/events/${berlin!.id}/speakers`, 'eventSpeakers'],
      [`/events/${berlin!.id}/sponsors`, 'eventSponsors'],
      [`/events/${delhi!.id}`, 'event'],
      [`/events/${delhi!.id}/sessions`, 'eventSessions'],
      [`/events/${delhi!.id}/speakers`, 'eventSpeakers'],
      [`/events/${delhi!.id}/sponsors`, 'eventSponsors'],
    ]);
  });

  it('gives each event sub-resource the detail array itself', () => {
    const projection = project(richFixture());
    const byPath = new Map(resourcesOf(projection).map((resource) => [resource.path, resource.value]));
    for (const event of projection.events) {
      expect(byPath.get(`/events/${event.id}`)).toBe(event);
      expect(byPath.get(`/events/${event.id}/sessions`)).toBe(event.sessions);
      expect(byPath.get(`/events/${event.id}/speakers`)).toBe(event.speakers);
      expect(byPath.get(`/events/${event.id}/sponsors`)).toBe(event.sponsors);
    }
  });

  it('produces only resources that satisfy their schemas', () => {
    expect(schemaViolations(resourcesOf(project(richFixture())))).toEqual([]);
  });

  it('produces valid resources for an organization with nothing but a profile', () => {
    const projection = project(new PlatformFixture({ email: null }));
    const resources = resourcesOf(projection);
    expect(resources.map((resource) => resource.value)).toEqual([projection.organization, [], [], [], []]);
    expect(schemaViolations(resources)).toEqual([]);
  });

  it('publishes no private e-mail and no column the contract does not name', () => {
    const text = JSON.stringify(resourcesOf(project(richFixture())).map((resource) => resource.value));
    expect(text).not.toContain('private.example');
    expect(text).not.toContain('attendeeEmails');
    expect(text.match(/[^"]+@[^"]+/g)).toEqual(['hello@acme.example']);
  });
});
