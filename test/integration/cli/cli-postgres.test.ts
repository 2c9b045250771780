// The CLI against a real PostgreSQL 15 (DATABASE_URL), as production runs it: migrate, seed,
// build and history, and a clear message when the database cannot be reached.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { marquee } from '../../support/cli.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';

let postgres: TestPostgres;
let home: string;
beforeAll(async () => {
  postgres = await startPostgres();
  home = await mkdtemp(join(tmpdir(), 'marquee-cli-pg-'));
});
afterAll(async () => {
  await postgres?.stop();
  await rm(home, { recursive: true, force: true });
});

it('migrates, seeds, builds and lists history on PostgreSQL, with a custom schema', async () => {
  const env = { MARQUEE_HOME: home, DATABASE_URL: postgres.url, PLATFORM_SCHEMA: 'platform' };
  expect((await marquee(['db', 'migrate'], env)).stdout).toMatch(/^PostgreSQL 127\.0\.0\.1:\d+\/postgres: schema at version 1 \(applied 1\)\n$/);
  expect((await marquee(['db', 'seed', '--sample'], env)).code).toBe(0);
  const built = await marquee(['build', '--json'], env);
  expect(built.code).toBe(0);
  expect(JSON.parse(built.stdout).organizations.map((o: { result: string }) => o.result)).toEqual(['published', 'published', 'suspended', 'suspended']);
  const history = JSON.parse((await marquee(['history', '--org', 'pacific-oss', '--json'], env)).stdout);
  expect(history).toEqual([expect.objectContaining({ trigger: 'manual' })]);
  expect(history[0].resources).toBeGreaterThan(5);
  const byId = JSON.parse((await marquee(['history', '--org', SAMPLE.organizations.pacific.id, '--json'], { MARQUEE_HOME: home })).stdout);
  expect(byId).toEqual(history); // an auditor with only the store needs no database for an id
  expect(await marquee(['audit', '--json'], { MARQUEE_HOME: home })).toMatchObject({ code: 0, stdout: expect.stringContaining('"findings": []') }); // the store alone
});

it('names the unreachable database instead of hanging or printing a stack', async () => {
  const run = await marquee(['build'], { MARQUEE_HOME: home, DATABASE_URL: 'postgres://nobody:secret@127.0.0.1:1/none' });
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/^marquee: .*127\.0\.0\.1:1.*\n$/);
  expect(run.stderr).not.toContain('secret');
});
