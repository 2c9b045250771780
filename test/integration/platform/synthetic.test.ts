// The benchmark's synthetic platform: the requested counts, the promised mix of cases, and the
// change triggers back on after the bulk load.
import { afterAll, describe, expect, it } from 'vitest';
import { generateSyntheticPlatform } from '../../../bench/synthetic-platform.ts';
import { migrate } from '../../../builder/platform/migrations.ts';
import { SqlPlatformSource } from '../../../builder/platform/source.ts';
import { organizationsNotifiedBy, platformBackends } from '../../support/platform-backends.ts';

const { backends, close } = platformBackends();
afterAll(close);

const COUNTED = {
  organizations: 'organizations',
  files: 'files',
  teamMembers: 'team_members',
  speakers: 'speakers',
  sponsors: 'sponsors',
  events: 'events',
  sessions: 'sessions',
  sessionSpeakers: 'session_speakers',
  eventSponsors: 'event_sponsors',
  registrations: 'registrations',
} as const;

describe.each(backends)('generateSyntheticPlatform on $name', (backend) => {
  it('loads the requested counts with drafts, invited speakers and hidden members mixed in', async () => {
    const db = await backend.open();
    await migrate(db);
    const counts = await generateSyntheticPlatform(db, {
      organizations: 3,
      eventsPerOrganization: 12,
      sessionsPerEvent: 4,
      speakersPerOrganization: 15,
      sponsorsPerOrganization: 6,
      teamMembersPerOrganization: 5,
      speakersPerSession: 2,
      sponsorsPerEvent: 3,
      registrationsPerEvent: 2,
      now: new Date('2026-05-01T12:00:00Z'),
    });
    expect(counts).toEqual({
      organizations: 3,
      files: 3,
      teamMembers: 15,
      speakers: 45,
      sponsors: 18,
      events: 36,
      sessions: 144,
      sessionSpeakers: 288,
      eventSponsors: 108,
      registrations: 72,
    });
    for (const [key, table] of Object.entries(COUNTED)) {
      const [row] = await db.query<{ count: number }>(`SELECT count(*)::int4 AS count FROM ${table}`);
      expect({ [key]: row?.count }).toEqual({ [key]: counts[key as keyof typeof counts] });
    }

    const mix = await db.query<{ drafts: number; invited: number; hidden: number; unscheduled: number; orphans: number }>(`
      SELECT (SELECT count(*)::int4 FROM events WHERE status = 'draft') AS drafts,
             (SELECT count(*)::int4 FROM speakers WHERE invitation_status = 'invited') AS invited,
             (SELECT count(*)::int4 FROM team_members WHERE NOT show_on_website) AS hidden,
             (SELECT count(*)::int4 FROM sessions WHERE starts_at IS NULL) AS unscheduled,
             (SELECT count(*)::int4 FROM session_speakers ss
              JOIN sessions s ON s.id = ss.session_id JOIN events e ON e.id = s.event_id
              JOIN speakers sp ON sp.id = ss.speaker_id
              WHERE sp.organization_id <> e.organization_id) AS orphans`);
    expect(mix[0]).toMatchObject({ drafts: 3, invited: 6, hidden: 3, orphans: 0 });
    expect(mix[0]!.unscheduled).toBeGreaterThan(0);

    const source = new SqlPlatformSource(db);
    const [first] = await source.listOrganizations();
    const data = (await source.readOrganization(first!.id))!;
    expect(data.events.length).toBe(11);
    expect(data.organization.description!.length).toBeGreaterThanOrEqual(100);

    // The load switched triggers off for its own transaction only.
    expect(await organizationsNotifiedBy(db, () => db.query(`UPDATE organizations SET phone = NULL WHERE id = $1`, [first!.id]))).toEqual([first!.id]);
  });
});
