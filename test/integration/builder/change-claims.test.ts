// A change is built by one builder of the fleet, not by each (docs/design.md "A run never lies"): every
// builder hears each notification, and the one that claims the organization in the platform
// database after hearing it builds it (builder/runs/database-change-claims.ts). First the claims
// themselves against the real PostgreSQL, with a short claim timeout; then two `marquee builder`
// processes on it, one Redis and one store: each starts without a warning or a stack trace in its
// log, each change of the sample platform is built once (a
// change build is a run of trigger "change" naming one organization, in the runs' record), and a
// change whose claim a dead builder left is taken over and built once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../builder/platform/migrations.ts';
import { SAMPLE, seedSample } from '../../../builder/platform/sample.ts';
import { DatabaseChangeClaims } from '../../../builder/runs/database-change-claims.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import { type FleetBuilder, startFleetBuilder } from '../../support/builder-fleet.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { until } from '../../support/until.ts';

let postgres: TestPostgres;
let redis: TestRedis;
let db: SqlClient;
let home: string;
beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  home = await mkdtemp(join(tmpdir(), 'marquee-change-claims-'));
  db = await openPostgres(postgres.url);
  await migrate(db);
  await migrateMarquee(db);
  await seedSample(db, { now: new Date() });
}, 60_000);
afterAll(async () => {
  await db?.close();
  await Promise.all([postgres?.stop(), redis?.stop()]);
  await rm(home, { recursive: true, force: true });
});

describe('change claims in the platform database', () => {
  const TIMEOUT_MS = 400;
  const claims = (builder: string) => new DatabaseChangeClaims(db, { log: new RecordingLog(), builder, claimTimeoutMs: TIMEOUT_MS });
  const claimOf = async (organizationId: string) =>
    (
      await db.query<{ builder: string; done: boolean; kept: boolean }>(
        `SELECT builder, done, kept_at > claimed_at + $2 * interval '1 millisecond' AS kept FROM marquee_change_claims WHERE organization_id = $1`,
        [organizationId, TIMEOUT_MS],
      )
    )[0];

  it('gives a change heard by two builders to the first that claims it; the other sees it built, and a later change is claimed anew', async () => {
    const [a, b] = [claims('claims-a'), claims('claims-b')];
    // Both heard the change a second ago.
    const first = await a.claim('org-1', 1_000);
    expect(first.outcome).toBe('claimed');
    expect((await b.claim('org-1', 1_000)).outcome).toBe('building');
    if (first.outcome === 'claimed') await first.release();
    expect(await claimOf('org-1')).toMatchObject({ builder: 'claims-a', done: true });
    expect((await b.claim('org-1', 1_000)).outcome).toBe('built');
    // A change heard just now, after the claim: that build's read may have come before it.
    const again = await b.claim('org-1', 0);
    expect(again.outcome).toBe('claimed');
    if (again.outcome === 'claimed') await again.release();
    expect(await claimOf('org-1')).toMatchObject({ builder: 'claims-b', done: true });
  });

  it('keeps a live builder’s claim past the timeout, and hands a dead builder’s over once it lapses', async () => {
    const [live, other] = [claims('claims-live'), claims('claims-other')];
    const held = await live.claim('org-live', 60_000);
    expect(held.outcome).toBe('claimed');
    await until('the live claim kept beyond the timeout', async () => (await claimOf('org-live'))?.kept === true);
    expect((await other.claim('org-live', 60_000)).outcome).toBe('building');
    if (held.outcome === 'claimed') await held.release();

    // Claimed a moment ago, then never kept nor released: its builder died.
    await db.query(
      `INSERT INTO marquee_change_claims (organization_id, builder, token, claimed_at, kept_at) VALUES ('org-dead', 'claims-dead', 'dead', clock_timestamp(), clock_timestamp())`,
    );
    expect((await other.claim('org-dead', 60_000)).outcome).toBe('building');
    const taken = await until('the lapsed claim taken over', async () => {
      const claim = await other.claim('org-dead', 60_000);
      return claim.outcome === 'claimed' && claim;
    });
    await taken.release();
    expect(await claimOf('org-dead')).toMatchObject({ builder: 'claims-other', done: true });
  });
});

