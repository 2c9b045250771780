// Runs divided among builders (docs/design.md "Runs divided among builders"): `marquee builder`
// processes on one PostgreSQL, one Redis and one store, and a run over 200 organizations asked of
// one of them through its admin API. Every organization is built exactly once in the run, every
// builder takes a share, and every builder's admin API shows the same run, with who built what.
// A builder killed (SIGKILL) in the middle of its share leaves claims behind in the work list (the
// platform database); the others take them over within 30 s, and the run still builds every
// organization. Every organization changed at once during a run leaves one linear chain of
// signed manifests per organization, with the one key both builders share.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSyntheticPlatform } from '../../../bench/synthetic-platform.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import { migrate } from '../../../builder/platform/migrations.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { type BuildRunAnswer, type FleetBuilder, fleetBearer, startFleetBuilder } from '../../support/builder-fleet.ts';
import { marquee } from '../../support/cli.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const ORGANIZATIONS = 200;

let postgres: TestPostgres;
let redis: TestRedis;
let db: SqlClient;
let home: string;
beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  home = await mkdtemp(join(tmpdir(), 'marquee-divided-runs-'));
  db = await openPostgres(postgres.url);
  await migrate(db);
  await generateSyntheticPlatform(db, { organizations: ORGANIZATIONS, eventsPerOrganization: 2, sessionsPerEvent: 3, speakersPerOrganization: 4, registrationsPerEvent: 1 });
}, 120_000);
afterAll(async () => {
  await db?.close();
  await Promise.all([postgres?.stop(), redis?.stop()]);
  await rm(home, { recursive: true, force: true });
});

/** A builder of the fleet, ready once its first run is done. */
const startBuilder = (name: string) => startFleetBuilder({ home, databaseUrl: postgres.url, redisUrl: redis.url, store: join(home, 'snapshots') }, name, 'running');

async function ask(builder: FleetBuilder): Promise<string> {
  const answer = await fetch(`${builder.admin}/admin/v1/builds`, { method: 'POST', headers: { ...fleetBearer, 'Content-Type': 'application/json' }, body: '{}' });
  expect(answer.status).toBe(202);
  return ((await answer.json()) as BuildRunAnswer).id;
}

async function runAt(builder: FleetBuilder, id: string): Promise<BuildRunAnswer | undefined> {
  const answer = await fetch(`${builder.admin}/admin/v1/builds/${id}`, { headers: fleetBearer });
  return answer.status === 200 ? ((await answer.json()) as BuildRunAnswer) : undefined;
}

/** The run as `builder` shows it once finished there. */
async function finishedAt(builder: FleetBuilder, id: string, timeout: number): Promise<BuildRunAnswer> {
  await expect.poll(async () => (await runAt(builder, id))?.state, { timeout, interval: 100 }).toBe('finished');
  return (await runAt(builder, id))!;
}

function expectEachOnce(run: BuildRunAnswer): void {
  expect(run).toMatchObject({ state: 'finished', done: ORGANIZATIONS, total: ORGANIZATIONS });
  expect(run.organizations).toHaveLength(ORGANIZATIONS);
  expect(new Set(run.organizations.map((organization) => organization.id)).size).toBe(ORGANIZATIONS);
  expect(run.organizations.filter((organization) => organization.result === 'failed')).toEqual([]);
}

const shares = (run: BuildRunAnswer) => {
  const counts: Record<string, number> = {};
  for (const organization of run.organizations) counts[organization.builder] = (counts[organization.builder] ?? 0) + 1;
  return counts;
};

