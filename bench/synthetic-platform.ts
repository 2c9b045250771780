// A large synthetic platform for the build benchmark: fills a migrated database with
// organizations, events, sessions, people and sponsors, generated inside the database
// (INSERT … SELECT over generate_series), so 1,000 organizations load in seconds.
// Ids are md5-derived uuids of (namespace, kind, indexes): the same options give the same ids.
import type { SqlClient, SqlQueries } from '../records/database/sql.ts';

export interface SyntheticPlatformOptions {
  organizations?: number;
  eventsPerOrganization?: number;
  sessionsPerEvent?: number;
  speakersPerOrganization?: number;
  sponsorsPerOrganization?: number;
  teamMembersPerOrganization?: number;
  /** At most speakersPerOrganization. */
  speakersPerSession?: number;
  /** At most sponsorsPerOrganization. */
  sponsorsPerEvent?: number;
  registrationsPerEvent?: number;
  /** Events are spread before and after this instant, so every timing occurs. */
  now?: Date;
  /** Part of every id and slug: two namespaces can share one database. */
  namespace?: string;
}

export interface SyntheticPlatformCounts {
  organizations: number;
  files: number;
  teamMembers: number;
  speakers: number;
  sponsors: number;
  events: number;
  sessions: number;
  sessionSpeakers: number;
  eventSponsors: number;
  registrations: number;
}

// Realistic text lengths (descriptions and bios of 100–300 characters) without a text generator.
const PROSE =
  'Practical talks and hands-on workshops for people who build and run software: languages, ' +
  'platforms, security, testing and the craft of engineering. Meet maintainers, swap war stories ' +
  'over coffee, and leave with ideas you can use on Monday morning. Everyone is welcome, from ' +
  'first-time speakers to seasoned architects; our code of conduct applies to every session.';

/**
 * The mix of cases, by index, so every build meets them: every 10th event is a draft and every
 * 25th cancelled; every 7th speaker is only invited and every 11th declined; every 5th team member
 * is hidden; every 17th session has no times.
 */
