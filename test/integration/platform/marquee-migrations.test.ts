// Marquee's own migrations (records/schema/), on PostgreSQL 15 and PGlite alike: a database
// the previous release made, with Marquee's relations beside the platform's, has every row of them
// moved into MARQUEE_SCHEMA and none left behind, the platform's change triggers write the new
// place, and each migration is recorded once; two migrators at once apply each migration once.
import { afterAll, describe, expect, it } from 'vitest';
import { appliedMarqueeMigration, LATEST_MARQUEE_MIGRATION, MARQUEE_MIGRATION_NUMBERS, migrateMarquee } from '../../../records/schema/migrate.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { marqueeNamesIn, marqueeRows, migratedRows, PREVIOUS_RELATIONS, PREVIOUS_SEQUENCES, seedPreviousRelease } from '../../support/previous-release.ts';
import { platformBackends } from '../../support/platform-backends.ts';
import { createDatabase, startPostgres } from '../../support/postgres.ts';

const { backends, close } = platformBackends();
afterAll(close);

const ALL = [...MARQUEE_MIGRATION_NUMBERS];

describe.each(backends)('Marquee migrations on $name', (backend) => {
  it("moves every row of the previous release's relations into MARQUEE_SCHEMA, and leaves none behind", async () => {
    const db = await backend.open();
    await seedPreviousRelease(db, { store: 'the store' });
    const before = await marqueeRows(db, 'public');
    for (const [relation, rows] of Object.entries(before)) expect({ relation, empty: rows?.length === 0 }).toEqual({ relation, empty: false });
    const sequences = await db.query<{ name: string; value: string }>(
      `SELECT sequencename AS name, last_value::text AS value FROM pg_sequences WHERE schemaname = 'public' AND sequencename = ANY($1::text[]) ORDER BY 1`,
      [PREVIOUS_SEQUENCES],
    );

    expect(await migrateMarquee(db)).toEqual({ applied: ALL, latest: LATEST_MARQUEE_MIGRATION });
    expect(await marqueeRows(db, 'marquee')).toEqual(migratedRows(before));
    expect(await marqueeNamesIn(db, 'public')).toEqual([]);
    expect(Object.values(await marqueeRows(db, 'public')).every((rows) => rows === undefined)).toBe(true);
    // The sequences moved with their positions: no source version or key change number is reused.
    expect(
      await db.query(`SELECT sequencename AS name, last_value::text AS value FROM pg_sequences WHERE schemaname = 'marquee' AND sequencename = ANY($1::text[]) ORDER BY 1`, [
        PREVIOUS_SEQUENCES,
      ]),
    ).toEqual(sequences);
    expect(await migrateMarquee(db)).toEqual({ applied: [], latest: LATEST_MARQUEE_MIGRATION });

    // The platform's trigger function, whose search_path named the platform's schema alone, now finds the moved versions.
    const pacific = SAMPLE.organizations.pacific.id;
    const [previous] = await db.query<{ version: string }>('SELECT version::text FROM marquee.marquee_source_versions WHERE organization_id = $1', [pacific]);
    await db.query(`UPDATE organizations SET name = 'Pacific, after the move' WHERE id = $1`, [pacific]);
    const [next] = await db.query<{ version: string }>('SELECT version::text FROM marquee.marquee_source_versions WHERE organization_id = $1', [pacific]);
    expect(BigInt(next!.version)).toBeGreaterThan(BigInt(previous!.version));
  });

  it('records each migration once, with its name and when it was applied', async () => {
    const db = await backend.open({ marqueeSchema: 'marquee_own' });
    expect(await appliedMarqueeMigration(db)).toBe(0);
    await Promise.all([migrateMarquee(db), migrateMarquee(db)]);
    const recorded = await db.query<{ number: number; name: string; recent: boolean }>(
      `SELECT number, name, applied_at > now() - interval '1 minute' AS recent FROM marquee_own.marquee_migrations ORDER BY number`,
    );
    expect(recorded).toEqual([
      { number: 1, name: 'versions', recent: true },
      { number: 2, name: 'keys', recent: true },
      { number: 3, name: 'webhooks', recent: true },
      { number: 4, name: 'runs', recent: true },
      { number: 5, name: 'admin-credentials', recent: true },
      { number: 6, name: 'audit-trail', recent: true },
      { number: 7, name: 'records', recent: true },
      { number: 8, name: 'webhook-order', recent: true },
      { number: 9, name: 'trail-sequence', recent: true },
      { number: 10, name: 'publication-log', recent: true },
      { number: 11, name: 'trail-head-index', recent: true },
      { number: 12, name: 'key-usage', recent: true },
      { number: 13, name: 'last-builds', recent: true },
      { number: 14, name: 'change-claims', recent: true },
    ]);
    expect(await marqueeNamesIn(db, 'marquee_own')).toEqual(expect.arrayContaining(Object.keys(PREVIOUS_RELATIONS)));
    expect(await marqueeNamesIn(db, 'public')).toEqual([]);
  });
});

it('two builders starting at once on PostgreSQL: one applies the migrations, the other finds them applied', async () => {
  const postgres = await startPostgres();
  try {
    const url = await createDatabase(postgres.url, 'two_builders');
    const [first, second] = await Promise.all([openPostgres(url), openPostgres(url)]);
    try {
      const results = await Promise.all([migrateMarquee(first), migrateMarquee(second)]);
      expect(results.map((result) => result.applied).sort((a, b) => b.length - a.length)).toEqual([ALL, []]);
      const [count] = await first.query<{ count: number }>('SELECT count(*)::int4 AS count FROM marquee.marquee_migrations');
      expect(count?.count).toBe(MARQUEE_MIGRATION_NUMBERS.length);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  } finally {
    await postgres.stop();
  }
}, 60_000);
