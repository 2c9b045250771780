// The builder's read stage (docs/design.md step 1): one organization's rows from the platform relations
// of docs/platform.md, with everything that must never be published already filtered out in SQL.
// One query per relation, all in one read-only snapshot, never one query per row.
import type {
  EventRow,
  EventSponsorRow,
  ImageRow,
  OrganizationData,
  OrganizationRow,
  PlatformSource,
  SessionRow,
  SessionSpeakerRow,
  SpeakerRow,
  SponsorRow,
  TeamMemberRow,
} from './rows.ts';
import { isUuid } from '../../snapshot/layout.ts';
import type { OrganizationState } from '../../snapshot/manifest.ts';
import { listOrganizations, type OrganizationRef } from './organizations.ts';
import type { SqlClient, SqlQueries } from './sql.ts';

/** Formats a timestamptz as '2026-05-01T09:00:00Z' in the database, identically on PostgreSQL and PGlite. */
function utc(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
}

/** Columns of a joined file, as `<alias>_id` and `<alias>_url`, turned into an ImageRow by `image`. */
function imageColumns(alias: string): string {
  return `${alias}.id AS ${alias}_id, ${alias}.url AS ${alias}_url`;
}

function image(fileId: string | null, url: string | null): ImageRow | null {
  return fileId === null || url === null ? null : { fileId, url };
}

// Every query selects columns by name: no `*`, so a person's e-mail column is never read
// (docs/api.md §1 rule 5); organizations.email is the public contact address and the one exception.

const ORGANIZATION_QUERY = `
  SELECT o.id, o.name, o.slug, o.description, ${imageColumns('logo')}, ${imageColumns('cover')},
         o.website, o.email, o.phone, o.address, o.city, o.country,
         o.latitude::float8 AS latitude, o.longitude::float8 AS longitude, o.status
  FROM organizations o
  LEFT JOIN files logo ON logo.id = o.logo_file_id
  LEFT JOIN files cover ON cover.id = o.cover_file_id
  WHERE o.id = $1`;

// Spec §1 rule 7: only members marked for display.
const TEAM_MEMBERS_QUERY = `
  SELECT t.id, t.full_name, t.title, t.bio, ${imageColumns('photo')}, t.linkedin_url, t.website_url,
         t.show_on_website, t.sort_order::int4 AS sort_order
  FROM team_members t
  LEFT JOIN files photo ON photo.id = t.photo_file_id
  WHERE t.organization_id = $1 AND t.show_on_website
  ORDER BY t.id`;

// Spec §1 rule 6: people who were only invited (or declined) are not announced.
const SPEAKERS_QUERY = `
  SELECT s.id, s.name, s.job_title, s.company, s.bio, ${imageColumns('photo')},
         s.linkedin_url, s.github_url, s.website_url, s.invitation_status
  FROM speakers s
  LEFT JOIN files photo ON photo.id = s.photo_file_id
  WHERE s.organization_id = $1 AND s.invitation_status = 'accepted'
  ORDER BY s.id`;

const SPONSORS_QUERY = `
  SELECT s.id, s.name, s.description, ${imageColumns('logo')}, s.website_url, s.is_organization_sponsor
  FROM sponsors s
  LEFT JOIN files logo ON logo.id = s.logo_file_id
  WHERE s.organization_id = $1
  ORDER BY s.id`;

// Spec §1 rule 4: only published events. Registrations are only counted (capacity reached ⇒
// registration not open, docs/design.md "Clock-dependent fields"); no attendee column is read.
const EVENTS_QUERY = `
  SELECT e.id, e.name, e.slug, e.description, ${imageColumns('cover')}, ${imageColumns('logo')},
         e.status, e.time_zone, ${utc('e.starts_at')} AS starts_at, ${utc('e.ends_at')} AS ends_at,
         e.venue_name, e.address, e.city, e.country,
         e.latitude::float8 AS latitude, e.longitude::float8 AS longitude, e.capacity::int4 AS capacity,
         e.registration_enabled,
         ${utc('e.registration_starts_at')} AS registration_starts_at,
         ${utc('e.registration_ends_at')} AS registration_ends_at,
         (SELECT count(*) FROM registrations r WHERE r.event_id = e.id)::int4 AS registration_count
  FROM events e
  LEFT JOIN files cover ON cover.id = e.cover_file_id
  LEFT JOIN files logo ON logo.id = e.logo_file_id
  WHERE e.organization_id = $1 AND e.status = 'published'
  ORDER BY e.id`;

/** The organization's published events, for the relations that hang off events. */
const PUBLISHED_EVENTS = `
  JOIN events e ON e.id = x.event_id AND e.organization_id = $1 AND e.status = 'published'`;