describe('two builders hearing the same changes', () => {
  const fleet: FleetBuilder[] = [];
  beforeAll(async () => {
    const backends = { home, databaseUrl: postgres.url, redisUrl: redis.url, store: join(home, 'snapshots') };
    fleet.push(await startFleetBuilder(backends, 'builder-a', 'running'), await startFleetBuilder(backends, 'builder-b', 'running'));
  }, 240_000);
  afterAll(async () => {
    await Promise.all(fleet.map((builder) => builder.stop()));
  });

  /** Each change build of `organizationId` that has ended: the builder that ran it, and its result (a run's results are recorded at its end). */
  const changeBuilds = async (organizationId: string) =>
    db.query<{ builder: string; result: string; state: string }>(
      `SELECT run->'organizations'->0->>'builder' AS builder, run->'organizations'->0->>'result' AS result, state
       FROM marquee_run_records
       WHERE run->>'trigger' = 'change' AND run->>'scope' = 'named' AND run->'organizations'->0->>'id' = $1
       ORDER BY queued_at`,
      [organizationId],
    );
  /** Every change build recorded, whatever its organization. */
  const allChangeBuilds = async () =>
    (await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM marquee_run_records WHERE run->>'trigger' = 'change' AND run->>'scope' = 'named'`))[0]!.count;
  const rename = (organizationId: string, name: string) => db.query('UPDATE organizations SET name = $2 WHERE id = $1', [organizationId, name]);
  /** Resolves once a change build of it has finished, and no change build is under way anywhere. */
  const settled = (organizationId: string, before: number) =>
    until(
      `a change build of ${organizationId}`,
      async () => {
        const unfinished = await db.query(`SELECT 1 FROM marquee_run_records WHERE run->>'trigger' = 'change' AND state NOT IN ('finished', 'failed')`);
        const builds = await changeBuilds(organizationId);
        return unfinished.length === 0 && builds.length > before && builds;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );

  it('starts both, as processes, without a warning or a stack trace in their logs', () => {
    for (const builder of fleet) {
      const lines = builder.output().split('\n');
      expect(lines.filter((line) => /"level":"(warn|error|fatal)"/.test(line))).toEqual([]);
      expect(lines.filter((line) => /\bat .+:\d+:\d+\)?$|\\n\s+at /.test(line))).toEqual([]);
    }
  });

  it('builds each change once, by one builder or the other', async () => {
    // The active ones: a change of a suspended organization publishes its state only.
    const organizations = [SAMPLE.organizations.nordic.id, SAMPLE.organizations.pacific.id];
    const changes = 6;
    const before = await allChangeBuilds();
    for (let change = 0; change < changes; change++) {
      const organizationId = organizations[change % organizations.length]!;
      const built = (await changeBuilds(organizationId)).length;
      await rename(organizationId, `Renamed ${change}`);
      const builds = await settled(organizationId, built);
      expect(builds.slice(built).map((build) => build.result)).toContain('published');
    }
    // A last change elsewhere, built too: both builders have long decided on every change before it.
    const last = organizations.at(-1)!;
    await rename(last, 'Renamed last');
    await settled(last, (await changeBuilds(last)).length);
    const builds = (await allChangeBuilds()) - before;
    const byBuilder = await db.query<{ builder: string; count: number }>(
      `SELECT run->'organizations'->0->>'builder' AS builder, count(*)::int AS count FROM marquee_run_records
       WHERE run->>'trigger' = 'change' AND run->>'scope' = 'named' GROUP BY 1 ORDER BY 1`,
    );
    console.info(`two builders, ${changes + 1} changes: ${builds} change builds (${(builds / (changes + 1)).toFixed(2)} per change); by builder ${JSON.stringify(byBuilder)}`);
    expect(builds).toBe(changes + 1);
  });

  it('builds a change whose claim a dead builder left, once, after the claim lapses', async () => {
    const organizationId = SAMPLE.organizations.nordic.id;
    const built = (await changeBuilds(organizationId)).length;
    // What a builder that claimed this change and died leaves: a claim taken after the change was
    // heard (dated ahead, so it covers the change about to be made), not done, and kept until
    // about now: it lapses within a second of the change.
    await db.query(
      `INSERT INTO marquee_change_claims (organization_id, builder, token, claimed_at, kept_at, done)
       VALUES ($1, 'builder-dead', 'dead', now() + interval '1 hour', now() - interval '14 seconds', false)
       ON CONFLICT (organization_id) DO UPDATE SET builder = excluded.builder, token = excluded.token, claimed_at = excluded.claimed_at, kept_at = excluded.kept_at, done = false`,
      [organizationId],
    );
    const changedAt = performance.now();
    await rename(organizationId, 'Renamed after a builder died');
    const builds = await settled(organizationId, built);
    console.info(`a dead builder's change claim taken over and built ${Math.round(performance.now() - changedAt)} ms after the change`);
    expect(builds.slice(built)).toEqual([expect.objectContaining({ result: 'published', state: 'finished' })]);
    expect((await db.query<{ builder: string }>('SELECT builder FROM marquee_change_claims WHERE organization_id = $1', [organizationId]))[0]?.builder).toMatch(/^builder-[ab]$/);
  });
});
