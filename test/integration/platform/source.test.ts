// The read stage (docs/design.md step 1) over the sample: what must never be published is filtered in
// SQL, and PostgreSQL and PGlite return byte-identical data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../builder/platform/migrations.ts';
import type { OrganizationData } from '../../../builder/platform/rows.ts';
import { SAMPLE, seedSample } from '../../../builder/platform/sample.ts';
import { findOrganization, OrganizationNotFoundError } from '../../../builder/platform/organizations.ts';
import { SqlPlatformSource } from '../../../builder/platform/source.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { platformBackends } from '../../support/platform-backends.ts';

const { backends, close } = platformBackends();
afterAll(close);

const NOW = new Date('2026-05-01T12:00:00Z');
const { nordic, pacific, harbor, oldTown } = SAMPLE.organizations;
const UTC_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** Every object key in a JSON value, with its path. */
function keyPaths(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => keyPaths(item, `${path}[${index}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, child]) => [`${path}.${key}`, ...keyPaths(child, `${path}.${key}`)]);
  }
  return [];
}

const readings: Record<string, Record<string, OrganizationData | undefined>> = {};

describe.each(backends)('SqlPlatformSource on $name', (backend) => {
  let db: SqlClient;
  let source: SqlPlatformSource;
  let data: Record<string, OrganizationData>;

  beforeAll(async () => {
    db = await backend.open();
    await migrate(db);
    await seedSample(db, { now: NOW });
    source = new SqlPlatformSource(db);
    const read: Record<string, OrganizationData | undefined> = {};
    for (const organization of Object.values(SAMPLE.organizations)) read[organization.id] = await source.readOrganization(organization.id);
    readings[backend.name] = read;
    data = read as Record<string, OrganizationData>;
  });

  it('lists every organization with its status and source version, ordered by id', async () => {
    expect(await source.listOrganizations()).toEqual(
      [nordic, pacific, harbor, oldTown].map(({ id, slug, status }) => ({ id, slug, status, sourceVersion: expect.stringMatching(/^[1-9]\d*$/) })),
    );
  });

  it('reads only published events, and sessions and sponsors of those only', () => {
    const nordicData = data[nordic.id]!;
    const eventIds = nordicData.events.map((event) => event.id);
    expect(nordicData.events.every((event) => event.status === 'published')).toBe(true);
    expect(eventIds).not.toContain(SAMPLE.events.springDraft.id);
    expect(eventIds).not.toContain(SAMPLE.events.cancelledMeetup.id);
    expect(data[pacific.id]!.events.map((event) => event.id)).not.toContain(SAMPLE.events.suspendedRetreat.id);
    for (const organization of Object.values(data)) {
      const published = new Set(organization.events.map((event) => event.id));
      expect(organization.sessions.every((session) => published.has(session.eventId))).toBe(true);
      expect(organization.eventSponsors.every((link) => published.has(link.eventId))).toBe(true);
    }
  });

  it('reads only scheduled sessions', () => {
    const sessions = Object.values(data).flatMap((organization) => organization.sessions);
    expect(sessions.map((session) => session.id)).not.toContain(SAMPLE.sessions.unscheduled);
    expect(sessions.every((session) => session.startsAt !== null && session.endsAt !== null)).toBe(true);
  });

  it('reads only accepted speakers, and only their links to sessions', () => {
    for (const organization of Object.values(data)) {
      expect(organization.speakers.every((speaker) => speaker.invitationStatus === 'accepted')).toBe(true);
      const speakerIds = new Set(organization.speakers.map((speaker) => speaker.id));
      const sessionIds = new Set(organization.sessions.map((session) => session.id));
      for (const link of organization.sessionSpeakers) {
        expect(speakerIds.has(link.speakerId)).toBe(true);
        expect(sessionIds.has(link.sessionId)).toBe(true);
      }
    }
    const everyone = JSON.stringify(data);
    for (const hidden of [SAMPLE.speakers.invited, SAMPLE.speakers.declined, SAMPLE.speakers.pacificInvited]) {
      expect(everyone).not.toContain(hidden);
    }
  });

  it('reads only team members shown on the website', () => {
    for (const organization of Object.values(data)) {
      expect(organization.teamMembers.every((member) => member.showOnWebsite)).toBe(true);
    }
    const everyone = JSON.stringify(data);
    expect(everyone).not.toContain(SAMPLE.teamMembers.hidden);
    expect(everyone).not.toContain(SAMPLE.teamMembers.pacificHidden);
  });

  it('never reads an e-mail except the organization’s public contact address', () => {
    const emailKeys = keyPaths(data).filter((path) => /email/i.test(path.split('.').at(-1)!));
    expect(emailKeys).toEqual(Object.keys(data).map((id) => `$.${id}.organization.email`));
    // Nor any attendee: the sample's e-mail domains of people never appear.
    expect(JSON.stringify(data)).not.toMatch(/@(team|speakers|mail)\.example\./);
    expect(data[nordic.id]!.organization.email).toBe('hello@nordicdev.example.org');
  });

  it('resolves images, formats times in UTC seconds and counts registrations', () => {
    const nordicData = data[nordic.id]!;
    expect(nordicData.organization.logo).toEqual({ fileId: expect.any(String), url: expect.stringMatching(/^https:\/\//) });
    expect(data[oldTown.id]!.organization.logo).toBeNull();
    const summit = nordicData.events.find((event) => event.id === SAMPLE.events.nordicSummit.id)!;
    expect(summit.cover?.url).toMatch(/^https:\/\/events\.example\.com\/files\//);
    for (const event of nordicData.events) {
      for (const time of [event.startsAt, event.endsAt]) expect(time).toMatch(UTC_SECONDS);
    }
    expect(summit.registrationStartsAt).toMatch(UTC_SECONDS);
    expect(summit.registrationCount).toBe(5);
    const workshop = nordicData.events.find((event) => event.id === SAMPLE.events.rustWorkshop.id)!;
    expect(workshop.registrationCount).toBe(workshop.capacity);
    const meetup = nordicData.events.find((event) => event.id === SAMPLE.events.tokyoMeetup.id)!;
    expect(meetup).toMatchObject({ registrationCount: 0, registrationStartsAt: null, capacity: null, latitude: 35.6569 });
  });

  it('returns rows ordered by id', () => {
    for (const organization of Object.values(data)) {
      for (const rows of [organization.teamMembers, organization.speakers, organization.sponsors, organization.events, organization.sessions]) {
        const ids = rows.map((row) => row.id);
        expect(ids).toEqual([...ids].sort());
      }
    }
  });

  it('answers undefined for an unknown organization or a malformed id', async () => {
    expect(await source.readOrganization('a0000000-0000-4000-8000-000000000099')).toBeUndefined();
    expect(await source.readOrganization('nordic-dev')).toBeUndefined();
  });

  it('reads an organization by an upper-case id', async () => {
    expect(await source.readOrganization(nordic.id.toUpperCase())).toEqual(data[nordic.id]);
  });

  it('resolves --org by id or slug', async () => {
    const expected = { id: pacific.id, slug: pacific.slug, status: 'active' };
    expect(await findOrganization(db, pacific.slug)).toEqual(expected);
    expect(await findOrganization(db, pacific.id)).toEqual(expected);
    expect(await findOrganization(db, pacific.id.toUpperCase())).toEqual(expected);
    await expect(findOrganization(db, 'no-such-organization')).rejects.toThrow(OrganizationNotFoundError);
    await expect(findOrganization(db, 'a0000000-0000-4000-8000-000000000099')).rejects.toThrow(
      `no organization with id or slug "a0000000-0000-4000-8000-000000000099" in ${db.description}`,
    );
  });

  it('sees a change at once', async () => {
    await db.query('UPDATE team_members SET show_on_website = false WHERE organization_id = $1', [oldTown.id]);
    expect((await source.readOrganization(oldTown.id))!.teamMembers).toEqual([]);
  });
});

it('reads the same sample identically from PostgreSQL and PGlite', () => {
  expect(readings.PostgreSQL).toBeDefined();
  expect(JSON.stringify(readings.PGlite)).toBe(JSON.stringify(readings.PostgreSQL));
});