// docs/platform.md: a session without both times is not scheduled, so not published.
const SESSIONS_QUERY = `
  SELECT x.id, x.event_id, x.name, x.description, x.room,
         ${utc('x.starts_at')} AS starts_at, ${utc('x.ends_at')} AS ends_at, x.capacity::int4 AS capacity
  FROM sessions x ${PUBLISHED_EVENTS}
  WHERE x.starts_at IS NOT NULL AND x.ends_at IS NOT NULL
  ORDER BY x.id`;

// Links to published, scheduled sessions and accepted speakers only; the speaker must belong to
// the same organization, so a mistaken cross-organization link cannot pull another's speaker in.
const SESSION_SPEAKERS_QUERY = `
  SELECT ss.session_id, ss.speaker_id, ss.billing_order::int4 AS billing_order
  FROM session_speakers ss
  JOIN sessions x ON x.id = ss.session_id AND x.starts_at IS NOT NULL AND x.ends_at IS NOT NULL
  ${PUBLISHED_EVENTS}
  JOIN speakers sp ON sp.id = ss.speaker_id AND sp.organization_id = $1 AND sp.invitation_status = 'accepted'
  ORDER BY ss.session_id, ss.speaker_id`;

const EVENT_SPONSORS_QUERY = `
  SELECT x.event_id, x.sponsor_id, x.tier, x.sort_order::int4 AS sort_order
  FROM event_sponsors x ${PUBLISHED_EVENTS}
  JOIN sponsors s ON s.id = x.sponsor_id AND s.organization_id = $1
  ORDER BY x.event_id, x.sponsor_id`;

type Nullable = string | null;

interface OrganizationRecord {
  id: string;
  name: string;
  slug: string;
  description: Nullable;
  logo_id: Nullable;
  logo_url: Nullable;
  cover_id: Nullable;
  cover_url: Nullable;
  website: Nullable;
  email: Nullable;
  phone: Nullable;
  address: Nullable;
  city: Nullable;
  country: Nullable;
  latitude: number | null;
  longitude: number | null;
  status: OrganizationRow['status'];
}

interface TeamMemberRecord {
  id: string;
  full_name: string;
  title: Nullable;
  bio: Nullable;
  photo_id: Nullable;
  photo_url: Nullable;
  linkedin_url: Nullable;
  website_url: Nullable;
  show_on_website: boolean;
  sort_order: number;
}

interface SpeakerRecord {
  id: string;
  name: string;
  job_title: Nullable;
  company: Nullable;
  bio: Nullable;
  photo_id: Nullable;
  photo_url: Nullable;
  linkedin_url: Nullable;
  github_url: Nullable;
  website_url: Nullable;
  invitation_status: SpeakerRow['invitationStatus'];
}

interface SponsorRecord {
  id: string;
  name: string;
  description: Nullable;
  logo_id: Nullable;
  logo_url: Nullable;
  website_url: Nullable;
  is_organization_sponsor: boolean;
}

interface EventRecord {
  id: string;
  name: string;
  slug: string;
  description: Nullable;
  cover_id: Nullable;
  cover_url: Nullable;
  logo_id: Nullable;
  logo_url: Nullable;
  status: EventRow['status'];
  time_zone: string;
  starts_at: string;
  ends_at: string;
  venue_name: Nullable;
  address: Nullable;
  city: Nullable;
  country: Nullable;
  latitude: number | null;
  longitude: number | null;
  capacity: number | null;
  registration_enabled: boolean;
  registration_starts_at: Nullable;
  registration_ends_at: Nullable;
  registration_count: number;
}

interface SessionRecord {
  id: string;
  event_id: string;
  name: string;
  description: Nullable;
  room: Nullable;
  starts_at: Nullable;
  ends_at: Nullable;
  capacity: number | null;
}

interface SessionSpeakerRecord {
  session_id: string;
  speaker_id: string;
  billing_order: number;
}

interface EventSponsorRecord {
  event_id: string;
  sponsor_id: string;
  tier: Nullable;
  sort_order: number;
}

export class SqlPlatformSource implements PlatformSource {
  constructor(private readonly db: SqlClient) {}

  listOrganizations(): Promise<OrganizationRef[]> {
    return listOrganizations(this.db);
  }

