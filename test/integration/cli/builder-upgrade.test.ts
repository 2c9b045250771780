// Upgrading a deployment to source versions (docs/platform.md §5.1 "Upgrading"), as an operator
// does it on a real PostgreSQL 15: a new builder started on a database an earlier release migrated
// (schema version 1) makes Marquee's relations, says that the migration is due, and builds every
// organization once; after `marquee db migrate` and a restart it builds nothing, and a change made
// while no builder ran is found by the next start alone. A role that may not create the relations
// is refused with the fix. A database the release before Marquee's own schema made, with rows in
// each of Marquee's relations, has every row moved into schema "marquee" by the first builder (or
// by `marquee db migrate`), nothing left beside the platform's relations, and its keys still verify
// at the gateway.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LATEST_MARQUEE_MIGRATION } from '../../../records/schema/migrate.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { seedSchemaOne } from '../../support/schema-one.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { API } from '../../support/gateway-fixtures.ts';
import { createDatabase, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { marqueeNamesIn, marqueeRows, migratedRows, PREVIOUS_RELATIONS, seedPreviousRelease } from '../../support/previous-release.ts';
import { startRedis } from '../../support/redis.ts';

let postgres: TestPostgres;
let home: string;
beforeAll(async () => {
  postgres = await startPostgres();
  home = await mkdtemp(join(tmpdir(), 'marquee-upgrade-'));
});
afterAll(async () => {
  await postgres?.stop();
  await rm(home, { recursive: true, force: true });
});

/** A database as an earlier release left it: schema version 1, the sample data, no version relations. */
async function schemaOneDatabase(): Promise<{ url: string; db: SqlClient }> {
  const url = await createDatabase(postgres.url, `platform_${randomUUID().replaceAll('-', '')}`);
  const db = await openPostgres(url);
  await seedSchemaOne(db);
  return { url, db };
}

const firstRun = (output: string) => /"message":"(schedule run over [^"]+)"/.exec(output)?.[1];

it('builds everything once after an upgrade, warns until migrated, then builds only what changed', async () => {
  const { url, db } = await schemaOneDatabase();
  const env = { MARQUEE_HOME: home, DATABASE_URL: url, LOG_FORMAT: 'json', BUILD_SCHEDULE: '0 0 1 1 *' };
  try {
    const upgraded = await marqueeProcess(['builder'], env, /builder running/);
    await upgraded.stop();
    expect(upgraded.output()).toContain("is at schema version 1, this release's is 2: its change triggers do not advance source versions");
    expect(firstRun(upgraded.output())).toMatch(/^schedule run over 4 organizations in \d+\.\d s: 4 built /);

    expect((await marquee(['db', 'migrate'], env)).stdout).toMatch(/schema at version 2 \(applied 2\)/);
    const restarted = await marqueeProcess(['builder'], env, /builder running/);
    await restarted.stop();
    expect(restarted.output()).not.toContain('is at schema version');
    expect(firstRun(restarted.output())).toMatch(/: 4 skipped as unchanged, 0 built, 0 verified$/);

    // No builder runs: nobody hears this; the trigger advances the organization's source version.
    await db.query(`UPDATE organizations SET name = 'Pacific, renamed while no builder ran' WHERE id = $1`, [SAMPLE.organizations.pacific.id]);
    const again = await marqueeProcess(['builder'], env, /builder running/);
    await again.stop();
    expect(firstRun(again.output())).toMatch(/: 3 skipped as unchanged, 1 built, 0 verified \(1 published\)$/);
    expect(again.output()).toContain('"slug":"pacific-oss","result":"published"');
  } finally {
    await db.close();
  }
}, 180_000);

it("refuses to start when its role may not create Marquee's relations, naming the fix", async () => {
  const { url, db } = await schemaOneDatabase();
  const role = `reader_${randomUUID().slice(0, 8)}`;
  try {
    await db.exec(`CREATE ROLE ${role} LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}; REVOKE CREATE ON SCHEMA public FROM PUBLIC;`);
    const asRole = new URL(url);
    asRole.username = role;
    const refused = await marquee(['builder'], { MARQUEE_HOME: home, DATABASE_URL: asRole.toString(), LOG_FORMAT: 'json' });
    expect(refused.code).toBe(1);
    // The refusal names the role and the GRANT that fixes it (records/schema/migration-grants.ts), in one line without a stack.
    expect(refused.stderr).toContain(`cannot apply Marquee's migrations in schema "marquee": permission denied for database`);
    expect(refused.stderr).toContain(`Role "${role}" needs, granted once by the database's owner or a superuser: GRANT CREATE ON DATABASE`);
    expect(refused.stderr).toContain(`TO "${role}"`);
    expect(refused.stderr).toContain('run `marquee db migrate` once as a role that');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
  } finally {
    await db.close();
  }
}, 120_000);

