// fast-check arbitraries of one organization's platform data (builder/platform/rows.ts), for
// property tests anywhere: events of every status, speakers of every invitation status, hidden
// and visible team members, sessions with and without times, registration counts around the
// capacity, several time zones (DST, half-hour and southern-hemisphere ones). Every person row
// and event also carries columns the contract does not name — personal e-mails, as a careless
// platform view might add them at runtime — so tests can prove that none of them is published.
import fc from 'fast-check';
import type {
  EventRow,
  EventSponsorRow,
  EventStatus,
  ImageRow,
  InvitationStatus,
  OrganizationData,
  OrganizationRow,
  SessionRow,
  SessionSpeakerRow,
  SpeakerRow,
  SponsorRow,
  TeamMemberRow,
} from '../../builder/platform/rows.ts';
import { ORGANIZATION_STATES, type OrganizationState } from '../../snapshot/manifest.ts';

const TIME_ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Sydney', 'America/Sao_Paulo', 'Australia/Lord_Howe', 'America/St_Johns', 'UTC'] as const;

export interface GeneratedOrganization {
  data: OrganizationData;
  /** Every personal e-mail hidden in the rows (`email` on people, `attendeeEmails` on events). */
  personalEmails: string[];
}

export interface OrganizationDataConstraints {
  maxTeamMembers?: number;
  maxSpeakers?: number;
  maxSponsors?: number;
  maxEvents?: number;
  maxSessions?: number;
}

// ── Field values ────────────────────────────────────────────────────────────────────────────

/** Free text without `@`, so any `@` in a snapshot must come from an e-mail. Names repeat often, to exercise tie-breaks. */
const text = fc
  .oneof(
    { weight: 3, arbitrary: fc.constantFrom('Ada', 'ada', 'Bob', 'Émile', 'Zoë', 'Zed', 'Twin', 'Ünsal', '李', '😀 Fun') },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  )
  .filter((value) => !value.includes('@'));
const optionalText = fc.option(text, { nil: null });
/** Slugs with characters that need URL encoding; still without `@`. */
const slug = fc.string({ minLength: 1, maxLength: 10 }).filter((value) => !value.includes('@'));
const optionalUrl = fc.option(
  fc.webUrl().filter((url) => !url.includes('@')),
  { nil: null },
);
const coordinate = fc.option(fc.double({ min: -90, max: 90, noNaN: true, noDefaultInfinity: true }), { nil: null });
const smallInt = fc.integer({ min: -3, max: 5 });

const MINUTE = 60_000;
const isoOf = (millis: number): string => `${new Date(millis).toISOString().slice(0, 19)}Z`;
/** Instants on and around DST changes of the zones above, plus any minute in 2025–2027. */
const instant = fc.oneof(
  fc.constantFrom(
    Date.parse('2026-03-29T00:59:59Z'),
    Date.parse('2026-03-29T01:00:00Z'),
    Date.parse('2026-11-01T06:00:00Z'),
    Date.parse('2026-04-04T15:00:00Z'),
    Date.parse('2026-03-08T05:30:00Z'),
    Date.parse('2026-05-01T07:00:00Z'),
  ),
  fc.integer({ min: Date.UTC(2025, 0, 1) / MINUTE, max: Date.UTC(2027, 11, 31) / MINUTE }).map((minute) => minute * MINUTE),
);
const duration = fc.integer({ min: 0, max: 3 * 24 * 60 }).map((minutes) => minutes * MINUTE);

// ── Row shapes: everything but ids, which are assigned afterwards so that all are distinct ──