describe('a run divided among builders', () => {
  const fleet: FleetBuilder[] = [];
  afterAll(async () => {
    await Promise.all(fleet.map((builder) => builder.stop()));
  });

  it('builds each organization once with two builders, each taking a share, one run seen alike from both', async () => {
    fleet.push(await startBuilder('builder-a'), await startBuilder('builder-b'));
    const [a, b] = fleet as [FleetBuilder, FleetBuilder];
    const id = await ask(a);
    const seenByA = await finishedAt(a, id, 60_000);
    const seenByB = await finishedAt(b, id, 10_000);
    expectEachOnce(seenByA);
    console.info(`two builders, ${ORGANIZATIONS} organizations: ${JSON.stringify(shares(seenByA))}`);
    expect(Object.keys(shares(seenByA)).sort()).toEqual(['builder-a', 'builder-b']);
    expect({ ...seenByB, organizations: [...seenByB.organizations].sort((x, y) => x.id.localeCompare(y.id)) }).toEqual({
      ...seenByA,
      // Each records when it saw the run finish.
      finishedAt: seenByB.finishedAt,
      organizations: [...seenByA.organizations].sort((x, y) => x.id.localeCompare(y.id)),
    });
    // The builder it was asked of reports the run, with each builder's share.
    expect(a.output()).toMatch(/"message":"manual run over 200 organizations in [\d.]+ s: 200 built \(200 unchanged\); by builder: builder-(a|b) \d+, builder-(a|b) \d+"/);
  });

  it('keeps one linear, signed chain per organization when every organization changes at once during a run, built by two builders with one key', async () => {
    const [a] = fleet as [FleetBuilder, FleetBuilder];
    // A run divided between the two, and beside it change builds on both (the triggers notify each
    // organization). 200 change builds push the run out of the runs a builder keeps, so its end is
    // read from its work list in the platform database.
    const id = await ask(a);
    await db.query(`UPDATE organizations SET name = name || ' (renamed)'`);
    const built = async () =>
      (await db.query<{ done: number }>(`SELECT count(*) FILTER (WHERE done)::int AS done FROM marquee_run_organizations WHERE run_id = $1`, [id]))[0]!.done;
    await expect.poll(built, { timeout: 60_000, interval: 200 }).toBe(ORGANIZATIONS);
    const verify = async () => {
      const done = await marquee(['verify', '--all', '--json'], { MARQUEE_HOME: home, DATABASE_URL: postgres.url, SNAPSHOT_STORE: join(home, 'snapshots') });
      return JSON.parse(done.stdout) as { ok: boolean; organizations: Array<{ ok: boolean; snapshots: number; break?: unknown }> };
    };
    // Once the last change build published: every chain verifies, no manifest beside it (a second head is a break).
    await expect
      .poll(
        async () => {
          const verification = await verify();
          return { ok: verification.ok, renamed: verification.organizations.filter((organization) => organization.snapshots >= 2).length };
        },
        { timeout: 60_000, interval: 1000 },
      )
      .toEqual({ ok: true, renamed: ORGANIZATIONS });
    expect(await readdir(join(home, 'snapshots', 'signing-keys'))).toHaveLength(1);
  });

  it('builds each organization once with three builders, and one killed in the middle of its share has its claims taken over within 30 s', async () => {
    fleet.push(await startBuilder('builder-c'));
    const [a, , c] = fleet as [FleetBuilder, FleetBuilder, FleetBuilder];
    const id = await ask(a);
    // Killed as soon as it has built some: its other workers hold claims then.
    await expect
      .poll(async () => shares((await runAt(a, id)) ?? ({ organizations: [] } as unknown as BuildRunAnswer))['builder-c'] ?? 0, { timeout: 60_000, interval: 20 })
      .toBeGreaterThan(0);
    await c.kill();
    const killedAt = performance.now();
    fleet.splice(2, 1);
    // Its claims, as the work list in the platform database holds them.
    const pending = async () =>
      (await db.query<{ held: number }>(`SELECT count(*)::int AS held FROM marquee_run_organizations WHERE run_id = $1 AND claimed_by = 'builder-c' AND NOT done`, [id]))[0]!.held;
    const left = await pending();
    console.info(`builder-c killed holding ${left} claims`);
    await expect.poll(pending, { timeout: 30_000, interval: 200 }).toBe(0);
    console.info(`its claims taken over ${Math.round(performance.now() - killedAt)} ms after the kill`);
    const run = await finishedAt(a, id, 60_000);
    expectEachOnce(run);
    console.info(`three builders, one killed: ${JSON.stringify(shares(run))}`);
    expect(Object.keys(shares(run)).sort()).toEqual(['builder-a', 'builder-b', 'builder-c']);
    expect(await finishedAt(fleet[1]!, id, 10_000)).toMatchObject({ done: ORGANIZATIONS, total: ORGANIZATIONS });
  });
});
