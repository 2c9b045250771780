// The drill of docs/operation.md "Backup and restore", on PostgreSQL 15, a directory store and
// Redis, with the programs the page names: a running builder publishes, a key is made and a
// checkpoint kept; then the backup as the page takes it (the builder stopped, `cp -a` of the store,
// `pg_dump --format=custom`, the signing key copied), and everything is lost: the database dropped,
// the store and the key file removed, Redis replaced by an empty one. Restored onto a new database
// with `pg_restore --exit-on-error` and the store put back at its location, the fleet proves what the
// page says it proves: `db status` up to date, the key made before the loss served by a gateway
// once the builder's key keeper has filled the new Redis, `verify --all --since` the kept
// checkpoint clean, and `audit-log verify` agreeing with the heads in the store. And why the page
// insists on one moment: a store copied before the last publish, beside the database dumped after
// it, is refused by `verify --since`, naming the publication the store lacks.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate } from '../../../builder/platform/migrations.ts';
import { SAMPLE, seedSample } from '../../../builder/platform/sample.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { listSnapshotIds } from '../../../snapshot/reader.ts';
import { newSigningKeyPem } from '../../../snapshot/signing.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { type CliRun, marquee, marqueeProcess } from '../../support/cli.ts';
import { API } from '../../support/gateway-fixtures.ts';
import { createDatabase, POSTGRES_BIN, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const run = promisify(execFile);
const nordic = SAMPLE.organizations.nordic.id;

let postgres: TestPostgres;
let redis: TestRedis;
let root: string;
beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  root = await mkdtemp(join(tmpdir(), 'marquee-backup-'));
}, 60_000);
afterAll(async () => {
  await Promise.all([postgres?.stop(), redis?.stop()]);
  await rm(root, { recursive: true, force: true });
});

const ok = async (args: string[], env: Record<string, string>): Promise<CliRun> => {
  const done = await marquee(args, env);
  expect(done, `marquee ${args.join(' ')}: ${done.stderr}${done.stdout}`).toMatchObject({ code: 0 });
  return done;
};

async function dropDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    await client.query(`DROP DATABASE "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

it('a fleet restored from its backup onto a new database and Redis serves its keys, and its history and trail verify against a checkpoint kept before the loss', async () => {
  const store = join(root, 'srv', 'snapshots');
  const signingKey = join(root, 'secrets', 'signing-key.pem');
  const backup = join(root, 'backup');
  await mkdir(join(root, 'secrets'), { recursive: true, mode: 0o700 });
  await mkdir(backup, { mode: 0o700 });
  await writeFile(signingKey, newSigningKeyPem(), { mode: 0o600 });
  const lost = await createDatabase(postgres.url, 'platform');
  const fleet = {
    MARQUEE_HOME: join(root, 'home'),
    SNAPSHOT_STORE: store,
    SNAPSHOT_SIGNING_KEY: signingKey,
    REDIS_URL: redis.url,
    LOG_FORMAT: 'json',
    BUILD_SCHEDULE: '0 0 1 1 *',
    PORT: '0',
    ADMIN_PORT: '0',
  };
  const before = { ...fleet, DATABASE_URL: lost };
  const started: Array<{ stop(): Promise<void> }> = [];
  let platform: SqlClient | undefined;
  try {
    // The fleet at work: migrated, seeded, built by a builder, a key made, a checkpoint kept by an auditor.
    platform = await openPostgres(lost);
    await migrate(platform);
    await seedSample(platform, { now: new Date() });
    const builder = await marqueeProcess(['builder'], before, /builder running/);
    started.push(builder);
    const key = (JSON.parse((await ok(['keys', 'create', '--org', 'nordic-dev', '--label', 'site', '--json'], before)).stdout) as { key: string }).key;
    const kept = join(root, 'kept.txt');
    await writeFile(kept, (await ok(['checkpoint'], before)).stdout);
    // A copy of the store taken too early, before the next publish (below, the wrong restore).
    const early = join(root, 'early-snapshots');
    await run('cp', ['-a', store, early]);
    await platform.query(`UPDATE team_members SET title = 'Host' WHERE full_name = 'Mikko Virtanen'`);
    await platform.close();
    platform = undefined;
    await expect.poll(async () => (await listSnapshotIds(new DirectoryStore(store), nordic)).length, { timeout: 30_000, interval: 200 }).toBe(2);

    // The backup, as the page takes it: builders stopped, the store first, then the database, and the key.
    await builder.stop();
    await run('cp', ['-a', store, join(backup, 'snapshots')]);
    await run(join(POSTGRES_BIN, 'pg_dump'), ['--format=custom', `--file=${join(backup, 'platform.dump')}`, lost]);
    await run('cp', ['-p', signingKey, join(backup, 'signing-key.pem')]);

    // Everything lost: the database, the store, the key file, and Redis's data.
    await dropDatabase(lost);
    await rm(store, { recursive: true });
    await rm(signingKey);
    await redis.replace();

    // Restored onto a new database, the store back at its location, the key file in place.
    const restored = await createDatabase(postgres.url, 'platform_restored');
    await run(join(POSTGRES_BIN, 'pg_restore'), ['--exit-on-error', `--dbname=${restored}`, join(backup, 'platform.dump')]);
    await run('cp', ['-p', join(backup, 'signing-key.pem'), signingKey]);
    await chmod(signingKey, 0o600);
    const after = { ...fleet, DATABASE_URL: restored };
    expect((await ok(['db', 'status'], after)).stdout).toMatch(/\nup to date\n$/);

    // The wrong restore first: the early copy of the store beside the later database misses a publication, for good.
    await run('cp', ['-a', early, store]);
    const refused = await marquee(['verify', '--all', '--since', kept, '--json'], after);
    const report = JSON.parse(refused.stdout) as { organizations: Array<{ organizationId: string; break?: { kind: string } }> };
    expect({ code: refused.code, broken: report.organizations.filter((o) => o.break).map((o) => [o.organizationId, o.break!.kind]) }).toEqual({
      code: 1,
      broken: [[nordic, 'publication-missing']],
    });
    await rm(store, { recursive: true });
    await run('cp', ['-a', join(backup, 'snapshots'), store]);

    // The restored fleet: a builder (its key keeper fills the new Redis) and a gateway.
    started.push(await marqueeProcess(['builder'], after, /builder running/));
    const gateway = await marqueeProcess(['serve'], after, /gateway listening on (http:\/\/\S+),/);
    started.push(gateway);
    await expect
      .poll(
        async () => {
          const response = await fetch(`${gateway.match[1]}${API}/team`, { headers: { Authorization: `Bearer ${key}` } });
          return { status: response.status, host: (await response.text()).includes('"title":"Host"') };
        },
        { timeout: 20_000, interval: 250 },
      )
      .toEqual({ status: 200, host: true });
    const verified = await ok(['verify', '--all', '--since', kept], after);
    expect(verified.stdout).toMatch(/^(\d+) organizations: \1 verified, 0 broken in directory /m);
    expect((await ok(['audit-log', 'verify'], after)).stdout).toMatch(
      /^the audit trail holds together: \d+ entries up to #\d+ \([0-9a-f]{64}\); [1-9]\d* heads kept in \S+ agree with it$/m,
    );
  } finally {
    for (const running of started.reverse()) await running.stop();
    await platform?.close();
  }
}, 240_000);
