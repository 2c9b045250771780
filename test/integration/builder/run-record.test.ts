// Runs are part of the record (docs/design.md "Runs are part of the record"): two `marquee builder`
// processes on one PostgreSQL and one Redis, and the CLI beside them. Every builder's admin API
// lists the same runs, the ones each builder ran itself and `marquee build`'s, each naming who asked
// for it; a run asked for through the admin API is still there after its builder restarts.
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateSyntheticPlatform } from '../../../bench/synthetic-platform.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import { migrate } from '../../../builder/platform/migrations.ts';
import { type BuildRunAnswer, FLEET_ADMIN_TOKEN, fleetBearer, startFleetBuilder } from '../../support/builder-fleet.ts';
import { marquee } from '../../support/cli.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { adminContractFetch } from '../../support/admin-contract.ts';

const ORGANIZATIONS = 6;

let postgres: TestPostgres;
let redis: TestRedis;
let home: string;
let env: Record<string, string>;
beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  home = await mkdtemp(join(tmpdir(), 'marquee-run-record-'));
  const db = await openPostgres(postgres.url);
  try {
    await migrate(db);
    await generateSyntheticPlatform(db, {
      organizations: ORGANIZATIONS,
      eventsPerOrganization: 2,
      sessionsPerEvent: 2,
      speakersPerOrganization: 2,
      registrationsPerEvent: 1,
      namespace: 'rr',
    });
  } finally {
    await db.close();
  }
  env = {
    MARQUEE_HOME: home,
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    SNAPSHOT_STORE: join(home, 'snapshots'),
    LOG_FORMAT: 'json',
    BUILD_SCHEDULE: '0 0 1 1 *',
    ADMIN_TOKEN: FLEET_ADMIN_TOKEN,
    ADMIN_PORT: '0',
  };
}, 120_000);
afterAll(async () => {
  await Promise.all([postgres?.stop(), redis?.stop()]);
  await rm(home, { recursive: true, force: true });
});

/** Every answer of a builder's admin API checked against its OpenAPI document. */
const fetch = (input: string, init?: RequestInit) => adminContractFetch(() => input)(input, init);

const startBuilder = (name: string) => startFleetBuilder({ home, databaseUrl: postgres.url, redisUrl: redis.url, store: env.SNAPSHOT_STORE! }, name, 'running');

async function runs(admin: string): Promise<BuildRunAnswer[]> {
  const answer = await fetch(`${admin}/admin/v1/builds`, { headers: fleetBearer });
  expect(answer.status).toBe(200);
  return (await answer.json()) as BuildRunAnswer[];
}

async function run(admin: string, id: string): Promise<BuildRunAnswer | undefined> {
  const answer = await fetch(`${admin}/admin/v1/builds/${id}`, { headers: fleetBearer });
  return answer.status === 200 ? ((await answer.json()) as BuildRunAnswer) : undefined;
}

it("lists every builder's runs and the CLI's on each builder, with who asked; a requested run survives its builder's restart", async () => {
  let a = await startBuilder('builder-a');
  const b = await startBuilder('builder-b');
  try {
    // Each builder's first run (trigger schedule) is listed by the other too.
    const [atA, atB] = [await runs(a.admin), await runs(b.admin)];
    expect(atA.filter((r) => r.trigger === 'schedule').length).toBeGreaterThanOrEqual(2);
    expect(atA.map((r) => r.id).sort()).toEqual(atB.map((r) => r.id).sort());
    expect(new Set(atA.map((r) => r.requestedBy))).toEqual(new Set(['schedule']));

    // A build of the CLI: listed by both builders as the CLI's, with build --json's results.
    const cli = await marquee(['build', '--org', 'rr-org-1', '--json'], env);
    expect(cli.code, cli.stderr).toBe(0);
    const built = JSON.parse(cli.stdout) as { runId: string; organizations: Array<Record<string, unknown>> };
    for (const admin of [a.admin, b.admin]) {
      const seen = await run(admin, built.runId);
      expect(seen).toMatchObject({ trigger: 'manual', requestedBy: `cli:${userInfo().username}@${hostname()}`, state: 'finished', done: 1, total: 1 });
      expect(seen!.organizations.map(({ builder: _builder, ...result }) => result)).toEqual(built.organizations);
      expect((await runs(admin))[0]!.id).toBe(built.runId);
    }

    // A build asked of builder A through its admin API: root asked for it, and B lists it.
    const asked = await fetch(`${a.admin}/admin/v1/builds`, {
      method: 'POST',
      headers: { ...fleetBearer, 'Content-Type': 'application/json' },
      body: '{"organizations":["rr-org-2"]}',
    });
    expect(asked.status).toBe(202);
    const queued = (await asked.json()) as BuildRunAnswer;
    expect(queued).toMatchObject({ trigger: 'manual', requestedBy: 'root', state: 'queued' });
    await expect.poll(async () => (await run(a.admin, queued.id))?.state, { timeout: 30_000 }).toBe('finished');
    await expect.poll(async () => (await run(b.admin, queued.id))?.state, { timeout: 10_000 }).toBe('finished');
    const finished = (await run(a.admin, queued.id))!;
    expect(finished).toMatchObject({ requestedBy: 'root', done: 1, total: 1, organizations: [{ slug: 'rr-org-2' }] });

    // Builder A restarts: the run is still there, as it ended, and so is the CLI's.
    await a.stop();
    a = await startBuilder('builder-a');
    expect(await run(a.admin, queued.id)).toEqual(finished);
    expect(await run(a.admin, built.runId)).toMatchObject({ requestedBy: expect.stringMatching(/^cli:/), state: 'finished' });
    const after = (await runs(a.admin)).map((r) => r.id);
    expect(after).toContain(queued.id);
    expect(after).toContain(built.runId);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
}, 240_000);
