// migrate creates exactly docs/platform.md's relations, identically on PostgreSQL 15 and PGlite,
// and Marquee's own in a schema of their own (MARQUEE_SCHEMA); running it again changes nothing.
import { afterAll, describe, expect, it } from 'vitest';
import { currentVersion, LATEST_SCHEMA_VERSION, migrate } from '../../../builder/platform/migrations.ts';
import { appliedMarqueeMigration, LATEST_MARQUEE_MIGRATION, MARQUEE_MIGRATION_NUMBERS } from '../../../records/schema/migrate.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { platformBackends } from '../../support/platform-backends.ts';

const { backends, close } = platformBackends();
afterAll(close);

const RELATIONS = ['event_sponsors', 'events', 'files', 'organizations', 'registrations', 'session_speakers', 'sessions', 'speakers', 'sponsors', 'team_members'];

/** The record of the platform migrations applied, beside the relations it describes. */
const PLATFORM_RECORD = ['marquee_schema_version'];

/** Marquee's own, in MARQUEE_SCHEMA: the migrations applied, and one area's relations per migration. */
const MARQUEE_RELATIONS = [
  'marquee_migrations',
  // 1: the versions that tell a scheduled run what changed (builder/platform/versions.ts)
  'marquee_built_versions',
  'marquee_source_versions',
  // 2: API keys' durable record (records/keys/postgres-key-store.ts)
  'marquee_keys',
  // 3: webhook endpoints, the outbox and what was attempted (builder/webhooks/webhook-store.ts)
  'marquee_webhook_attempts',
  'marquee_webhook_deliveries',
  'marquee_webhook_endpoints',
  'marquee_webhook_messages',
  // 4: runs divided among builders, and the schedule's claims (builder/runs/database-work-list.ts)
  'marquee_run_organizations',
  'marquee_run_results',
  'marquee_runs',
  'marquee_schedule_claims',
  // 5: named admin credentials (admin/credentials/credential-admin.ts)
  'marquee_admin_credentials',
  // 6: the audit trail (records/trail/audit-trail.ts)
  'marquee_audit_trail',
  // 9: the last number the audit trail handed out (records/trail/audit-trail.ts)
  'marquee_audit_trail_counter',
  // 10: the publication log's leaves and its complete subtrees' hashes (records/publication-log/log-store.ts); 11 indexes its trail heads
  'marquee_publication_log',
  'marquee_publication_log_subtrees',
  // 12: usage per key, its origins, and the batches applied (records/usage/usage-store.ts)
  'marquee_key_usage',
  'marquee_key_usage_origins',
  'marquee_usage_batches',
  // 14: which builder builds each organization's latest change (builder/runs/database-change-claims.ts)
  'marquee_change_claims',
  // 7: every run with who asked for it (records/runs/run-record.ts), and the running builders' webhook settings (builder/webhooks/webhook-store.ts)
  'marquee_run_records',
  'marquee_builder_policies',
].sort();

