// npm run bench:build:scale — the builder at platform scale: 100,000 organizations of a lighter
// shape (2 events × 5 sessions, 5 speakers, 3 sponsors, 3 team members each) in a real PostgreSQL
// started here, fully built once, then scheduled runs with nothing changed and with one
// organization changed. Issue targets: a scheduled run with nothing changed ≤ 30 s, builder peak
// RSS ≤ 300 MB in every phase. BENCH_ORGANIZATIONS picks another size. Each build runs in its own
// child process (bench/build-child.ts) wired like `marquee build`, so each peak RSS is its own.
// Last, the gateway over the same store (bench/gateway-scale.ts): its RSS after serving 20,000
// and every organization round-robin, and the 1,000 hottest organizations' requests/s against a
// reference that evicts nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres } from '../records/database/postgres.ts';
import { migrate } from '../builder/platform/migrations.ts';
import { startPostgres } from '../test/support/postgres.ts';
import { startRedis } from '../test/support/redis.ts';
import { reportChecks } from './checks.ts';
import { machine } from './machine.ts';
import { gatewayAtScale, HOT, printGatewayScale } from './gateway-scale.ts';
import { measuredBuild } from './measured-build.ts';
import { generateSyntheticPlatform } from './synthetic-platform.ts';

const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 100_000);
const SHAPE = {
  eventsPerOrganization: 2,
  sessionsPerEvent: 5,
  speakersPerOrganization: 5,
  sponsorsPerOrganization: 3,
  teamMembersPerOrganization: 3,
  sponsorsPerEvent: 2,
  registrationsPerEvent: 2,
};

const [postgres, redis] = await Promise.all([startPostgres(), startRedis({ appendfsync: 'everysec' })]);
const work = await mkdtemp(join(tmpdir(), 'marquee-bench-scale-'));
try {
  const db = await openPostgres(postgres.url);
  await migrate(db);
  const started = performance.now();
  await generateSyntheticPlatform(db, { organizations: ORGANIZATIONS, ...SHAPE });
  console.log(machine());
  console.log(`synthetic platform: ${ORGANIZATIONS} organizations × 2 events × 5 sessions generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const env = { ...process.env, DATABASE_URL: postgres.url, SNAPSHOT_STORE: join(work, 'snapshots'), MARQUEE_HOME: work };
  const full = await measuredBuild(env, 'build');
  console.log(`full build: ${(full.wallMs / 1000).toFixed(1)} s`);
  const nothing = await measuredBuild(env, 'scheduled');
  await db.query(`UPDATE organizations SET name = name || ' (renamed)' WHERE id = (SELECT id FROM organizations WHERE status = 'active' ORDER BY id DESC LIMIT 1)`);
  const one = await measuredBuild(env, 'scheduled');
  const served = await db.query<{ id: string }>(`SELECT id FROM organizations WHERE status = 'active' ORDER BY id`);
  await db.close();
  const gateway = await gatewayAtScale(
    env,
    redis.url,
    served.map((row) => row.id),
  );

  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log('\n| phase | wall time | organizations built | objects written | peak RSS |\n|---|---|---|---|---|');
  for (const [phase, measured] of [
    ['full build', full],
    ['scheduled run, nothing changed', nothing],
    ['scheduled run, one organization changed', one],
  ] as const) {
    console.log(`| ${phase} | ${s(measured.wallMs)} | ${measured.organizations} | ${measured.objectsWritten} | ${measured.maxRssMb.toFixed(0)} MB |`);
  }
  printGatewayScale(gateway);
  reportChecks([
    ['scheduled run, nothing changed ≤ 30 s', nothing.wallMs <= 30_000 && nothing.organizations === 0],
    ['scheduled run, one changed: that one alone', one.organizations === 1],
    ['builder peak RSS ≤ 300 MB in every phase', Math.max(full.maxRssMb, nothing.maxRssMb, one.maxRssMb) <= 300],
    [`the gateway answered each of the ${served.length} organizations, in both rounds`, gateway.answered.every((answered) => answered === served.length)],
    [
      `gateway RSS ≤ 256 MB, peak included, serving ${served.length} organizations round-robin`,
      Math.max(...gateway.readings.map((reading) => reading.rss), gateway.afterSecondRound.rss, gateway.afterSecondRound.peak) <= 256,
    ],
    [`the ${HOT} hottest organizations' requests/s within 5 % of a gateway that evicts nothing (median ratio ≥ 0.95)`, gateway.hot.ratio >= 0.95],
  ]);
} finally {
  await Promise.all([postgres.stop(), redis.stop()]);
  await rm(work, { recursive: true, force: true });
}
