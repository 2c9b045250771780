// A small hand-written OrganizationData for unit tests: rows with plain defaults (a published
// event in Europe/Berlin, accepted speakers, visible team members) that each test overrides
// where it matters. Ids are deterministic UUIDs in creation order, so tie-breaks are predictable.
import type {
  EventRow,
  EventSponsorRow,
  OrganizationData,
  OrganizationRow,
  SessionRow,
  SessionSpeakerRow,
  SpeakerRow,
  SponsorRow,
  TeamMemberRow,
} from '../../builder/platform/rows.ts';

/** The n-th fixture UUID: `00000000-0000-4000-8000-00000000000a` for n = 10. */
export function fixtureUuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export class PlatformFixture {
  private lastId = 0;
  readonly organization: OrganizationRow;
  readonly teamMembers: TeamMemberRow[] = [];
  readonly speakers: SpeakerRow[] = [];
  readonly sponsors: SponsorRow[] = [];
  readonly events: EventRow[] = [];
  readonly sessions: SessionRow[] = [];
  readonly sessionSpeakers: SessionSpeakerRow[] = [];
  readonly eventSponsors: EventSponsorRow[] = [];

  constructor(organization: Partial<OrganizationRow> = {}) {
    this.organization = {
      id: this.nextId(),
      name: 'Acme Events',
      slug: 'acme',
      description: null,
      logo: null,
      cover: null,
      website: null,
      email: 'hello@acme.example',
      phone: null,
      address: null,
      city: null,
      country: null,
      latitude: null,
      longitude: null,
      status: 'active',
      ...organization,
    };
  }

  /** A fresh id, for images and rows built by hand. */
  nextId(): string {
    return fixtureUuid(++this.lastId);
  }

  image(): { fileId: string; url: string } {
    const fileId = this.nextId();
    return { fileId, url: `https://files.acme.example/${fileId}.png` };
  }

  teamMember(row: Partial<TeamMemberRow> = {}): TeamMemberRow {
    const member: TeamMemberRow = {
      id: this.nextId(),
      fullName: 'Team Member',
      title: null,
      bio: null,
      photo: null,
      linkedInUrl: null,
      websiteUrl: null,
      showOnWebsite: true,
      sortOrder: 0,
      ...row,
    };
    this.teamMembers.push(member);
    return member;
  }

  speaker(row: Partial<SpeakerRow> = {}): SpeakerRow {
    const speaker: SpeakerRow = {
      id: this.nextId(),
      name: 'Speaker',
      jobTitle: null,
      company: null,
      bio: null,
      photo: null,
      linkedInUrl: null,
      gitHubUrl: null,
      websiteUrl: null,
      invitationStatus: 'accepted',
      ...row,
    };
    this.speakers.push(speaker);
    return speaker;
  }

  sponsor(row: Partial<SponsorRow> = {}): SponsorRow {
    const sponsor: SponsorRow = {
      id: this.nextId(),
      name: 'Sponsor',
      description: null,
      logo: null,
      websiteUrl: null,
      isOrganizationSponsor: false,
      ...row,
    };
    this.sponsors.push(sponsor);
    return sponsor;
  }

  event(row: Partial<EventRow> = {}): EventRow {
    const id = this.nextId();
    const event: EventRow = {
      id,
      name: 'Event',
      slug: `event-${this.lastId}`,
      description: null,
      cover: null,
      logo: null,
      status: 'published',
      timeZone: 'Europe/Berlin',
      startsAt: '2026-05-01T07:00:00Z',
      endsAt: '2026-05-01T16:00:00Z',
      venueName: null,
      address: null,
      city: null,
      country: null,
      latitude: null,
      longitude: null,
      capacity: null,
      registrationEnabled: true,
      registrationStartsAt: null,
      registrationEndsAt: null,
      registrationCount: 0,
      ...row,
    };
    this.events.push(event);
    return event;
  }

  /** A session of `event`, scheduled 09:00–10:00Z unless told otherwise. */
  session(event: EventRow, row: Partial<SessionRow> = {}): SessionRow {
    const session: SessionRow = {
      id: this.nextId(),
      eventId: event.id,
      name: 'Session',
      description: null,
      room: null,
      startsAt: '2026-05-01T09:00:00Z',
      endsAt: '2026-05-01T10:00:00Z',
      capacity: null,
      ...row,
    };
    this.sessions.push(session);
    return session;
  }

  /** Bills `speaker` on `session` at `billingOrder`. */
  bill(session: SessionRow, speaker: SpeakerRow, billingOrder = 0): SessionSpeakerRow {
    const link: SessionSpeakerRow = { sessionId: session.id, speakerId: speaker.id, billingOrder };
    this.sessionSpeakers.push(link);
    return link;
  }

  /** Places `sponsor` on `event`. */
  place(event: EventRow, sponsor: SponsorRow, placement: Partial<Pick<EventSponsorRow, 'tier' | 'sortOrder'>> = {}): EventSponsorRow {
    const row: EventSponsorRow = { eventId: event.id, sponsorId: sponsor.id, tier: null, sortOrder: 0, ...placement };
    this.eventSponsors.push(row);
    return row;
  }

  /** The rows so far, as the reader would return them (arrays copied; rows shared). */
  data(): OrganizationData {
    return {
      organization: this.organization,
      teamMembers: [...this.teamMembers],
      speakers: [...this.speakers],
      sponsors: [...this.sponsors],
      events: [...this.events],
      sessions: [...this.sessions],
      sessionSpeakers: [...this.sessionSpeakers],
      eventSponsors: [...this.eventSponsors],
    };
  }
}
