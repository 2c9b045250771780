// migrate creates exactly docs/platform.md's relations, identically on PostgreSQL 15 and PGlite,
// and running it again changes nothing.
import { afterAll, describe, expect, it } from 'vitest';
import { currentVersion, LATEST_SCHEMA_VERSION, migrate } from '../../../builder/platform/migrations.ts';
import type { SqlClient } from '../../../builder/platform/sql.ts';
import { platformBackends } from '../../support/platform-backends.ts';

const { backends, close } = platformBackends();
afterAll(close);

const RELATIONS = ['event_sponsors', 'events', 'files', 'organizations', 'registrations', 'session_speakers', 'sessions', 'speakers', 'sponsors', 'team_members'];

/** Marquee's own: the migrations applied, and the versions that tell a scheduled run what changed (builder/platform/versions.ts). */
const MARQUEE_RELATIONS = ['marquee_built_versions', 'marquee_schema_version', 'marquee_source_versions'];

/** Everything about the schema that docs/platform.md specifies, as comparable text. */
async function describeSchema(db: SqlClient) {
  const columns = await db.query<{ description: string }>(
    `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
            || coalesce(' default ' || column_default, '') AS description
     FROM information_schema.columns WHERE table_schema = current_schema()
     ORDER BY table_name, column_name`,
  );
  const constraints = await db.query<{ description: string }>(
    `SELECT conrelid::regclass::text || ' ' || contype::text || ' ' || pg_get_constraintdef(oid) AS description
     FROM pg_constraint
     -- PostgreSQL 18 (PGlite) also lists NOT NULL here (contype n); columns above cover it.
     WHERE connamespace = current_schema()::regnamespace AND contype <> 'n'
     ORDER BY 1`,
  );
  const triggers = await db.query<{ description: string }>(
    `SELECT tgrelid::regclass::text || ' ' || tgname AS description
     FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1`,
  );
  return {
    columns: columns.map((row) => row.description),
    constraints: constraints.map((row) => row.description),
    triggers: triggers.map((row) => row.description),
  };
}

const schemas: Record<string, Awaited<ReturnType<typeof describeSchema>>> = {};

describe.each(backends)('migrate on $name', (backend) => {
  it('creates the relations once; a second run is a no-op', async () => {
    const db = await backend.open();
    expect(await currentVersion(db)).toBe(0);
    expect(await migrate(db)).toEqual({ applied: [1, 2], version: LATEST_SCHEMA_VERSION });
    const first = await describeSchema(db);
    expect(await migrate(db)).toEqual({ applied: [], version: LATEST_SCHEMA_VERSION });
    expect(await describeSchema(db)).toEqual(first);
    schemas[backend.name] = first;

    const tables = await db.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`);
    expect(tables.map((row) => row.table_name)).toEqual([...RELATIONS, ...MARQUEE_RELATIONS].sort());
    expect(first.triggers).toEqual(RELATIONS.map((relation) => `${relation} marquee_changes`));
  });

  it('has the columns, defaults and keys of docs/platform.md', async () => {
    const { columns, constraints } = schemas[backend.name]!;
    expect(columns).toContain("organizations.status text NO default 'active'::text");
    expect(columns).toContain('organizations.latitude double precision YES');
    expect(columns).toContain('team_members.show_on_website boolean NO default false');
    expect(columns).toContain('team_members.sort_order integer NO default 0');
    expect(columns).toContain('events.registration_enabled boolean NO default true');
    expect(columns).toContain('events.starts_at timestamp with time zone NO');
    expect(columns).toContain('sessions.starts_at timestamp with time zone YES');
    expect(columns).toContain('registrations.email text NO');
    expect(columns).toContain('event_sponsors.tier text YES');
    expect(constraints).toContain('organizations u UNIQUE (slug)');
    expect(constraints).toContain('events u UNIQUE (organization_id, slug)');
    expect(constraints).toContain('session_speakers p PRIMARY KEY (session_id, speaker_id)');
    expect(constraints).toContain('event_sponsors p PRIMARY KEY (event_id, sponsor_id)');
    expect(constraints).toContain('events f FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE');
  });

  it('refuses a status outside the enums', async () => {
    const db = await backend.open();
    await migrate(db);
    await expect(db.query(`INSERT INTO organizations (name, slug, status) VALUES ('x', 'x', 'deleted')`)).rejects.toThrow(/check constraint/);
    await db.query(`INSERT INTO organizations (name, slug) VALUES ('x', 'x')`);
    await expect(
      db.query(`INSERT INTO speakers (organization_id, name, invitation_status)
                SELECT id, 'y', 'maybe' FROM organizations`),
    ).rejects.toThrow(/check constraint/);
  });

  it('creates the relations in PLATFORM_SCHEMA when one is named', async () => {
    const db = await backend.open({ schema: 'platform' });
    await migrate(db);
    const [row] = await db.query<{ count: number }>(`SELECT count(*)::int4 AS count FROM information_schema.tables WHERE table_schema = 'platform'`);
    expect(row?.count).toBe(RELATIONS.length + MARQUEE_RELATIONS.length);
    expect(await migrate(db)).toEqual({ applied: [], version: LATEST_SCHEMA_VERSION });
  });
});

it('gives PostgreSQL and PGlite the same schema', () => {
  expect(schemas.PGlite).toEqual(schemas.PostgreSQL);
});
