// `marquee db status` (docs/operation.md "Upgrades and rollback") on a real PostgreSQL 15, through
// the CLI whose exit status scripts test: a database never migrated has every migration pending
// (exit 1); once migrated it is up to date (exit 0) and says when each was applied; a migration a
// newer release applied is listed as such and is no reason to fail, since this release runs on
// that schema (a rollback). It reads only: asking twice changes nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION, migrate } from '../../../builder/platform/migrations.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { LATEST_MARQUEE_MIGRATION, MARQUEE_MIGRATION_NAMES } from '../../../records/schema/migrate.ts';
import { marquee } from '../../support/cli.ts';
import { createDatabase, startPostgres, type TestPostgres } from '../../support/postgres.ts';

let postgres: TestPostgres;
let url: string;
let db: SqlClient;
let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-db-status-'));
  postgres = await startPostgres();
  url = await createDatabase(postgres.url, 'platform');
  db = await openPostgres(url);
}, 60_000);
afterAll(async () => {
  await db?.close();
  await postgres?.stop();
  await rm(home, { recursive: true, force: true });
});

const status = (args: string[] = []) => marquee(['db', 'status', ...args], { DATABASE_URL: url, MARQUEE_HOME: home });

it('lists every migration pending on a database never migrated, and exits 1, changing nothing', async () => {
  const first = await status();
  expect(first.code, first.stderr).toBe(1);
  const lines = first.stdout.trimEnd().split('\n');
  expect(lines[1]).toBe(`Marquee's relations in schema "marquee": 0 of ${LATEST_MARQUEE_MIGRATION} migrations applied`);
  expect(lines.filter((line) => line.startsWith('  pending'))).toHaveLength(LATEST_MARQUEE_MIGRATION);
  expect(lines).toContain(`  pending   1 ${MARQUEE_MIGRATION_NAMES.get(1)}`);
  expect(lines.at(-2)).toBe(`platform relations in schema "public": version 0; this release's is ${LATEST_SCHEMA_VERSION}: pending`);
  expect(lines.at(-1)).toBe(`${LATEST_MARQUEE_MIGRATION + 1} pending: run \`marquee db migrate\` (builders apply Marquee's own at start too)`);
  expect(await db.query(`SELECT nspname FROM pg_namespace WHERE nspname = 'marquee'`)).toEqual([]);
  expect((await status()).stdout).toBe(first.stdout);
}, 60_000);

it('is up to date once migrated (exit 0), with when each migration was applied', async () => {
  await migrate(db);
  const done = await status(['--json']);
  expect(done.code).toBe(0);
  const report = JSON.parse(done.stdout) as {
    upToDate: boolean;
    marquee: { schema: string; applied: Array<{ number: number; name: string; appliedAt: string }>; pending: unknown[]; newer: unknown[] };
    platform: { schema: string; version: number; latest: number };
  };
  expect(report).toMatchObject({
    upToDate: true,
    marquee: { schema: 'marquee', pending: [], newer: [] },
    platform: { schema: 'public', version: LATEST_SCHEMA_VERSION, latest: LATEST_SCHEMA_VERSION },
  });
  expect(report.marquee.applied.map(({ number, name }) => [number, name])).toEqual([...MARQUEE_MIGRATION_NAMES]);
  for (const { appliedAt } of report.marquee.applied) expect(Math.abs(Date.parse(appliedAt) - Date.now())).toBeLessThan(10 * 60_000);
}, 60_000);

it('names the migrations a newer release applied, and still exits 0: this release runs on their schema', async () => {
  await db.query(`INSERT INTO marquee.marquee_migrations (number, name) VALUES ($1, 'from-a-newer-release')`, [LATEST_MARQUEE_MIGRATION + 1]);
  const rolledBack = await status();
  expect(rolledBack.code).toBe(0);
  const lines = rolledBack.stdout.trimEnd().split('\n');
  expect(lines.find((line) => line.startsWith('  newer'))).toMatch(new RegExp(`^  newer +${LATEST_MARQUEE_MIGRATION + 1} from-a-newer-release +\\d{4}-\\d\\d-\\d\\dT`));
  expect(lines.at(-1)).toBe('up to date; a newer release migrated this database, and this release runs on its schema (migrations are additive within a major)');
}, 60_000);
