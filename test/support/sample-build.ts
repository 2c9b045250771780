// The builder over the sample platform at a fixed instant, for the integration files that run the
// whole pipeline (test/integration/builder/pipeline.test.ts, change-triggered.test.ts).
import type { BuildContext } from '../../builder/build.ts';
import { migrate } from '../../builder/platform/migrations.ts';
import { seedSample } from '../../builder/platform/sample.ts';
import { SqlPlatformSource } from '../../builder/platform/source.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import { SchemaSet } from '../../snapshot/schemas.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';

/** The instant every build here is made at: the sample's events are upcoming. */
const SAMPLE_NOW = new Date('2026-11-21T12:00:00Z');
const schemas = new SchemaSet();

export const sampleBuildContext = (db: SqlClient, store: SnapshotStore): BuildContext => ({
  source: new SqlPlatformSource(db),
  store,
  schemas,
  publicBaseUrl: 'https://events.example.com',
  builderVersion: 'test',
  now: () => SAMPLE_NOW,
});

/** `db` with the platform's relations and the sample in them. */
export async function seeded(db: SqlClient): Promise<SqlClient> {
  await migrate(db);
  await seedSample(db, { now: SAMPLE_NOW });
  return db;
}
