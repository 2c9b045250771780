// The platform database of `start`, and its demo key: opened and migrated, and seeded with the
// sample data only where that cannot meet real data — the embedded database on its first run, or
// when asked with --sample. (`serve` holds no database; `builder` expects a migrated one.) Each
// migration applied, the seeding and the demo key are entries of the audit trail by `system:start`,
// recorded as the CLI records its own (bin/commands/trail.ts): the demo key through the same
// recorded key operation as `keys create`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunResult } from '../builder/runs/work-list.ts';
import { migrate } from '../builder/platform/migrations.ts';
import { seedSample } from '../builder/platform/sample.ts';
import { openPlatformDatabase } from '../records/database/database-backends.ts';
import type { SqlClient } from '../records/database/sql.ts';
import { parseKey } from '../records/keys/format.ts';
import { keyOperations } from '../admin/keys/key-admin.ts';
import { actingAs } from '../admin/acting.ts';
import { organizationDirectory } from '../admin/organization-admin.ts';
import { recordedArea } from '../admin/trail/recorded-operations.ts';
import { migrateMarquee } from '../records/schema/migrate.ts';
import type { KeyStore } from '../records/keys/key-store.ts';
import { writeFileAtomically } from '../runtime/files.ts';
import type { Log } from '../runtime/log.ts';
import type { Config } from './config.ts';
import { ensureHome } from '../runtime/shared-state.ts';
import { cliRecorder, recordedWork, recordMigrations, systemAttribution } from './commands/trail.ts';

export async function openStartDatabase(config: Config, log: Log, options: { sample?: boolean }): Promise<{ db: SqlClient; sampleLoaded: boolean }> {
  await ensureHome(config.home);
  // The embedded one runs in a process of its own, served on a socket to start and every other command beside it.
  const db = await openPlatformDatabase({
    databaseUrl: config.databaseUrl,
    home: config.home,
    schema: config.platformSchema,
    marqueeSchema: config.marqueeSchema,
    serve: true,
    embeddedTimeouts: config.embeddedTimeouts,
    log,
  });
  return actingAs(systemAttribution('start'), async () => ({ db, sampleLoaded: await migratedAndSeeded(config, log, db, options) }));
}

/** Migrates, records each migration applied, and seeds where it may; true when the sample data was loaded now. */
async function migratedAndSeeded(config: Config, log: Log, db: SqlClient, options: { sample?: boolean }): Promise<boolean> {
  const recorder = cliRecorder(async () => db);
  // Marquee's own first, as migrate() would, but here to know which it applied: the trail is among them.
  const own = await migrateMarquee(db);
  const migration = await migrate(db);
  await recordMigrations(recorder, { marquee: own.applied, platform: migration.applied });
  if (migration.applied.length > 0) {
    log.info(`platform database ${db.description}: created (schema version ${migration.version})`, { database: db.description, schemaVersion: migration.version });
  }
  // An external DATABASE_URL is a platform's database: sample rows there only when asked.
  if (config.databaseUrl !== undefined && !options.sample) return false;
  // Recorded as `db seed --sample` records it; a start that finds organizations already and was not asked to seed recorded nothing.
  const seeded = await recordedWork(
    recorder,
    { action: 'db.seeded', changes: { sample: true } },
    () => seedSample(db, { now: new Date() }),
    (result) => ({ changes: { seeded: result.seeded }, ...(result.seeded || options.sample ? {} : { unrecorded: true as const }) }),
  );
  if (seeded.seeded) {
    const slugs = seeded.organizations.map((o) => o.slug);
    log.info(`sample data loaded: ${slugs.join(', ')}`, { organizations: slugs });
  } else if (options.sample) {
    log.warn(`--sample: ${db.description} already has organizations; the sample data is only ever loaded into an empty database`, { database: db.description });
  }
  return seeded.seeded;
}

/**
 * The demo prints a key that works as printed. Its secret is kept in MARQUEE_HOME so that a
 * restart prints the same key instead of piling up new ones. A new one is made only with the
 * sample data just loaded (`create`); otherwise only a saved one that still works is shown.
 */
export async function demoKey(
  config: Config,
  { keys, db }: { keys: KeyStore; db: SqlClient },
  results: readonly RunResult[],
  { create }: { create: boolean },
): Promise<{ key: string; slug: string } | undefined> {
  const file = join(config.home, 'demo-key.json');
  const saved = await readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as { key: string; slug: string },
    () => undefined,
  );
  if (saved) {
    const parsed = parseKey(saved.key);
    const record = parsed.valid ? await keys.findBySecretHash(parsed.secretHash) : undefined;
    if (record && !record.revokedAt) return saved;
  }
  const organization = results.filter((r) => r.result === 'published' || r.result === 'unchanged').sort((a, b) => (a.slug < b.slug ? -1 : 1))[0];
  if (!create || !organization) return undefined;
  // The operation `keys create` and POST /keys call, recorded the same way (key.created), by system:start.
  const database = async () => db;
  const operations = recordedArea('keys', keyOperations(keys, organizationDirectory(database)), cliRecorder(database));
  const created = await actingAs(systemAttribution('start'), () => operations.create({ organization: organization.id, origins: [], label: 'demo (npm start)' }));
  const demo = { key: created.key, slug: organization.slug };
  // Not synced: a demo key lost to a power failure is replaced by a new one at the next start.
  await writeFileAtomically(file, JSON.stringify(demo), { fsync: false, mode: 0o600 });
  return demo;
}
