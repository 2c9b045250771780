// Properties of the whole projection over generated organizations (test/support/platform-arbitraries.ts):
// nothing private is published (docs/api.md §1 rules 4–7), equal data gives equal bytes whatever the
// row order (docs/design.md step 4), a change reaches only the resources that show it, and every
// resource satisfies its schema (docs/design.md step 3).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { projectOrganization, resourcesOf } from '../../../../builder/projection/index.ts';
import type { OrganizationData } from '../../../../builder/platform/rows.ts';
import { canonicalJson } from '../../../../snapshot/canonical.ts';
import { contentObject } from '../../../../snapshot/hash.ts';
import { organizationDataArbitrary } from '../../../support/platform-arbitraries.ts';
import { PUBLIC_BASE_URL } from '../../../support/projection.ts';
import { schemaViolations } from '../../../support/schema-check.ts';

const NUM_RUNS = 100;
const organizations = organizationDataArbitrary();

const resources = (data: OrganizationData) => resourcesOf(projectOrganization(data, { publicBaseUrl: PUBLIC_BASE_URL }));

/** Resource path → content hash, plus the slug map: everything a manifest records. */
function snapshotOf(data: OrganizationData): Map<string, string> {
  const projection = projectOrganization(data, { publicBaseUrl: PUBLIC_BASE_URL });
  const hashes = new Map(resourcesOf(projection).map((resource) => [resource.path, contentObject(resource.value).hash]));
  hashes.set('(slugs)', contentObject(projection.slugs).hash);
  return hashes;
}

/** Paths added, removed or changed between two snapshots, sorted. */
function changedPaths(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((path) => before.get(path) !== after.get(path)).sort();
}

const eventPaths = (eventId: string, ...subresources: string[]): string[] => ['', ...subresources].map((sub) => `/events/${eventId}${sub}`);

const isScheduled = (session: OrganizationData['sessions'][number]) => session.startsAt !== null && session.endsAt !== null;
const publishedEventIds = (data: OrganizationData) => new Set(data.events.filter((event) => event.status === 'published').map((event) => event.id));

/** The data with one row of one relation replaced. */
function replaceRow<K extends 'teamMembers' | 'speakers' | 'sponsors' | 'events' | 'sessions'>(
  data: OrganizationData,
  relation: K,
  index: number,
  change: (row: OrganizationData[K][number]) => OrganizationData[K][number],
): OrganizationData {
  const rows = [...data[relation]] as Array<OrganizationData[K][number]>;
  rows[index] = change(rows[index]!);
  return { ...data, [relation]: rows };
}

/** Picks one row satisfying `accept`, by a generated index; undefined when there is none. */
function pick<T>(rows: readonly T[], choice: number, accept: (row: T) => boolean): number | undefined {
  const indices = rows.flatMap((row, index) => (accept(row) ? [index] : []));
  return indices.length === 0 ? undefined : indices[choice % indices.length];
}

