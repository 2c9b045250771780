// A platform database as the release before Marquee's own schema left it: the platform's relations
// at schema version 2, and every relation of Marquee's beside them in the platform's schema, with
// the change trigger function's search_path that schema alone — and rows in each of Marquee's:
// source and built versions, a key, a webhook endpoint with a queued message, its delivery and an
// attempt, a divided run with its organizations and results, a schedule claim. Upgrade tests start
// from it. Marquee's migration scripts are the statements that release ran, unchanged (a migration
// is never edited once released), so they are run here, in the platform's schema, as it ran them.
import { readFile } from 'node:fs/promises';
import { PostgresKeyStore } from '../../records/keys/postgres-key-store.ts';
import { SAMPLE, seedSample } from '../../builder/platform/sample.ts';
import { quoteIdentifier, type SqlClient } from '../../records/database/sql.ts';
import { packagePath } from '../../runtime/package-root.ts';

/** Marquee's relations of that release, and how to order their rows for comparison. */
export const PREVIOUS_RELATIONS: Readonly<Record<string, string>> = {
  marquee_source_versions: 'organization_id',
  marquee_built_versions: 'store, organization_id',
  marquee_keys: 'id',
  marquee_webhook_endpoints: 'id',
  marquee_webhook_messages: 'id',
  marquee_webhook_deliveries: 'message_id, endpoint_id',
  marquee_webhook_attempts: 'id',
  marquee_runs: 'id',
  marquee_run_organizations: 'run_id, position',
  marquee_run_results: 'run_id, ordinal',
  marquee_schedule_claims: 'slot',
};

/** The sequences no table owns, which moved with the relations. */
export const PREVIOUS_SEQUENCES = ['marquee_key_changes', 'marquee_source_version'];

const PLATFORM_SCRIPTS = ['001-platform-relations.sql', '002-source-versions.sql'];
const MARQUEE_SCRIPTS = ['001-versions.sql', '002-keys.sql', '003-webhooks.sql', '004-runs.sql'];

export interface PreviousRelease {
  /** A key of the pacific sample organization, as a client sends it. */
  key: string;
  keyId: string;
}

export async function seedPreviousRelease(db: SqlClient, { store }: { store: string }): Promise<PreviousRelease> {
  await db.transaction(async (tx) => {
    // That release's connections searched the platform's schema alone; FROM CURRENT in the trigger
    // function keeps it.
    await tx.exec(`SET LOCAL search_path TO ${quoteIdentifier(db.schema)}`);
    await tx.exec('CREATE TABLE marquee_schema_version (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());');
    await tx.exec(await readFile(packagePath('records', 'schema', 'migrations', MARQUEE_SCRIPTS[0]!), 'utf8'));
    for (const script of PLATFORM_SCRIPTS) await tx.exec(await readFile(packagePath('builder', 'platform', 'migrations', script), 'utf8'));
    await tx.exec('INSERT INTO marquee_schema_version (version) VALUES (1), (2)');
    for (const script of MARQUEE_SCRIPTS.slice(1)) await tx.exec(await readFile(packagePath('records', 'schema', 'migrations', script), 'utf8'));
  });
  // Marquee's schema does not exist yet, so every bare name below is the platform schema's.
  await seedSample(db, { now: new Date() });
  const pacific = SAMPLE.organizations.pacific.id;
  await db.query(
    `INSERT INTO marquee_built_versions (store, organization_id, source_version, projection_version, built_at)
     SELECT $1, organization_id, version, 'built by the previous release', now() - interval '1 hour' FROM marquee_source_versions`,
    [store],
  );
  const made = await new PostgresKeyStore(db).create({ organizationId: pacific, label: 'made by the previous release', origins: [] });
  await db.exec(`
    INSERT INTO marquee_webhook_endpoints (id, organization_id, url, description, enabled, secret)
      VALUES ('whe_previous', '${pacific}', 'https://hooks.example.com/marquee', 'kept across the upgrade', false, 'whsec_previous');
    INSERT INTO marquee_webhook_messages (id, organization_id, type, body)
      VALUES ('msg_previous', '${pacific}', 'snapshot.published', '{"kept":true}');
    INSERT INTO marquee_webhook_deliveries (message_id, endpoint_id, state, attempts, due_at)
      VALUES ('msg_previous', 'whe_previous', 'pending', 1, now() + interval '1 hour');
    INSERT INTO marquee_webhook_attempts (endpoint_id, message_id, type, status, error, duration_ms, response)
      VALUES ('whe_previous', 'msg_previous', 'snapshot.published', 503, 'answered 503', 12, 'busy');
    INSERT INTO marquee_runs (id, run, total, done, finished_at)
      VALUES ('run_previous', '{"id":"run_previous","trigger":"schedule"}', 1, 1, now());
    INSERT INTO marquee_run_organizations (run_id, position, organization, claimed_by, claimed_at, done)
      VALUES ('run_previous', 0, '{"id":"${pacific}","slug":"pacific-oss"}', 'builder-before', now(), true);
    INSERT INTO marquee_run_results (run_id, ordinal, result)
      VALUES ('run_previous', 1, '{"id":"${pacific}","result":"unchanged"}');
    INSERT INTO marquee_schedule_claims (slot, builder) VALUES ('previous-slot', 'builder-before');`);
  return { key: made.secret, keyId: made.record.id };
}

/**
 * The previous release's rows as this release's migrations leave them: unchanged, but that each
 * waiting webhook delivery got its place in its endpoint's queue (migration 8), in the order queued.
 */
export function migratedRows(before: Record<string, unknown[] | undefined>): Record<string, unknown[] | undefined> {
  const deliveries = (before.marquee_webhook_deliveries ?? []) as { queued_at: string }[];
  const order = deliveries.slice().sort((a, b) => Date.parse(a.queued_at) - Date.parse(b.queued_at));
  return { ...before, marquee_webhook_deliveries: deliveries.map((row) => ({ ...row, queued_order: order.indexOf(row) + 1 })) };
}

/** Every row of each of Marquee's relations in `schema`, ordered; undefined for a relation not there. */
export async function marqueeRows(db: SqlClient, schema: string): Promise<Record<string, unknown[] | undefined>> {
  const rows: Record<string, unknown[] | undefined> = {};
  for (const [relation, order] of Object.entries(PREVIOUS_RELATIONS)) {
    const name = `${quoteIdentifier(schema)}.${relation}`;
    const [found] = await db.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [name]);
    rows[relation] = found?.present ? (await db.query<{ row: unknown }>(`SELECT to_jsonb(r) AS row FROM ${name} r ORDER BY ${order}`)).map((r) => r.row) : undefined;
  }
  return rows;
}

/** The relations and sequences named like Marquee's in `schema`. */
export async function marqueeNamesIn(db: SqlClient, schema: string): Promise<string[]> {
  const found = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname LIKE 'marquee\\_%' AND c.relkind IN ('r', 'S') AND c.relname <> 'marquee_schema_version' ORDER BY 1`,
    [schema],
  );
  return found.map((row) => row.name);
}
