// A platform database as a release before source versions left it (schema version 1): the
// platform's relations and change triggers, the sample data, and no version relations. Upgrade
// tests start from it.
import { readFile } from 'node:fs/promises';
import { seedSample } from '../../builder/platform/sample.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import { packagePath } from '../../runtime/package-root.ts';

export async function seedSchemaOne(db: SqlClient): Promise<void> {
  await db.exec('CREATE TABLE marquee_schema_version (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());');
  await db.exec(await readFile(packagePath('builder', 'platform', 'migrations', '001-platform-relations.sql'), 'utf8'));
  await db.query('INSERT INTO marquee_schema_version (version) VALUES (1)');
  await seedSample(db, { now: new Date() });
}
