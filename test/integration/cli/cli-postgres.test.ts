// The CLI against a real PostgreSQL 15 (DATABASE_URL), as production runs it: migrate, seed,
// build and history, a clear message when the database cannot be reached or was never migrated,
// and start leaving a platform's database alone unless asked for the sample data.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LATEST_MARQUEE_MIGRATION, MARQUEE_MIGRATION_NUMBERS } from '../../../records/schema/migrate.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';
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
  const own = MARQUEE_MIGRATION_NUMBERS.join(', ');
  expect((await marquee(['db', 'migrate'], env)).stdout).toMatch(
    new RegExp(
      `^PostgreSQL 127\\.0\\.0\\.1:\\d+/postgres: Marquee's relations in schema "marquee" at migration ${LATEST_MARQUEE_MIGRATION} \\(applied ${own}\\)\n` +
        `PostgreSQL 127\\.0\\.0\\.1:\\d+/postgres: schema at version 2 \\(applied 1, 2\\)\n$`,
    ),
  );
  expect((await marquee(['db', 'seed', '--sample'], env)).code).toBe(0);
  const built = await marquee(['build', '--json'], env);
  expect(built.code).toBe(0);
  expect(JSON.parse(built.stdout).organizations.map((o: { result: string }) => o.result)).toEqual(['published', 'published', 'suspended', 'suspended']);
  const history = JSON.parse((await marquee(['history', '--org', 'pacific-oss', '--json'], env)).stdout);
  expect(history).toEqual([expect.objectContaining({ trigger: 'manual' })]);
  expect(history[0].resources).toBeGreaterThan(5);
  const byId = JSON.parse((await marquee(['history', '--org', SAMPLE.organizations.pacific.id, '--json'], { MARQUEE_HOME: home })).stdout);
  expect(byId).toEqual(history); // an auditor with only the store needs no database for an id
  expect(await marquee(['audit', '--store-only', '--json'], { MARQUEE_HOME: home })).toMatchObject({ code: 0, stdout: expect.stringContaining('"findings": []') }); // an auditor with the store alone
});

it('names the unreachable database instead of hanging or printing a stack', async () => {
  const run = await marquee(['build'], { MARQUEE_HOME: home, DATABASE_URL: 'postgres://nobody:secret@127.0.0.1:1/none' });
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/^marquee: .*127\.0\.0\.1:1.*\n$/);
  expect(run.stderr).not.toContain('secret');
});

it('refuses a database without the platform relations with the command that fixes it', async () => {
  const env = { MARQUEE_HOME: home, DATABASE_URL: postgres.url, PLATFORM_SCHEMA: 'never_migrated' };
  for (const args of [['build'], ['keys', 'create', '--org', 'pacific-oss'], ['db', 'seed', '--sample']]) {
    const run = await marquee(args, env);
    expect({ args, code: run.code }).toEqual({ args, code: 1 });
    expect(run.stderr).toMatch(
      /^marquee: PostgreSQL 127\.0\.0\.1:\d+\/postgres has no platform relations in schema "never_migrated": for a new database run `marquee db migrate`.*set PLATFORM_SCHEMA/,
    );
  }
});

it('start on an external DATABASE_URL loads no sample data and makes no demo key, unless --sample', async () => {
  const startHome = await mkdtemp(join(tmpdir(), 'marquee-start-pg-'));
  const env = { MARQUEE_HOME: startHome, DATABASE_URL: postgres.url, PLATFORM_SCHEMA: 'empty_platform', PORT: '0', ADMIN_PORT: '0' };
  try {
    const plain = await marqueeProcess(['start'], env, /gateway listening on /);
    await plain.stop();
    expect(plain.output()).toContain('start run over 0 organizations');
    expect(plain.output()).not.toContain('sample data loaded');
    expect(plain.output()).not.toContain('demo key');
    const asked = await marqueeProcess(['start', '--sample'], env, /try: curl/);
    await asked.stop();
    expect(asked.output()).toContain('sample data loaded: nordic-dev');
    expect(asked.output()).toMatch(/demo key for nordic-dev: mqk_/);
  } finally {
    await rm(startHome, { recursive: true, force: true });
  }
});

it('a second start on the same MARQUEE_HOME on DATABASE_URL starts, its first log line naming the start it runs beside', async () => {
  const startHome = await mkdtemp(join(tmpdir(), 'marquee-second-start-pg-'));
  const env = { MARQUEE_HOME: startHome, DATABASE_URL: postgres.url, PLATFORM_SCHEMA: 'second_start', PORT: '0', ADMIN_PORT: '0' };
  const ready = /console: (http:\/\/\S+)\/ \(/;
  try {
    const first = await marqueeProcess(['start'], env, ready);
    try {
      const second = await marqueeProcess(['start'], env, ready);
      try {
        const gateway = /gateway listening on (http:\/\/\S+)/.exec(first.output())![1]!;
        const [warning] = second.output().split('\n');
        expect(JSON.parse(warning!)).toMatchObject({
          level: 'warn',
          otherPid: first.child.pid,
          message: `another marquee start is running on MARQUEE_HOME=${startHome}: process ${first.child.pid} (gateway ${gateway}, console ${first.match[1]}/); this one is a second gateway and builder beside it, on the same database, snapshot store and keys`,
        });
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  } finally {
    await rm(startHome, { recursive: true, force: true });
  }
});