  readOrganization(id: string): Promise<OrganizationData | undefined> {
    // Not a uuid cannot name an organization; asking would only make PostgreSQL raise.
    if (!isUuid(id)) return Promise.resolve(undefined);
    return this.db.transaction((tx) => readOrganizationData(tx, id.toLowerCase()), { readOnly: true });
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

async function readOrganizationData(tx: SqlQueries, id: string): Promise<OrganizationData | undefined> {
  const [organization] = await tx.query<OrganizationRecord>(ORGANIZATION_QUERY, [id]);
  if (!organization) return undefined;
  const params = [id];
  // One connection runs a transaction's queries one after another, so there is nothing to gain
  // from issuing them concurrently.
  const teamMembers = await tx.query<TeamMemberRecord>(TEAM_MEMBERS_QUERY, params);
  const speakers = await tx.query<SpeakerRecord>(SPEAKERS_QUERY, params);
  const sponsors = await tx.query<SponsorRecord>(SPONSORS_QUERY, params);
  const events = await tx.query<EventRecord>(EVENTS_QUERY, params);
  const sessions = await tx.query<SessionRecord>(SESSIONS_QUERY, params);
  const sessionSpeakers = await tx.query<SessionSpeakerRecord>(SESSION_SPEAKERS_QUERY, params);
  const eventSponsors = await tx.query<EventSponsorRecord>(EVENT_SPONSORS_QUERY, params);
  return {
    organization: toOrganization(organization),
    teamMembers: teamMembers.map(toTeamMember),
    speakers: speakers.map(toSpeaker),
    sponsors: sponsors.map(toSponsor),
    events: events.map(toEvent),
    sessions: sessions.map(toSession),
    sessionSpeakers: sessionSpeakers.map(toSessionSpeaker),
    eventSponsors: eventSponsors.map(toEventSponsor),
  };
}

// Row mappers: snake_case records to the camelCase rows of rows.ts, with explicit key order so
// that both backends produce byte-identical JSON.

function toOrganization(r: OrganizationRecord): OrganizationRow {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    description: r.description,
    logo: image(r.logo_id, r.logo_url),
    cover: image(r.cover_id, r.cover_url),
    website: r.website,
    email: r.email,
    phone: r.phone,
    address: r.address,
    city: r.city,
    country: r.country,
    latitude: r.latitude,
    longitude: r.longitude,
    status: r.status,
  };
}

function toTeamMember(r: TeamMemberRecord): TeamMemberRow {
  return {
    id: r.id,
    fullName: r.full_name,
    title: r.title,
    bio: r.bio,
    photo: image(r.photo_id, r.photo_url),
    linkedinUrl: r.linkedin_url,
    websiteUrl: r.website_url,
    showOnWebsite: r.show_on_website,
    sortOrder: r.sort_order,
  };
}

function toSpeaker(r: SpeakerRecord): SpeakerRow {
  return {
    id: r.id,
    name: r.name,
    jobTitle: r.job_title,
    company: r.company,
    bio: r.bio,
    photo: image(r.photo_id, r.photo_url),
    linkedinUrl: r.linkedin_url,
    githubUrl: r.github_url,
    websiteUrl: r.website_url,
    invitationStatus: r.invitation_status,
  };
}

function toSponsor(r: SponsorRecord): SponsorRow {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    logo: image(r.logo_id, r.logo_url),
    websiteUrl: r.website_url,
    isOrganizationSponsor: r.is_organization_sponsor,
  };
}

function toEvent(r: EventRecord): EventRow {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    description: r.description,
    cover: image(r.cover_id, r.cover_url),
    logo: image(r.logo_id, r.logo_url),
    status: r.status,
    timeZone: r.time_zone,
    startsAt: r.starts_at,
    endsAt: r.ends_at,
    venueName: r.venue_name,
    address: r.address,
    city: r.city,
    country: r.country,
    latitude: r.latitude,
    longitude: r.longitude,
    capacity: r.capacity,
    registrationEnabled: r.registration_enabled,
    registrationStartsAt: r.registration_starts_at,
    registrationEndsAt: r.registration_ends_at,
    registrationCount: r.registration_count,
  };
}

function toSession(r: SessionRecord): SessionRow {
  return {
    id: r.id,
    eventId: r.event_id,
    name: r.name,
    description: r.description,
    room: r.room,
    startsAt: r.starts_at,
    endsAt: r.ends_at,
    capacity: r.capacity,
  };
}

function toSessionSpeaker(r: SessionSpeakerRecord): SessionSpeakerRow {
  return { sessionId: r.session_id, speakerId: r.speaker_id, billingOrder: r.billing_order };
}

function toEventSponsor(r: EventSponsorRecord): EventSponsorRow {
  return { eventId: r.event_id, sponsorId: r.sponsor_id, tier: r.tier, sortOrder: r.sort_order };
}