/** A database as the release before Marquee's own schema left it, with rows in each of Marquee's relations. */
async function previousReleaseDatabase(store: string) {
  const url = await createDatabase(postgres.url, `platform_${randomUUID().replaceAll('-', '')}`);
  const db = await openPostgres(url);
  const previous = await seedPreviousRelease(db, { store });
  return { url, db, previous, before: await marqueeRows(db, 'public') };
}

const ALL = Array.from({ length: LATEST_MARQUEE_MIGRATION }, (_, index) => index + 1).join(', ');

it("the first builder moves every row of Marquee's relations into schema marquee; keys still verify at the gateway", async () => {
  const redis = await startRedis();
  const upgradeHome = await mkdtemp(join(tmpdir(), 'marquee-upgrade-own-'));
  const { url, db, previous, before } = await previousReleaseDatabase(join(upgradeHome, 'snapshots'));
  const env = { MARQUEE_HOME: upgradeHome, DATABASE_URL: url, REDIS_URL: redis.url, LOG_FORMAT: 'json', BUILD_SCHEDULE: '0 0 1 1 *', PORT: '0', ADMIN_PORT: '0' };
  const started: Array<{ stop(): Promise<void> }> = [];
  try {
    const builder = await marqueeProcess(['builder'], env, /builder running/);
    started.push(builder);
    expect(builder.output()).not.toContain('is at schema version');
    const after = await marqueeRows(db, 'marquee');
    expect(await marqueeNamesIn(db, 'public')).toEqual([]);
    // The builder has written beside them since (what it built, the run it divided); every earlier
    // row is there unchanged, but the built versions, which its builds replaced.
    for (const [relation, rows] of Object.entries(migratedRows(before))) {
      const kept =
        relation === 'marquee_built_versions'
          ? (row: unknown) => ({ ...(row as object), source_version: expect.anything(), projection_version: expect.any(String), built_at: expect.any(String) })
          : (row: unknown) => row;
      expect({ relation, rows: after[relation] }).toEqual({ relation, rows: expect.arrayContaining(rows!.map(kept)) });
    }
    expect(Object.keys(after).sort()).toEqual(Object.keys(PREVIOUS_RELATIONS).sort());

    // The key keeper fills the empty Redis from the moved record; the gateway then knows the key.
    const gateway = await marqueeProcess(['serve'], env, /gateway listening on (http:\/\/\S+),/);
    started.push(gateway);
    await expect
      .poll(
        async () => {
          const response = await fetch(`${gateway.match[1]}${API}/organization`, { headers: { 'X-Api-Key': previous.key } });
          await response.arrayBuffer();
          return response.status;
        },
        { timeout: 15_000, interval: 250 },
      )
      .toBe(200);
    for (const running of started.splice(0).reverse()) await running.stop();

    const migrated = await marquee(['db', 'migrate'], env);
    expect(migrated.stdout).toContain(`Marquee's relations in schema "marquee" at migration ${LATEST_MARQUEE_MIGRATION} (already up to date)`);
    expect(migrated.stdout).toContain('schema at version 2 (already up to date)');
  } finally {
    for (const running of started.reverse()) await running.stop();
    await db.close();
    await redis.stop();
    await rm(upgradeHome, { recursive: true, force: true });
  }
}, 180_000);

it("marquee db migrate moves every row of Marquee's relations into schema marquee, unchanged", async () => {
  const { url, db, before } = await previousReleaseDatabase('no store');
  try {
    const migrated = await marquee(['db', 'migrate'], { MARQUEE_HOME: home, DATABASE_URL: url });
    expect(migrated.stdout).toContain(`Marquee's relations in schema "marquee" at migration ${LATEST_MARQUEE_MIGRATION} (applied ${ALL})`);
    expect(migrated.stdout).toContain('schema at version 2 (already up to date)');
    expect(await marqueeRows(db, 'marquee')).toEqual(migratedRows(before));
    expect(await marqueeNamesIn(db, 'public')).toEqual([]);
  } finally {
    await db.close();
  }
}, 120_000);
