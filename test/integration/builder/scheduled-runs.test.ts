// Scheduled runs cost what changed (docs/design.md "Runs that cost what changed"), on PostgreSQL 15
// and PGlite: a run with nothing changed reads no organization's rows (every statement counted); a
// change nobody heard is built by the next run, alone; a new projection version rebuilds every
// organization once; the rolling verification builds a share of the rest in full, oldest first,
// and every organization about to outlive FULL_BUILD_EVERY; a database migrated from schema
// version 1 treats every organization as changed once.
import { afterAll, describe, expect, it } from 'vitest';
import type { BuildContext } from '../../../builder/build.ts';
import { migrate } from '../../../builder/platform/migrations.ts';
import { SAMPLE, seedSample } from '../../../builder/platform/sample.ts';
import { SqlPlatformSource } from '../../../builder/platform/source.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { SqlBuiltVersions } from '../../../builder/platform/versions.ts';
import { projectionVersion } from '../../../builder/projection-version.ts';
import { BuildRunner } from '../../../builder/runs/runner.ts';
import { readManifest, readPointer } from '../../../snapshot/reader.ts';
import { SchemaSet } from '../../../snapshot/schemas.ts';
import type { SnapshotStore } from '../../../snapshot/store.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { platformBackends } from '../../support/platform-backends.ts';
import { seedSchemaOne } from '../../support/schema-one.ts';
import { RecordingLog } from '../../support/recording-log.ts';

const { backends, close } = platformBackends();
afterAll(close);

const schemas = new SchemaSet();
const { nordic, pacific, harbor, oldTown } = SAMPLE.organizations;
const ALL = [nordic.id, pacific.id, harbor.id, oldTown.id].sort();

/** The database as a builder uses it, with every statement it sends recorded. */
function counted(db: SqlClient): { db: SqlClient; statements: string[] } {
  const statements: string[] = [];
  const queries = (target: Pick<SqlClient, 'query' | 'exec'>) => ({
    query: <T>(text: string, params?: unknown[]) => {
      statements.push(text);
      return target.query<T>(text, params);
    },
    exec: (script: string) => {
      statements.push(script);
      return target.exec(script);
    },
  });
  const wrapped: SqlClient = {
    ...db,
    ...queries(db),
    transaction: (work, options) => db.transaction((tx) => work(queries(tx)), options),
    listen: (...args) => db.listen(...args),
    close: () => db.close(),
  };
  return { db: wrapped, statements };
}

function runnerOn(db: SqlClient, store: SnapshotStore, options: { projection?: string } = {}) {
  const log = new RecordingLog();
  const context: BuildContext = {
    source: new SqlPlatformSource(db),
    store,
    schemas,
    publicBaseUrl: 'https://events.example.com',
    builderVersion: 'test',
    builtVersions: new SqlBuiltVersions(db, store.description),
    ...(options.projection ? { projectionVersion: options.projection } : {}),
  };
  return { runner: new BuildRunner(context, { log }), log };
}

const ids = (results: ReadonlyArray<{ id: string }>) => results.map((result) => result.id).sort();

