// The platform database of `start`: opened, migrated, and seeded with the sample data when asked.
// (`serve` holds no database; `builder` expects a migrated one.)
import { migrate } from '../builder/platform/migrations.ts';
import { seedSample } from '../builder/platform/sample.ts';
import type { Log } from '../snapshot/log.ts';
import type { Config } from './config.ts';
import { openPlatformDatabase, type SqlClient } from '../builder/platform/sql.ts';

export async function openStartDatabase(config: Config, log: Log): Promise<SqlClient> {
  // Served on a loopback port while start holds it, so every other command works beside it.
  const db = await openPlatformDatabase({ databaseUrl: config.databaseUrl, home: config.home, schema: config.platformSchema, serve: true });
  const migration = await migrate(db);
  if (migration.applied.length > 0) {
    log.info(`platform database ${db.description}: created (schema version ${migration.version})`, { database: db.description, schemaVersion: migration.version });
  }
  const seeded = await seedSample(db, { now: new Date() });
  if (seeded.seeded) {
    const slugs = seeded.organizations.map((o) => o.slug);
    log.info(`sample data loaded: ${slugs.join(', ')}`, { organizations: slugs });
  }
  return db;
}