export async function generateSyntheticPlatform(db: SqlClient, options: SyntheticPlatformOptions = {}): Promise<SyntheticPlatformCounts> {
  const o = {
    organizations: options.organizations ?? 1000,
    events: options.eventsPerOrganization ?? 20,
    sessions: options.sessionsPerEvent ?? 10,
    speakers: options.speakersPerOrganization ?? 25,
    sponsors: options.sponsorsPerOrganization ?? 8,
    team: options.teamMembersPerOrganization ?? 6,
    speakersPerSession: Math.min(options.speakersPerSession ?? 2, options.speakersPerOrganization ?? 25),
    sponsorsPerEvent: Math.min(options.sponsorsPerEvent ?? 5, options.sponsorsPerOrganization ?? 8),
    registrations: options.registrationsPerEvent ?? 5,
  };
  for (const [name, value] of Object.entries(o)) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number ≥ 0, got ${value}`);
  }
  if (o.speakers < 1 || o.sponsors < 1) throw new RangeError('each organization needs at least one speaker and one sponsor');
  const namespace = options.namespace ?? 'synthetic';
  const now = (options.now ?? new Date()).toISOString();

  await db.transaction(async (tx) => {
    await withoutTriggers(tx);
    // $1 is the namespace in every statement; counts are inlined (integers, checked above).
    const run = (sql: string, extra: unknown[] = []) => tx.query(sql, [namespace, ...extra]);
    const id = (kind: string, ...indexes: string[]) => `md5($1::text || ':${kind}' || ${indexes.map((index) => `':' || ${index}`).join(' || ')})::uuid`;
    const prose = (seed: string) => `left('${PROSE}', 100 + (${seed} * 37) % 200)`;

    await run(`
      INSERT INTO files (id, url)
      SELECT ${id('file', 'org')}, 'https://files.example.com/' || $1 || '/logo-' || org || '.png'
      FROM generate_series(1, ${o.organizations}) org`);
    await run(`
      INSERT INTO organizations (id, name, slug, description, logo_file_id, website, email, phone,
                                 address, city, country, latitude, longitude, status)
      SELECT ${id('org', 'org')}, 'Organization ' || org, $1 || '-org-' || org, ${prose('org')},
             ${id('file', 'org')}, 'https://org' || org || '.example.org', 'hello@org' || org || '.example.org',
             '+1 555 ' || lpad(org::text, 6, '0'), org || ' Main Street', 'City ' || (org % 97), 'Country ' || (org % 13),
             -60 + (org::bigint * 7919 % 120000) / 1000.0, -170 + (org::bigint * 104729 % 340000) / 1000.0, 'active'
      FROM generate_series(1, ${o.organizations}) org`);
    await run(`
      INSERT INTO team_members (id, organization_id, full_name, email, title, bio, show_on_website, sort_order)
      SELECT ${id('member', 'org', 'm')}, ${id('org', 'org')}, 'Member ' || org || '-' || m,
             'member' || m || '@org' || org || '.example.org', 'Organizer', ${prose('(org + m)')}, m % 5 <> 0, m
      FROM generate_series(1, ${o.organizations}) org, generate_series(1, ${o.team}) m`);
    await run(`
      INSERT INTO speakers (id, organization_id, name, email, job_title, company, bio, linkedin_url,
                            github_url, website_url, invitation_status)
      SELECT ${id('speaker', 'org', 's')}, ${id('org', 'org')}, 'Speaker ' || org || '-' || s,
             'speaker' || s || '@example.com', 'Engineer', 'Company ' || (s % 40), ${prose('(org + s)')},
             'https://www.linkedin.com/in/speaker-' || org || '-' || s, 'https://github.com/speaker-' || org || '-' || s,
             NULL, CASE WHEN s % 7 = 0 THEN 'invited' WHEN s % 11 = 0 THEN 'declined' ELSE 'accepted' END
      FROM generate_series(1, ${o.organizations}) org, generate_series(1, ${o.speakers}) s`);
    await run(`
      INSERT INTO sponsors (id, organization_id, name, description, website_url, is_organization_sponsor)
      SELECT ${id('sponsor', 'org', 'p')}, ${id('org', 'org')}, 'Sponsor ' || org || '-' || p, ${prose('(org + p)')},
             'https://sponsor' || p || '.example.com', p = 1
      FROM generate_series(1, ${o.organizations}) org, generate_series(1, ${o.sponsors}) p`);
    // Events a week apart, half before `now` and half after; zones on both sides of UTC.
    await run(
      `
      INSERT INTO events (id, organization_id, name, slug, description, status, time_zone, starts_at, ends_at,
                          venue_name, address, city, country, latitude, longitude, capacity,
                          registration_enabled, registration_starts_at, registration_ends_at)
      SELECT ${id('event', 'org', 'e')}, ${id('org', 'org')}, 'Event ' || org || '-' || e, 'event-' || e,
             ${prose('(org + e)')},
             CASE WHEN e % 10 = 0 THEN 'draft' WHEN e % 25 = 0 THEN 'cancelled' ELSE 'published' END,
             (ARRAY['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'America/Los_Angeles'])[1 + (org + e) % 4],
             start, start + interval '8 hours', 'Venue ' || e, e || ' Conference Road', 'City ' || (org % 97),
             'Country ' || (org % 13), 48.1, 11.5, CASE WHEN e % 3 = 0 THEN 200 END,
             true, CASE WHEN e % 4 = 0 THEN start - interval '60 days' END, CASE WHEN e % 4 = 0 THEN start END
      FROM generate_series(1, ${o.organizations}) org, generate_series(1, ${o.events}) e,
           LATERAL (SELECT date_trunc('hour', $2::timestamptz)
                           + (e - ${Math.ceil(o.events / 2)}) * interval '7 days' + (org % 24) * interval '1 hour' AS start) t`,
      [now],
    );
    await run(`
      INSERT INTO sessions (id, event_id, name, description, room, starts_at, ends_at, capacity)
      SELECT ${id('session', 'org', 'e', 's')}, ${id('event', 'org', 'e')}, 'Session ' || s, ${prose('(org + e + s)')},
             'Room ' || (s % 4 + 1), CASE WHEN (org + e + s) % 17 <> 0 THEN ev.starts_at + (s - 1) * interval '45 minutes' END,
             CASE WHEN (org + e + s) % 17 <> 0 THEN ev.starts_at + s * interval '45 minutes' END,
             CASE WHEN s % 2 = 0 THEN 50 END
      FROM generate_series(1, ${o.organizations}) org, generate_series(1, ${o.events}) e, generate_series(1, ${o.sessions}) s,
           LATERAL (SELECT starts_at FROM events WHERE id = ${id('event', 'org', 'e')}) ev`);
    // Consecutive speaker numbers for one session are distinct because speakersPerSession ≤ speakers.
    await run(`
      INSERT INTO session_speakers (session_id, speaker_id, billing_order)
      SELECT ${id('session', 'org', 'e', 's')},
             ${id('speaker', 'org', `(((e * ${o.sessions} + s) * ${o.speakersPerSession} + k) % ${o.speakers} + 1)`)}, k
      FROM generate_series(1, ${o.organizations}) org, generate_series(1, ${o.events}) e, generate_series(1, ${o.sessions}) s,
           generate_series(1, ${o.speakersPerSession}) k`);
    await run(`
      INSERT INTO event_sponsors (event_id, sponsor_id, tier, sort_order)
      SELECT ${id('event', 'org', 'e')}, ${id('sponsor', 'org', `((e + j) % ${o.sponsors} + 1)`)},
             CASE j WHEN 1 THEN 'Platinum' WHEN 2 THEN 'Gold' WHEN 3 THEN NULL ELSE 'Community partner' END, j
      FROM generate_series(1, ${o.organizations}) org, generate_series(1, ${o.events}) e, generate_series(1, ${o.sponsorsPerEvent}) j`);
    await run(`
      INSERT INTO registrations (id, event_id, full_name, email, created_at)
      SELECT ${id('registration', 'org', 'e', 'r')}, ${id('event', 'org', 'e')}, 'Attendee ' || r,
             'attendee' || r || '@example.com', now()
      FROM generate_series(1, ${o.organizations}) org, generate_series(1, ${o.events}) e, generate_series(1, ${o.registrations}) r`);
    await tx.exec('ANALYZE');
  });

  const events = o.organizations * o.events;
  const sessions = events * o.sessions;
  return {
    organizations: o.organizations,
    files: o.organizations,
    teamMembers: o.organizations * o.team,
    speakers: o.organizations * o.speakers,
    sponsors: o.organizations * o.sponsors,
    events,
    sessions,
    sessionSpeakers: sessions * o.speakersPerSession,
    eventSponsors: events * o.sponsorsPerEvent,
    registrations: events * o.registrations,
  };
}

/**
 * One NOTIFY per row would only wake listeners the benchmark does not have, so a superuser
 * loads with triggers off for this transaction (`replica` also skips the foreign-key triggers;
 * the generated rows are consistent by construction). Others load with triggers on.
 */
async function withoutTriggers(tx: SqlQueries): Promise<void> {
  const [role] = await tx.query<{ superuser: boolean }>('SELECT rolsuper AS superuser FROM pg_roles WHERE rolname = current_user');
  if (role?.superuser) await tx.exec('SET LOCAL session_replication_role = replica');
}