describe.each(backends)('scheduled runs on $name', (backend) => {
  it('read no organization when nothing changed, and build a change nobody heard, alone', async () => {
    const raw = await backend.open();
    await migrate(raw);
    await seedSample(raw, { now: new Date() });
    const { db, statements } = counted(raw);
    const store = new MemoryStore();
    const { runner, log } = runnerOn(db, store);
    // Never built into this store: every organization differs.
    expect(ids(await runner.buildChanged('schedule'))).toEqual(ALL);

    statements.length = 0;
    const { run, results } = { run: runner.runs.list()[0], results: await runner.buildChanged('schedule') };
    expect(run).toBeDefined();
    expect(results).toEqual([]);
    // One statement: the selection. Not a listing, not a row of any organization, not a pointer.
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain('marquee_built_versions');
    expect(statements.join('\n')).not.toMatch(/FROM (team_members|speakers|sponsors|events|sessions)\b/);
    expect(runner.runs.list()[0]).toMatchObject({ scope: 'changed', state: 'finished', total: 0, skipped: 4, organizations: [] });
    expect(log.lines.at(-1)?.message).toMatch(/^schedule run over 4 organizations in \d+\.\d s: 4 skipped as unchanged, 0 built, 0 verified$/);

    // Nobody listens here: the change is known only by the source version its trigger advanced.
    await raw.query(`UPDATE team_members SET title = 'Chair' WHERE organization_id = $1 AND show_on_website`, [nordic.id]);
    statements.length = 0;
    const changed = await runner.buildChanged('schedule');
    expect(changed).toMatchObject([{ id: nordic.id, result: 'published' }]);
    expect(runner.runs.list()[0]).toMatchObject({ total: 1, skipped: 3 });
    expect(statements.filter((text) => /FROM team_members/.test(text))).toHaveLength(1);

    // The manifest says what it was built from.
    const [{ version }] = (await raw.query<{ version: string }>('SELECT version::text FROM marquee_source_versions WHERE organization_id = $1', [nordic.id])) as [
      { version: string },
    ];
    const pointer = await readPointer(store, nordic.id);
    const manifest = await readManifest(store, nordic.id, pointer!.snapshotId!);
    expect(manifest?.build).toMatchObject({ sourceVersion: version, projectionVersion: projectionVersion() });
    expect(await runner.buildChanged('schedule')).toEqual([]);

    // What is built into one store says nothing of another.
    const another = Object.assign(new MemoryStore(), { description: 'memory, another' });
    const { runner: elsewhere } = runnerOn(db, another);
    expect(ids(await elsewhere.buildChanged('schedule'))).toEqual(ALL);
    await Promise.all([runner.stop(), elsewhere.stop()]);
  });

  it('rebuild every organization once when the projection version changes', async () => {
    const db = await backend.open();
    await migrate(db);
    await seedSample(db, { now: new Date() });
    const store = new MemoryStore();
    const before = runnerOn(db, store, { projection: 'p1-release-one' }).runner;
    expect(ids(await before.buildChanged('schedule'))).toEqual(ALL);
    expect(await before.buildChanged('schedule')).toEqual([]);
    const after = runnerOn(db, store, { projection: 'p1-release-two' }).runner;
    const rebuilt = await after.buildChanged('schedule');
    // Every organization read again; the bytes are the same, so nothing is published.
    expect(ids(rebuilt)).toEqual(ALL);
    expect(rebuilt.every((result) => result.result === 'unchanged' || result.result === 'suspended')).toBe(true);
    expect(await after.buildChanged('schedule')).toEqual([]);
    await Promise.all([before.stop(), after.stop()]);
  });

  it('verify a share of the unchanged organizations per run, least recently built first, and every one about to be overdue', async () => {
    const db = await backend.open();
    await migrate(db);
    await seedSample(db, { now: new Date() });
    const versions = new SqlBuiltVersions(db, 'store-a');
    const projection = 'p1-test';
    const recordAll = async () => {
      for (const organization of (await versions.select(projection, undefined)).organizations) {
        await versions.record({ organizationId: organization.id, sourceVersion: organization.sourceVersion, projectionVersion: projection });
      }
    };
    await recordAll();
    // Built an hour apart, oldest first in this order.
    const order = [harbor.id, nordic.id, oldTown.id, pacific.id];
    for (const [index, id] of order.entries()) {
      await db.query(`UPDATE marquee_built_versions SET built_at = now() - make_interval(hours => $2) WHERE organization_id = $1`, [id, 10 - index]);
    }
    const never = new Date(0);
    // A quarter of four is one per run: the least recently built, and the next one after it is built.
    const verified: string[] = [];
    for (let run = 0; run < 4; run++) {
      const selection = await versions.select(projection, { share: 0.25, dueBefore: never });
      expect(selection).toMatchObject({ skipped: 3, organizations: [{ reason: 'verify' }] });
      const [organization] = selection.organizations;
      verified.push(organization!.id);
      await versions.record({ organizationId: organization!.id, sourceVersion: organization!.sourceVersion, projectionVersion: projection });
    }
    expect(verified).toEqual(order);

    // Two built long ago would outlive FULL_BUILD_EVERY before the next run: both, whatever the share.
    await db.query(`UPDATE marquee_built_versions SET built_at = now() - interval '2 days' WHERE organization_id = ANY($1::uuid[])`, [[pacific.id, nordic.id]]);
    const due = await versions.select(projection, { share: 0, dueBefore: new Date(Date.now() - 24 * 3600_000) });
    expect(due.organizations.map((organization) => [organization.id, organization.reason]).sort()).toEqual(
      [
        [nordic.id, 'verify'],
        [pacific.id, 'verify'],
      ].sort(),
    );
    // A changed organization is selected as changed, not counted in the share.
    await db.query(`UPDATE sponsors SET name = name || '!' WHERE organization_id = $1`, [harbor.id]);
    const mixed = await versions.select(projection, { share: 0.25, dueBefore: never });
    expect(mixed.organizations.filter((organization) => organization.reason === 'changed').map((organization) => organization.id)).toEqual([harbor.id]);
    expect(mixed.organizations.filter((organization) => organization.reason === 'verify')).toHaveLength(1);
    expect(mixed.skipped).toBe(2);
  });

  it('treat every organization as changed once after migrating a database of schema version 1', async () => {
    const db = await backend.open();
    await seedSchemaOne(db);
    expect(await migrate(db)).toEqual({ applied: [2], version: 2 });
    const { runner } = runnerOn(db, new MemoryStore());
    expect(ids(await runner.buildChanged('schedule'))).toEqual(ALL);
    expect(await runner.buildChanged('schedule')).toEqual([]);
    await db.query(`UPDATE events SET name = name || '!' WHERE organization_id = $1`, [pacific.id]);
    expect(ids(await runner.buildChanged('schedule'))).toEqual([pacific.id]);
    await runner.stop();
  });
});