/** Everything about a schema that docs/platform.md specifies, as comparable text. */
async function describeSchema(db: SqlClient, schema = db.schema) {
  const columns = await db.query<{ description: string }>(
    `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
            || coalesce(' default ' || column_default, '') AS description
     FROM information_schema.columns WHERE table_schema = $1
     ORDER BY table_name, column_name`,
    [schema],
  );
  const constraints = await db.query<{ description: string }>(
    `SELECT conrelid::regclass::text || ' ' || contype::text || ' ' || pg_get_constraintdef(oid) AS description
     FROM pg_constraint
     -- PostgreSQL 18 (PGlite) also lists NOT NULL here (contype n); columns above cover it.
     WHERE connamespace = $1::regnamespace AND contype <> 'n'
     ORDER BY 1`,
    [schema],
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

const tablesIn = async (db: SqlClient, schema: string) =>
  (await db.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, [schema])).map((row) => row.table_name);

const schemas: Record<string, Awaited<ReturnType<typeof describeSchema>>> = {};
const marqueeSchemas: Record<string, Awaited<ReturnType<typeof describeSchema>>> = {};

describe.each(backends)('migrate on $name', (backend) => {
  it('creates the relations once; a second run is a no-op', async () => {
    const db = await backend.open();
    expect(await currentVersion(db)).toBe(0);
    expect(await appliedMarqueeMigration(db)).toBe(0);
    expect(await migrate(db)).toEqual({ applied: [1, 2], version: LATEST_SCHEMA_VERSION });
    expect(await appliedMarqueeMigration(db)).toBe(LATEST_MARQUEE_MIGRATION);
    const first = await describeSchema(db);
    const own = await describeSchema(db, db.marqueeSchema);
    expect(await migrate(db)).toEqual({ applied: [], version: LATEST_SCHEMA_VERSION });
    expect(await describeSchema(db)).toEqual(first);
    expect(await describeSchema(db, db.marqueeSchema)).toEqual(own);
    schemas[backend.name] = first;
    marqueeSchemas[backend.name] = own;

    expect(await tablesIn(db, db.schema)).toEqual([...RELATIONS, ...PLATFORM_RECORD].sort());
    expect(await tablesIn(db, 'marquee')).toEqual(MARQUEE_RELATIONS);
    // The platform relations' change triggers, the audit trail's refusal of edits (Marquee's migration 6), and its counter's of going back (9).
    const auditTrail = [
      'marquee_audit_trail marquee_audit_trail_no_change',
      'marquee_audit_trail marquee_audit_trail_no_truncate',
      'marquee_audit_trail_counter marquee_audit_trail_counter_no_truncate',
      'marquee_audit_trail_counter marquee_audit_trail_counter_rises',
      'marquee_publication_log marquee_publication_log_no_change',
      'marquee_publication_log marquee_publication_log_no_truncate',
      'marquee_publication_log_subtrees marquee_publication_log_subtrees_no_change',
      'marquee_publication_log_subtrees marquee_publication_log_subtrees_no_truncate',
    ];
    expect(first.triggers).toEqual([...RELATIONS.map((relation) => `${relation} marquee_changes`), ...auditTrail].sort());
    // 11: the newest trail head in the publication log is one entry of a partial index (records/trail/audit-heads.ts).
    const [trailHeads] = await db.query<{ definition: string }>(`SELECT indexdef AS definition FROM pg_indexes WHERE schemaname = 'marquee' AND indexname = $1`, [
      'marquee_publication_log_trail_heads',
    ]);
    expect(trailHeads?.definition).toMatch(/ON marquee\.marquee_publication_log USING btree \(seq\) WHERE \(kind = 'trail-head'::text\)$/);
    const recorded = await db.query<{ number: number; name: string }>('SELECT number, name FROM marquee.marquee_migrations ORDER BY number');
    expect(recorded.map((row) => row.number)).toEqual(MARQUEE_MIGRATION_NUMBERS);
    expect(recorded.every((row) => /^[a-z]+(-[a-z]+)*$/.test(row.name))).toBe(true);
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

  it('creates the relations in PLATFORM_SCHEMA and MARQUEE_SCHEMA when they are named', async () => {
    const db = await backend.open({ schema: 'platform', marqueeSchema: 'marquee_api' });
    await migrate(db);
    expect(await tablesIn(db, 'platform')).toEqual([...RELATIONS, ...PLATFORM_RECORD].sort());
    expect(await tablesIn(db, 'marquee_api')).toEqual(MARQUEE_RELATIONS);
    expect(await tablesIn(db, 'marquee')).toEqual([]);
    expect(await migrate(db)).toEqual({ applied: [], version: LATEST_SCHEMA_VERSION });
  });
});

it('gives PostgreSQL and PGlite the same schemas', () => {
  expect(schemas.PGlite).toEqual(schemas.PostgreSQL);
  expect(marqueeSchemas.PGlite).toEqual(marqueeSchemas.PostgreSQL);
});
