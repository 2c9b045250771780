// The sample dataset holds every case it promises (sample-rows.ts), relative to `now`, and
// seeding is a one-time, all-or-nothing step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../builder/platform/migrations.ts';
import { SAMPLE, seedSample } from '../../../builder/platform/sample.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { platformBackends } from '../../support/platform-backends.ts';

const { backends, close } = platformBackends();
afterAll(close);

const NOW = new Date('2026-05-01T12:00:00Z');

/** The UTC offset (minutes) of `zone` at `instant`. */
function offsetMinutes(zone: string, instant: string): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(new Date(instant))
    .find((part) => part.type === 'timeZoneName')!.value;
  const match = /GMT([+-])(\d\d):(\d\d)/.exec(name);
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : 0;
}

// PGlite only: the variety lives in the rows, which are the same on both backends (source.test.ts).
const pglite = backends.find((backend) => backend.name === 'PGlite')!;

describe('the sample dataset', () => {
  let db: SqlClient;
  const one = async <T>(sql: string, params?: unknown[]) => (await db.query<T>(sql, params))[0]!;
  const column = async (sql: string, params?: unknown[]) => (await db.query<{ value: unknown }>(sql, params)).map((row) => row.value);

  beforeAll(async () => {
    db = await pglite.open();
    await migrate(db);
  });

  it('seeds an empty database once, and never on top of existing organizations', async () => {
    const first = await seedSample(db, { now: NOW });
    expect(first.seeded).toBe(true);
    expect(first.organizations).toHaveLength(4);
    const again = await seedSample(db, { now: new Date() });
    expect(again).toEqual({ seeded: false, organizations: first.organizations });
  });

  it('has active, suspended and closed organizations', async () => {
    expect(await column('SELECT DISTINCT status AS value FROM organizations ORDER BY 1')).toEqual(['active', 'closed', 'suspended']);
  });

  it('has events in every publication state and past, ongoing and upcoming published events', async () => {
    expect(await column('SELECT DISTINCT status AS value FROM events ORDER BY 1')).toEqual(['cancelled', 'draft', 'published', 'suspended']);
    const timing = await column(
      `SELECT DISTINCT CASE WHEN $1 < starts_at THEN 'upcoming' WHEN $1 < ends_at THEN 'ongoing' ELSE 'past' END AS value
       FROM events WHERE status = 'published' AND organization_id = $2 ORDER BY 1`,
      [NOW.toISOString(), SAMPLE.organizations.nordic.id],
    );
    expect(timing).toEqual(['ongoing', 'past', 'upcoming']);
  });

  it('has invited and declined speakers attached to scheduled sessions of published events', async () => {
    expect(await column('SELECT DISTINCT invitation_status AS value FROM speakers ORDER BY 1')).toEqual(['accepted', 'declined', 'invited']);
    const attached = await column(
      `SELECT DISTINCT sp.invitation_status AS value FROM session_speakers ss
       JOIN speakers sp ON sp.id = ss.speaker_id JOIN sessions s ON s.id = ss.session_id
       JOIN events e ON e.id = s.event_id
       WHERE e.status = 'published' AND s.starts_at IS NOT NULL ORDER BY 1`,
    );
    expect(attached).toEqual(['accepted', 'declined', 'invited']);
  });

  it('has hidden team members and e-mails of people', async () => {
    expect(await one('SELECT count(*)::int4 AS count FROM team_members WHERE NOT show_on_website')).toEqual({ count: 2 });
    expect(await one('SELECT count(*)::int4 AS count FROM registrations WHERE email LIKE $1', ['%@%'])).toEqual({ count: 19 });
    expect(await one('SELECT count(*)::int4 AS count FROM speakers WHERE email IS NULL')).toEqual({ count: 0 });
  });

  it('has a full event, an open and a closed registration window, and an event without a programme', async () => {
    expect(
      await column(
        `SELECT e.slug AS value FROM events e
         WHERE e.capacity <= (SELECT count(*) FROM registrations r WHERE r.event_id = e.id)`,
      ),
    ).toEqual([SAMPLE.events.rustWorkshop.slug]);
    const windows = await db.query<{ slug: string; open: boolean }>(
      `SELECT slug, $1 BETWEEN registration_starts_at AND registration_ends_at AS open FROM events
       WHERE registration_starts_at IS NOT NULL ORDER BY slug`,
      [NOW.toISOString()],
    );
    expect(windows).toEqual([
      { slug: SAMPLE.events.stockholmDevDays.slug, open: false },
      { slug: SAMPLE.events.nordicSummit.slug, open: true },
    ]);
    expect(await column(`SELECT slug AS value FROM events e WHERE status = 'published' AND NOT EXISTS (SELECT FROM sessions s WHERE s.event_id = e.id)`)).toEqual([
      SAMPLE.events.tokyoMeetup.slug,
    ]);
  });

  it('has an unscheduled session and free-text sponsor tiers, and organization-wide sponsors', async () => {
    expect(await column('SELECT id AS value FROM sessions WHERE starts_at IS NULL')).toEqual([SAMPLE.sessions.unscheduled]);
    expect(await column('SELECT DISTINCT tier AS value FROM event_sponsors WHERE tier IS NOT NULL ORDER BY 1')).toContain('Gold ✨');
    expect(await one('SELECT count(*)::int4 AS count FROM event_sponsors WHERE tier IS NULL')).toEqual({ count: 1 });
    expect(await one('SELECT count(*)::int4 AS count FROM sponsors WHERE is_organization_sponsor')).toEqual({ count: 3 });
  });

  it('has absolute https image urls', async () => {
    expect(await column(`SELECT url AS value FROM files WHERE url NOT LIKE 'https://%'`)).toEqual([]);
    expect(await one('SELECT count(*)::int4 AS count FROM files')).toEqual({ count: 20 });
  });

  it('places events in zones on both sides of UTC', async () => {
    const zones = await column('SELECT DISTINCT time_zone AS value FROM events ORDER BY 1');
    expect(zones).toEqual(expect.arrayContaining(['America/Los_Angeles', 'America/New_York', 'Asia/Tokyo', 'Europe/Berlin']));
  });

  it('has an event and a session that span a clock change', async () => {
    const spanning = await db.query<{ zone: string; starts: string; ends: string }>(
      `SELECT e.time_zone AS zone, to_char(s.starts_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS starts,
              to_char(s.ends_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS ends
       FROM sessions s JOIN events e ON e.id = s.event_id WHERE s.id = $1`,
      [SAMPLE.sessions.acrossClockChange],
    );
    const { zone, starts, ends } = spanning[0]!;
    expect(offsetMinutes(zone, starts)).not.toBe(offsetMinutes(zone, ends));
  });

  it('gives two organizations, and the suspended one, an event with the same slug', async () => {
    expect(await column('SELECT organization_id AS value FROM events WHERE slug = $1 ORDER BY 1', [SAMPLE.sharedEventSlug])).toEqual([
      SAMPLE.organizations.nordic.id,
      SAMPLE.organizations.pacific.id,
      SAMPLE.organizations.harbor.id,
    ]);
  });

  it('matches SAMPLE: every well-known id exists with its slug', async () => {
    for (const { id, slug, status } of Object.values(SAMPLE.organizations)) {
      expect(await db.query('SELECT slug, status FROM organizations WHERE id = $1', [id])).toEqual([{ slug, status }]);
    }
    for (const { id, slug } of Object.values(SAMPLE.events)) {
      expect(await db.query('SELECT slug FROM events WHERE id = $1', [id])).toEqual([{ slug }]);
    }
  });
});