describe('projection properties', () => {
  it('publishes no personal e-mail, no unpublished event, no unconfirmed speaker and no hidden member', () => {
    fc.assert(
      fc.property(organizations, ({ data, personalEmails }) => {
        const publicEmail = data.organization.email;
        const text = resources(data)
          .map((resource) => canonicalJson(resource.value))
          .join('\n');
        // The organization's public contact e-mail is the one e-mail allowed (docs/api.md §1 rule 5).
        const withoutPublicEmail = publicEmail === null ? text : text.split(JSON.stringify(publicEmail).slice(1, -1)).join('');
        for (const email of personalEmails) expect(withoutPublicEmail).not.toContain(JSON.stringify(email).slice(1, -1));
        // Generated text never contains `@`, so any left would be an e-mail that leaked.
        expect(withoutPublicEmail).not.toContain('@');
        expect(text).not.toContain('attendeeEmails');

        const privateIds = [
          ...data.events.filter((event) => event.status !== 'published').map((event) => event.id),
          ...data.speakers.filter((speaker) => speaker.invitationStatus !== 'accepted').map((speaker) => speaker.id),
          ...data.teamMembers.filter((member) => !member.showOnWebsite).map((member) => member.id),
        ];
        for (const id of privateIds) expect(text).not.toContain(id);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('gives byte-identical resources for the same data, in any row order', () => {
    fc.assert(
      fc.property(organizations, fc.gen(), ({ data }, generate) => {
        const shuffle = <T>(rows: T[]): T[] => generate(fc.shuffledSubarray, rows, { minLength: rows.length, maxLength: rows.length });
        const shuffled: OrganizationData = {
          organization: data.organization,
          teamMembers: shuffle(data.teamMembers),
          speakers: shuffle(data.speakers),
          sponsors: shuffle(data.sponsors),
          events: shuffle(data.events),
          sessions: shuffle(data.sessions),
          sessionSpeakers: shuffle(data.sessionSpeakers),
          eventSponsors: shuffle(data.eventSponsors),
        };
        const bytes = (input: OrganizationData) => resources(input).map((resource) => `${resource.path} ${canonicalJson(resource.value)}`);
        const original = bytes(data);
        expect(bytes(structuredClone(data))).toEqual(original);
        expect(bytes(shuffled)).toEqual(original);
        expect(snapshotOf(shuffled)).toEqual(snapshotOf(data));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('produces only resources that satisfy their schemas', () => {
    fc.assert(
      fc.property(organizations, ({ data }) => {
        expect(schemaViolations(resources(data))).toEqual([]);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  describe('one changed row changes only the resources that show it', () => {
    const change = { numRuns: 60 };

    it('a hidden team member: nothing', () => {
      fc.assert(
        fc.property(organizations, fc.nat(), ({ data }, choice) => {
          const index = pick(data.teamMembers, choice, (member) => !member.showOnWebsite);
          fc.pre(index !== undefined);
          const after = replaceRow(data, 'teamMembers', index!, (member) => ({ ...member, fullName: `${member.fullName}!`, bio: 'new', sortOrder: member.sortOrder + 1 }));
          expect(changedPaths(snapshotOf(data), snapshotOf(after))).toEqual([]);
        }),
        change,
      );
    });

    it("a visible member's bio: only /team", () => {
      fc.assert(
        fc.property(organizations, fc.nat(), ({ data }, choice) => {
          const index = pick(data.teamMembers, choice, (member) => member.showOnWebsite);
          fc.pre(index !== undefined);
          const after = replaceRow(data, 'teamMembers', index!, (member) => ({ ...member, bio: `${member.bio ?? ''} (updated)` }));
          expect(changedPaths(snapshotOf(data), snapshotOf(after))).toEqual(['/team']);
        }),
        change,
      );
    });

    it("a sponsor's name: /sponsors and the events that place it", () => {
      fc.assert(
        fc.property(organizations, fc.nat(), ({ data }, choice) => {
          const index = pick(data.sponsors, choice, () => true);
          fc.pre(index !== undefined);
          const sponsor = data.sponsors[index!]!;
          const published = publishedEventIds(data);
          const placedOn = data.eventSponsors
            .filter((placement) => placement.sponsorId === sponsor.id && published.has(placement.eventId))
            .flatMap((placement) => eventPaths(placement.eventId, '/sponsors'));
          const after = replaceRow(data, 'sponsors', index!, (row) => ({ ...row, name: `${row.name} renamed` }));
          expect(changedPaths(snapshotOf(data), snapshotOf(after))).toEqual(['/sponsors', ...placedOn].sort());
        }),
        change,
      );
    });

    it("an accepted speaker's bio: /speakers and the programmes that bill them", () => {
      fc.assert(
        fc.property(organizations, fc.nat(), ({ data }, choice) => {
          const index = pick(data.speakers, choice, (speaker) => speaker.invitationStatus === 'accepted');
          fc.pre(index !== undefined);
          const speaker = data.speakers[index!]!;
          const published = publishedEventIds(data);
          const billedSessions = new Set(data.sessionSpeakers.filter((link) => link.speakerId === speaker.id).map((link) => link.sessionId));
          const events = new Set(
            data.sessions.filter((session) => billedSessions.has(session.id) && isScheduled(session) && published.has(session.eventId)).map((session) => session.eventId),
          );
          const after = replaceRow(data, 'speakers', index!, (row) => ({ ...row, bio: `${row.bio ?? ''} (updated)` }));
          const expected = ['/speakers', ...[...events].flatMap((id) => eventPaths(id, '/sessions', '/speakers'))].sort();
          expect(changedPaths(snapshotOf(data), snapshotOf(after))).toEqual(expected);
        }),
        change,
      );
    });

    it('an invited or declined speaker: nothing', () => {
      fc.assert(
        fc.property(organizations, fc.nat(), ({ data }, choice) => {
          const index = pick(data.speakers, choice, (speaker) => speaker.invitationStatus !== 'accepted');
          fc.pre(index !== undefined);
          const after = replaceRow(data, 'speakers', index!, (row) => ({ ...row, name: `${row.name}!`, bio: 'new' }));
          expect(changedPaths(snapshotOf(data), snapshotOf(after))).toEqual([]);
        }),
        change,
      );
    });

    it('an unscheduled session, or a session of an unpublished event: nothing', () => {
      fc.assert(
        fc.property(organizations, fc.nat(), ({ data }, choice) => {
          const published = publishedEventIds(data);
          const index = pick(data.sessions, choice, (session) => !isScheduled(session) || !published.has(session.eventId));
          fc.pre(index !== undefined);
          const after = replaceRow(data, 'sessions', index!, (row) => ({ ...row, name: `${row.name}!`, room: 'Elsewhere', capacity: 7 }));
          expect(changedPaths(snapshotOf(data), snapshotOf(after))).toEqual([]);
        }),
        change,
      );
    });

    it('an unpublished event: nothing', () => {
      fc.assert(
        fc.property(organizations, fc.nat(), ({ data }, choice) => {
          const index = pick(data.events, choice, (event) => event.status !== 'published');
          fc.pre(index !== undefined);
          const after = replaceRow(data, 'events', index!, (row) => ({ ...row, name: `${row.name}!`, slug: `${row.slug}-moved` }));
          expect(changedPaths(snapshotOf(data), snapshotOf(after))).toEqual([]);
        }),
        change,
      );
    });
  });
});