const memberShape = fc.record({
  fullName: text,
  title: optionalText,
  bio: optionalText,
  hasPhoto: fc.boolean(),
  linkedInUrl: optionalUrl,
  websiteUrl: optionalUrl,
  showOnWebsite: fc.boolean(),
  sortOrder: smallInt,
  email: fc.emailAddress(),
});
const speakerShape = fc.record({
  name: text,
  jobTitle: optionalText,
  company: optionalText,
  bio: optionalText,
  hasPhoto: fc.boolean(),
  linkedInUrl: optionalUrl,
  gitHubUrl: optionalUrl,
  websiteUrl: optionalUrl,
  invitationStatus: fc.constantFrom<InvitationStatus>('accepted', 'accepted', 'invited', 'declined'),
  email: fc.emailAddress(),
});
const sponsorShape = fc.record({
  name: text,
  description: optionalText,
  hasLogo: fc.boolean(),
  websiteUrl: optionalUrl,
  isOrganizationSponsor: fc.boolean(),
});
const eventShape = fc.record({
  name: text,
  slug,
  description: optionalText,
  hasCover: fc.boolean(),
  hasLogo: fc.boolean(),
  status: fc.constantFrom<EventStatus>('published', 'published', 'published', 'draft', 'cancelled', 'suspended'),
  timeZone: fc.constantFrom(...TIME_ZONES),
  start: instant,
  duration,
  venueName: optionalText,
  address: optionalText,
  city: optionalText,
  country: optionalText,
  latitude: coordinate,
  longitude: coordinate,
  capacity: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
  registrationCount: fc.integer({ min: 0, max: 6 }),
  registrationEnabled: fc.boolean(),
  registrationStart: fc.option(instant, { nil: null }),
  registrationEnd: fc.option(instant, { nil: null }),
  attendeeEmails: fc.array(fc.emailAddress(), { maxLength: 3 }),
});
/** Which of its two times a session has; only `scheduled` sessions are published. */
type SessionSchedule = 'scheduled' | 'unscheduled' | 'startOnly' | 'endOnly';
const sessionShape = fc.record({
  event: fc.nat(),
  name: text,
  description: optionalText,
  room: optionalText,
  capacity: fc.option(fc.integer({ min: 0, max: 500 }), { nil: null }),
  schedule: fc.constantFrom<SessionSchedule>('scheduled', 'scheduled', 'scheduled', 'unscheduled', 'startOnly', 'endOnly'),
  // Few distinct offsets, so that sessions share start and end times.
  offset: fc.integer({ min: 0, max: 4 }).map((quarter) => quarter * 15 * MINUTE),
  duration: fc.constantFrom(30, 45, 60).map((minutes) => minutes * MINUTE),
});
const linkShape = fc.record({ session: fc.nat(), speaker: fc.nat(), billingOrder: fc.integer({ min: 0, max: 3 }) });
const placementShape = fc.record({ event: fc.nat(), sponsor: fc.nat(), tier: optionalText, sortOrder: smallInt });
const organizationShape = fc.record({
  name: text,
  slug,
  description: optionalText,
  hasLogo: fc.boolean(),
  hasCover: fc.boolean(),
  website: optionalUrl,
  email: fc.option(fc.emailAddress(), { nil: null }),
  phone: optionalText,
  address: optionalText,
  city: optionalText,
  country: optionalText,
  latitude: coordinate,
  longitude: coordinate,
  status: fc.constantFrom<OrganizationState>(...ORGANIZATION_STATES),
});

/** Random OrganizationData, with personal e-mails injected as extra columns. */
export function organizationDataArbitrary(constraints: OrganizationDataConstraints = {}): fc.Arbitrary<GeneratedOrganization> {
  const shape = fc.record({
    organization: organizationShape,
    members: fc.array(memberShape, { maxLength: constraints.maxTeamMembers ?? 5 }),
    speakers: fc.array(speakerShape, { maxLength: constraints.maxSpeakers ?? 8 }),
    sponsors: fc.array(sponsorShape, { maxLength: constraints.maxSponsors ?? 5 }),
    events: fc.array(eventShape, { maxLength: constraints.maxEvents ?? 5 }),
    sessions: fc.array(sessionShape, { maxLength: constraints.maxSessions ?? 14 }),
    links: fc.array(linkShape, { maxLength: 20 }),
    placements: fc.array(placementShape, { maxLength: 10 }),
  });
  return shape.chain((rows) => {
    // One id per row and one per image slot (drawn whether or not the image is there).
    const idCount = 3 + 2 * (rows.members.length + rows.speakers.length + rows.sponsors.length) + 3 * rows.events.length + rows.sessions.length;
    return fc.uniqueArray(fc.uuid({ version: 4 }), { minLength: idCount, maxLength: idCount }).map((ids) => assemble(rows, ids));
  });
}

type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never;
interface Shapes {
  organization: ValueOf<typeof organizationShape>;
  members: Array<ValueOf<typeof memberShape>>;
  speakers: Array<ValueOf<typeof speakerShape>>;
  sponsors: Array<ValueOf<typeof sponsorShape>>;
  events: Array<ValueOf<typeof eventShape>>;
  sessions: Array<ValueOf<typeof sessionShape>>;
  links: Array<ValueOf<typeof linkShape>>;
  placements: Array<ValueOf<typeof placementShape>>;
}

