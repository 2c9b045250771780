// npm run bench:build:scale — the builder at platform scale: 100,000 organizations of a lighter
// shape (2 events × 5 sessions, 5 speakers, 3 sponsors, 3 team members each) in a real PostgreSQL
// started here, fully built once, then scheduled runs with nothing changed and with one
// organization changed. Issue targets: a scheduled run with nothing changed ≤ 30 s, builder peak
// RSS ≤ 300 MB in every phase. BENCH_ORGANIZATIONS picks another size. Each build runs in its own
// child process (bench/build-child.ts) wired like `marquee build`, so each peak RSS is its own.
// Last, a `marquee serve` over the same store (keys in Redis, as in production) is asked for
// 20,000 organizations' /organization, one key each, and its resident memory is reported (no
// target: the gateway keeps at most 20,000 organizations' pointers, docs/design.md "Gateway").
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres } from '../builder/platform/database/postgres.ts';
import { migrate } from '../builder/platform/migrations.ts';
import { Pool } from 'undici';
import { openRedisKeyStore } from '../gateway/access/redis-access.ts';
import { marqueeProcess } from '../test/support/cli.ts';
import { startPostgres } from '../test/support/postgres.ts';
import { startRedis } from '../test/support/redis.ts';
import { reportChecks } from './checks.ts';
import { machine } from './machine.ts';
import { memoryOf } from './process-memory.ts';
import { measuredBuild } from './measured-build.ts';
import { generateSyntheticPlatform } from './synthetic-platform.ts';

const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 100_000);
const GATEWAY_ORGANIZATIONS = Math.min(20_000, ORGANIZATIONS);
/** Requests in flight to the gateway at once. */
const GATEWAY_CONCURRENCY = 8;

/**
 * A `marquee serve` over the store, with a key in Redis for each of `organizationIds`, asked once
 * for each one's /organization: its memory afterwards, and how many answered 200.
 */
async function gatewayOver(env: NodeJS.ProcessEnv, redisUrl: string, organizationIds: readonly string[]) {
  const keyStore = await openRedisKeyStore({ url: redisUrl });
  const keys: string[] = [];
  try {
    for (const organizationId of organizationIds) keys.push((await keyStore.keys.create({ organizationId, label: 'bench', origins: [] })).secret);
  } finally {
    await keyStore.close();
  }
  const serveEnv = Object.fromEntries(
    Object.entries({ ...env, REDIS_URL: redisUrl, PORT: '0', ADMIN_PORT: '0', LOG_FORMAT: 'json' }).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const gateway = await marqueeProcess(['serve'], serveEnv, /gateway listening on (http:\/\/\S+),/, { readyTimeoutMs: 120_000 });
  try {
    const pool = new Pool(gateway.match[1]!, { connections: GATEWAY_CONCURRENCY });
    const started = performance.now();
    let answered = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: GATEWAY_CONCURRENCY }, async () => {
        for (let index = next++; index < keys.length; index = next++) {
          const response = await pool.request({ path: '/api/integration/v1/organization', method: 'GET', headers: { authorization: `Bearer ${keys[index]}` } });
          await response.body.dump();
          if (response.statusCode === 200) answered++;
        }
      }),
    );
    const wallMs = performance.now() - started;
    await pool.close();
    return { ...memoryOf(gateway.child.pid!), answered, wallMs };
  } finally {
    await gateway.stop();
  }
}
const SHAPE = {
  eventsPerOrganization: 2,
  sessionsPerEvent: 5,
  speakersPerOrganization: 5,
  sponsorsPerOrganization: 3,
  teamMembersPerOrganization: 3,
  sponsorsPerEvent: 2,
  registrationsPerEvent: 2,
};

const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
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
  const served = await db.query<{ id: string }>(`SELECT id FROM organizations WHERE status = 'active' ORDER BY id LIMIT ${GATEWAY_ORGANIZATIONS}`);
  await db.close();
  const gateway = await gatewayOver(
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
  console.log(
    `\ngateway (marquee serve, keys in Redis) after one /organization of each of ${served.length} organizations, ${GATEWAY_CONCURRENCY} at once, in ${s(gateway.wallMs)}: ${gateway.answered} answered 200; RSS ${gateway.rss.toFixed(0)} MB, peak ${gateway.peak.toFixed(0)} MB`,
  );
  reportChecks([
    ['scheduled run, nothing changed ≤ 30 s', nothing.wallMs <= 30_000 && nothing.organizations === 0],
    ['scheduled run, one changed: that one alone', one.organizations === 1],
    ['builder peak RSS ≤ 300 MB in every phase', Math.max(full.maxRssMb, nothing.maxRssMb, one.maxRssMb) <= 300],
    [`the gateway answered each of the ${served.length} organizations`, gateway.answered === served.length],
  ]);
} finally {
  await Promise.all([postgres.stop(), redis.stop()]);
  await rm(work, { recursive: true, force: true });
}
