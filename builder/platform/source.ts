// The builder's read stage (docs/design.md step 1): one organization's rows from the platform relations
// of docs/platform.md, with everything that must never be published already filtered out in SQL.
// One query per relation, all in one read-only snapshot, never one query per row.
import type {
  EventRow,
  EventSponsorRow,
  ListedOrganization,
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
import type { SqlClient, SqlQueries } from '../../records/database/sql.ts';

/** Formats a timestamptz as '2026-05-01T09:00:00Z' in the database, identically on PostgreSQL and PGlite. */
function utc(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
}

/** A joined file as the row's image, {fileId, url}, or null when there is none. */
function image(alias: string): string {
  return `CASE WHEN ${alias}.id IS NULL OR ${alias}.url IS NULL THEN NULL ELSE json_build_object('fileId', ${alias}.id, 'url', ${alias}.url) END AS ${alias}`;
}

// Every query selects columns by name: no `*`, so a person's e-mail column is never read
// (docs/api.md §1 rule 5); organizations.email is the public contact address and the one exception.
// Each names its columns as rows.ts does (`AS "fullName"`), so a row arrives in the shape the
// projection reads, with nothing to rename in between.

const ORGANIZATION_QUERY = `
  SELECT o.id, o.name, o.slug, o.description, ${image('logo')}, ${image('cover')},
         o.website, o.email, o.phone, o.address, o.city, o.country,
         o.latitude::float8 AS latitude, o.longitude::float8 AS longitude, o.status
  FROM organizations o
  LEFT JOIN files logo ON logo.id = o.logo_file_id
  LEFT JOIN files cover ON cover.id = o.cover_file_id
  WHERE o.id = $1`;

// Spec §1 rule 7: only members marked for display.
const TEAM_MEMBERS_QUERY = `
  SELECT t.id, t.full_name AS "fullName", t.title, t.bio, ${image('photo')}, t.linkedin_url AS "linkedInUrl",
         t.website_url AS "websiteUrl", t.show_on_website AS "showOnWebsite", t.sort_order::int4 AS "sortOrder"
  FROM team_members t
  LEFT JOIN files photo ON photo.id = t.photo_file_id
  WHERE t.organization_id = $1 AND t.show_on_website
  ORDER BY t.id`;

// Spec §1 rule 6: people who were only invited (or declined) are not announced.
const SPEAKERS_QUERY = `
  SELECT s.id, s.name, s.job_title AS "jobTitle", s.company, s.bio, ${image('photo')},
         s.linkedin_url AS "linkedInUrl", s.github_url AS "gitHubUrl", s.website_url AS "websiteUrl",
         s.invitation_status AS "invitationStatus"
  FROM speakers s
  LEFT JOIN files photo ON photo.id = s.photo_file_id
  WHERE s.organization_id = $1 AND s.invitation_status = 'accepted'
  ORDER BY s.id`;

const SPONSORS_QUERY = `
  SELECT s.id, s.name, s.description, ${image('logo')}, s.website_url AS "websiteUrl",
         s.is_organization_sponsor AS "isOrganizationSponsor"
  FROM sponsors s
  LEFT JOIN files logo ON logo.id = s.logo_file_id
  WHERE s.organization_id = $1
  ORDER BY s.id`;

// Spec §1 rule 4: only published events. Registrations are only counted (capacity reached ⇒
// registration not open, docs/design.md "Clock-dependent fields"); no attendee column is read.
const EVENTS_QUERY = `
  SELECT e.id, e.name, e.slug, e.description, ${image('cover')}, ${image('logo')},
         e.status, e.time_zone AS "timeZone", ${utc('e.starts_at')} AS "startsAt", ${utc('e.ends_at')} AS "endsAt",
         e.venue_name AS "venueName", e.address, e.city, e.country,
         e.latitude::float8 AS latitude, e.longitude::float8 AS longitude, e.capacity::int4 AS capacity,
         e.registration_enabled AS "registrationEnabled",
         ${utc('e.registration_starts_at')} AS "registrationStartsAt",
         ${utc('e.registration_ends_at')} AS "registrationEndsAt",
         (SELECT count(*) FROM registrations r WHERE r.event_id = e.id)::int4 AS "registrationCount"
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
  SELECT x.id, x.event_id AS "eventId", x.name, x.description, x.room,
         ${utc('x.starts_at')} AS "startsAt", ${utc('x.ends_at')} AS "endsAt", x.capacity::int4 AS capacity
  FROM sessions x ${PUBLISHED_EVENTS}
  WHERE x.starts_at IS NOT NULL AND x.ends_at IS NOT NULL
  ORDER BY x.id`;

// Links to published, scheduled sessions and accepted speakers only; the speaker must belong to
// the same organization, so a mistaken cross-organization link cannot pull another's speaker in.
const SESSION_SPEAKERS_QUERY = `
  SELECT ss.session_id AS "sessionId", ss.speaker_id AS "speakerId", ss.billing_order::int4 AS "billingOrder"
  FROM session_speakers ss
  JOIN sessions x ON x.id = ss.session_id AND x.starts_at IS NOT NULL AND x.ends_at IS NOT NULL
  ${PUBLISHED_EVENTS}
  JOIN speakers sp ON sp.id = ss.speaker_id AND sp.organization_id = $1 AND sp.invitation_status = 'accepted'
  ORDER BY ss.session_id, ss.speaker_id`;

const EVENT_SPONSORS_QUERY = `
  SELECT x.event_id AS "eventId", x.sponsor_id AS "sponsorId", x.tier, x.sort_order::int4 AS "sortOrder"
  FROM event_sponsors x ${PUBLISHED_EVENTS}
  JOIN sponsors s ON s.id = x.sponsor_id AND s.organization_id = $1
  ORDER BY x.event_id, x.sponsor_id`;

// Read in the organization's snapshot, before its rows: a change committed after this read
// advances the version past what the build records, and the next scheduled run builds it again.
const SOURCE_VERSION_QUERY = `
  SELECT coalesce((SELECT version FROM marquee_source_versions WHERE organization_id = $1), 0)::text AS "sourceVersion"`;

const LIST_QUERY = `
  SELECT o.id, o.slug, o.status, coalesce(v.version, 0)::text AS "sourceVersion"
  FROM organizations o LEFT JOIN marquee_source_versions v ON v.organization_id = o.id
  ORDER BY o.id`;

/** The platform's relations, and the source versions beside them (builder/platform/versions.ts: they must exist). */
export class SqlPlatformSource implements PlatformSource {
  constructor(private readonly db: SqlClient) {}

  listOrganizations(): Promise<ListedOrganization[]> {
    return this.db.query<ListedOrganization>(LIST_QUERY);
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
  const [version] = await tx.query<{ sourceVersion: string }>(SOURCE_VERSION_QUERY, [id]);
  const [organization] = await tx.query<OrganizationRow>(ORGANIZATION_QUERY, [id]);
  if (!organization) return undefined;
  const params = [id];
  // One connection runs a transaction's queries one after another, so there is nothing to gain
  // from issuing them concurrently.
  return {
    organization,
    teamMembers: await tx.query<TeamMemberRow>(TEAM_MEMBERS_QUERY, params),
    speakers: await tx.query<SpeakerRow>(SPEAKERS_QUERY, params),
    sponsors: await tx.query<SponsorRow>(SPONSORS_QUERY, params),
    events: await tx.query<EventRow>(EVENTS_QUERY, params),
    sessions: await tx.query<SessionRow>(SESSIONS_QUERY, params),
    sessionSpeakers: await tx.query<SessionSpeakerRow>(SESSION_SPEAKERS_QUERY, params),
    eventSponsors: await tx.query<EventSponsorRow>(EVENT_SPONSORS_QUERY, params),
    ...(version ? { sourceVersion: version.sourceVersion } : {}),
  };
}
