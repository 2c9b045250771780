// docs/platform.md "Change notification": a change to any relation notifies the organization the row
// belongs to (both, when a row moves), and advances that organization's source version and no
// other's, on PostgreSQL 15 and PGlite alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../builder/platform/migrations.ts';
import { SAMPLE, seedSample } from '../../../builder/platform/sample.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { organizationsNotifiedBy, platformBackends } from '../../support/platform-backends.ts';

const { backends, close } = platformBackends();
afterAll(close);

const nordic = SAMPLE.organizations.nordic.id;
const pacific = SAMPLE.organizations.pacific.id;
const harbor = SAMPLE.organizations.harbor.id;
const { events, speakers, teamMembers, sessions } = SAMPLE;
const sorted = (...ids: string[]) => [...ids].sort();

describe.each(backends)('change triggers on $name', (backend) => {
  let db: SqlClient;
  const sourceVersions = async () =>
    new Map(
      (await db.query<{ id: string; version: string }>('SELECT organization_id::text AS id, version::text FROM marquee_source_versions')).map((row) => [row.id, row.version]),
    );
  /** The organizations notified; and the source version of each, and of no other, has advanced (docs/platform.md §5). */
  const notified = async (sql: string, params?: unknown[]) => {
    const before = await sourceVersions();
    const organizations = await organizationsNotifiedBy(db, () => db.query(sql, params));
    const after = await sourceVersions();
    const advanced = [...after].filter(([id, version]) => before.get(id) === undefined || BigInt(version) > BigInt(before.get(id)!)).map(([id]) => id);
    expect(advanced.sort()).toEqual(organizations);
    return organizations;
  };

  beforeAll(async () => {
    db = await backend.open();
    await migrate(db);
    await seedSample(db, { now: new Date('2026-05-01T12:00:00Z') });
  });

  it('organizations', async () => {
    expect(await notified(`UPDATE organizations SET name = name || '!' WHERE id = $1`, [nordic])).toEqual([nordic]);
  });

  it('team_members, also when a member moves to another organization', async () => {
    expect(await notified('UPDATE team_members SET show_on_website = true WHERE id = $1', [teamMembers.hidden])).toEqual([nordic]);
    expect(await notified('UPDATE team_members SET organization_id = $2 WHERE id = $1', [teamMembers.hidden, pacific])).toEqual(sorted(nordic, pacific));
    expect(await notified('DELETE FROM team_members WHERE id = $1', [teamMembers.hidden])).toEqual([pacific]);
  });

  it('speakers', async () => {
    expect(await notified(`INSERT INTO speakers (organization_id, name, invitation_status) VALUES ($1, 'New', 'invited')`, [harbor])).toEqual([harbor]);
    expect(await notified(`UPDATE speakers SET invitation_status = 'accepted' WHERE id = $1`, [speakers.invited])).toEqual([nordic]);
  });

  it('sponsors', async () => {
    expect(await notified(`UPDATE sponsors SET name = 'Renamed' WHERE organization_id = $1`, [pacific])).toEqual([pacific]);
  });

  it('events, also when an event moves to another organization', async () => {
    expect(await notified(`UPDATE events SET status = 'draft' WHERE id = $1`, [events.tokyoMeetup.id])).toEqual([nordic]);
    expect(await notified('UPDATE events SET organization_id = $2 WHERE id = $1', [events.tokyoMeetup.id, harbor])).toEqual(sorted(nordic, harbor));
  });

  it('sessions (through their event), also when a session moves to another organization’s event', async () => {
    expect(await notified(`UPDATE sessions SET room = 'Hall C' WHERE id = $1`, [sessions.unscheduled])).toEqual([nordic]);
    expect(await notified('UPDATE sessions SET event_id = $2 WHERE id = $1', [sessions.unscheduled, events.pacificSummit.id])).toEqual(sorted(nordic, pacific));
  });

  it('session_speakers (through session and event)', async () => {
    expect(await notified('DELETE FROM session_speakers WHERE speaker_id = $1', [speakers.declined])).toEqual([nordic]);
    expect(await notified('INSERT INTO session_speakers (session_id, speaker_id, billing_order) VALUES ($1, $2, 1)', [sessions.acrossClockChange, speakers.ada])).toEqual([nordic]);
  });

  it('event_sponsors (through their event)', async () => {
    expect(await notified(`UPDATE event_sponsors SET tier = 'Diamond' WHERE event_id = $1`, [events.pacificSummit.id])).toEqual([pacific]);
  });

  it('registrations (through their event)', async () => {
    expect(await notified(`INSERT INTO registrations (event_id, email) VALUES ($1, 'someone@example.com')`, [events.harborSummit.id])).toEqual([harbor]);
  });

  it('files: every organization that shows the file', async () => {
    const [file] = await db.query<{ id: string }>(`INSERT INTO files (url) VALUES ('https://cdn.example.com/a.png') RETURNING id`);
    expect(await notified('UPDATE speakers SET photo_file_id = $1 WHERE id = $2', [file!.id, speakers.ada])).toEqual([nordic]);
    expect(await notified('UPDATE events SET logo_file_id = $1 WHERE id = $2', [file!.id, events.pacificSummit.id])).toEqual([pacific]);
    expect(await notified(`UPDATE files SET url = 'https://cdn.example.com/b.png' WHERE id = $1`, [file!.id])).toEqual(sorted(nordic, pacific));
    // An organization logo, a team photo and a sponsor logo of the sample.
    const [orgLogo] = await db.query<{ id: string }>('SELECT logo_file_id AS id FROM organizations WHERE id = $1', [harbor]);
    expect(await notified(`UPDATE files SET url = url || '?v=2' WHERE id = $1`, [orgLogo!.id])).toEqual([harbor]);
    expect(await notified(`UPDATE files SET url = url || '?v=2' WHERE id IN (SELECT photo_file_id FROM team_members WHERE organization_id = $1)`, [pacific])).toEqual([pacific]);
    expect(await notified(`UPDATE files SET url = url || '?v=2' WHERE id IN (SELECT logo_file_id FROM sponsors WHERE organization_id = $1)`, [nordic])).toEqual([nordic]);
    expect(await notified(`INSERT INTO files (url) VALUES ('https://cdn.example.com/unused.png')`)).toEqual([]);
  });

  it('a deleted event notifies its organization once its rows cascade away', async () => {
    expect(await notified('DELETE FROM events WHERE id = $1', [events.nordicSummit.id])).toEqual([nordic]);
    const [left] = await db.query<{ count: number }>('SELECT count(*)::int4 AS count FROM sessions WHERE event_id = $1', [events.nordicSummit.id]);
    expect(left?.count).toBe(0);
  });

  it('one transaction changing many rows notifies each organization', async () => {
    const organizations = await organizationsNotifiedBy(db, () =>
      db.transaction(async (tx) => {
        await tx.query(`UPDATE sessions SET room = 'Everywhere'`);
        await tx.query(`UPDATE organizations SET phone = NULL WHERE id = $1`, [harbor]);
      }),
    );
    const [all] = await db.query<{ ids: string[] }>(`SELECT array_agg(DISTINCT e.organization_id::text) AS ids FROM sessions s JOIN events e ON e.id = s.event_id`);
    expect(organizations).toEqual([...new Set([...all!.ids, harbor])].sort());
  });
});