function assemble(shapes: Shapes, ids: readonly string[]): GeneratedOrganization {
  let nextId = 0;
  const id = (): string => ids[nextId++]!;
  const image = (present: boolean): ImageRow | null => {
    const fileId = id();
    return present ? { fileId, url: `https://files.example/${fileId}.png` } : null;
  };
  const personalEmails: string[] = [];

  const { hasLogo, hasCover, ...organizationFields } = shapes.organization;
  const organization: OrganizationRow = { id: id(), ...organizationFields, logo: image(hasLogo), cover: image(hasCover) };

  const teamMembers = shapes.members.map(({ hasPhoto, email, ...fields }): TeamMemberRow => {
    personalEmails.push(email);
    return withPrivateColumns({ id: id(), ...fields, photo: image(hasPhoto) }, { email });
  });
  const speakers = shapes.speakers.map(({ hasPhoto, email, ...fields }): SpeakerRow => {
    personalEmails.push(email);
    return withPrivateColumns({ id: id(), ...fields, photo: image(hasPhoto) }, { email });
  });
  const sponsors = shapes.sponsors.map(({ hasLogo: logo, ...fields }): SponsorRow => ({ id: id(), ...fields, logo: image(logo) }));

  const events = shapes.events.map((shape, index): EventRow => {
    const { hasCover: cover, hasLogo: logo, start, duration: length, registrationStart, registrationEnd, attendeeEmails, slug: slugStem, ...fields } = shape;
    personalEmails.push(...attendeeEmails);
    return withPrivateColumns(
      {
        // A suffix keeps slugs unique per organization (docs/platform.md).
        id: id(),
        ...fields,
        slug: `${slugStem}-${index}`,
        cover: image(cover),
        logo: image(logo),
        startsAt: isoOf(start),
        endsAt: isoOf(start + length),
        registrationStartsAt: registrationStart === null ? null : isoOf(registrationStart),
        registrationEndsAt: registrationEnd === null ? null : isoOf(registrationEnd),
      },
      { attendeeEmails },
    );
  });

  const sessions =
    events.length === 0
      ? []
      : shapes.sessions.map((shape): SessionRow => {
          const event = events[shape.event % events.length]!;
          const startsAt = Date.parse(event.startsAt) + shape.offset;
          return {
            id: id(),
            eventId: event.id,
            name: shape.name,
            description: shape.description,
            room: shape.room,
            capacity: shape.capacity,
            startsAt: shape.schedule === 'scheduled' || shape.schedule === 'startOnly' ? isoOf(startsAt) : null,
            endsAt: shape.schedule === 'scheduled' || shape.schedule === 'endOnly' ? isoOf(startsAt + shape.duration) : null,
          };
        });

  return {
    data: {
      organization,
      teamMembers,
      speakers,
      sponsors,
      events,
      sessions,
      sessionSpeakers: distinctPairs(
        shapes.links,
        sessions,
        speakers,
        (link, session, speaker): SessionSpeakerRow => ({ sessionId: session.id, speakerId: speaker.id, billingOrder: link.billingOrder }),
        (link) => [link.session, link.speaker],
      ),
      eventSponsors: distinctPairs(
        shapes.placements,
        events,
        sponsors,
        (placement, event, sponsor): EventSponsorRow => ({ eventId: event.id, sponsorId: sponsor.id, tier: placement.tier, sortOrder: placement.sortOrder }),
        (placement) => [placement.event, placement.sponsor],
      ),
    },
    personalEmails,
  };
}

/** Join rows of two relations by indices taken modulo their lengths, each pair once (a primary key). */
function distinctPairs<S, L extends { id: string }, R extends { id: string }, T>(
  shapes: readonly S[],
  left: readonly L[],
  right: readonly R[],
  build: (shape: S, left: L, right: R) => T,
  indices: (shape: S) => [number, number],
): T[] {
  if (left.length === 0 || right.length === 0) return [];
  const seen = new Set<string>();
  const rows: T[] = [];
  for (const shape of shapes) {
    const [l, r] = indices(shape);
    const a = left[l % left.length]!;
    const b = right[r % right.length]!;
    if (seen.has(`${a.id}/${b.id}`)) continue;
    seen.add(`${a.id}/${b.id}`);
    rows.push(build(shape, a, b));
  }
  return rows;
}

/** Adds columns the row type does not declare, as a platform view might at runtime. */
function withPrivateColumns<T extends object>(row: T, columns: Record<string, unknown>): T {
  return Object.assign(row, columns);
}
