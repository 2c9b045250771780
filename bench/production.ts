// Production-shape benchmark (`npm run bench:production`), in two parts, each on servers started
// here on 127.0.0.1 and stopped at the end, also on failure. Not a timed test: it prints a table
// per part; the machine is shared, so the build is compared with a reference built in the same run.
//
// changes: PostgreSQL with the sample platform, s3rver behind nginx as the CDN, Redis, one real
//   `marquee builder` and two `marquee serve` (test/support/production.ts). Each change is one SQL
//   UPDATE of a field the API shows (the organization's name, a team member's title, in turn),
//   then both gateways are polled until both serve the new value: the time from the UPDATE to the
//   second gateway's first new answer. Changes are spaced so that each is measured alone. When
//   both gateways fetch the new manifest at once, nginx (the CDN's stand-in, proxy_cache_lock)
//   holds the second request until the first has filled its cache, checking every 500 ms: the
//   first gateway's row shows the product without that wait.
// build: the synthetic platform (bench/synthetic-platform.ts) in a PostgreSQL started here, built
//   by bench/build-child.ts (wired like `marquee build`, REDIS_URL set as in production: build
//   locks and publish announcements in Redis) into s3rver through a proxy counting requests by
//   method, then rebuilt unchanged, which must send no PUT (else the exit status is 1). The
//   reference: the same builds into a directory store.
//
// changes-during-run: the same, with 2,000 organizations more (BENCH_RUN_ORGANIZATIONS, a light
//   shape: 2 events × 5 sessions) and a run over every organization kept in progress on the
//   builder through its admin API (asked again as soon as one finishes): change builds run beside
//   a run, not behind it (docs/design.md "Runs divided among builders").
//
//   node --import tsx bench/production.ts [--part changes|changes-during-run|build] [--changes 50] [--pause-ms 500]
//   BENCH_ORGANIZATIONS=50 (default 1000) shrinks the build part for a quick run.
import { machine } from './machine.ts';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { migrate } from '../builder/platform/migrations.ts';
import { SAMPLE } from '../builder/platform/sample.ts';
import { openPostgres } from '../records/database/postgres.ts';
import { openRedisKeyStore } from '../gateway/access/redis-access.ts';
import { startPostgres } from '../test/support/postgres.ts';
import { type MarqueeProcess, type ProductionWorld, startProductionWorld } from '../test/support/production.ts';
import { startRedis } from '../test/support/redis.ts';
import { startS3 } from '../test/support/s3.ts';
import { type CountingProxy, startCountingProxy } from './counting-proxy.ts';
import { type MeasuredBuild, measuredBuild } from './measured-build.ts';
import { generateSyntheticPlatform } from './synthetic-platform.ts';

const API = '/api/integration/v1';
const POLL_EVERY_MS = 5;
const CHANGE_TIMEOUT_MS = 10_000;
/**
 * The per-key limit is real (600 a minute, shared by both gateways through Redis). Two pollers
 * sending one request every 5 ms or more send at most 24,000 a minute; 48 keys used in turn have
 * 28,800: the limit can never answer a poll, and a 429 stops the run as a fault of this benchmark.
 */
const POLLING_KEYS = 48;
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? undefined : args[at + 1];
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

// ---------------------------------------------------------------------------------------------
// Part 1: a change in the platform database, visible on every gateway.

interface Change {
  /** What the API shows the change at, and the UPDATE that makes it. */
  path: string;
  apply(value: string): Promise<unknown>;
}

/** The organization's name and its first visible team member's title, in turn. */
async function changesOf(world: ProductionWorld, organizationId: string): Promise<Change[]> {
  const member = await world.sql('SELECT id FROM team_members WHERE organization_id = $1 AND show_on_website ORDER BY sort_order LIMIT 1', [organizationId]);
  const memberId = (member.rows[0] as { id: string } | undefined)?.id;
  if (memberId === undefined) throw new Error('the sample organization has no visible team member');
  return [
    { path: '/organization', apply: (value) => world.sql('UPDATE organizations SET name = $2 WHERE id = $1', [organizationId, value]) },
    { path: '/team', apply: (value) => world.sql('UPDATE team_members SET title = $2 WHERE id = $1', [memberId, value]) },
  ];
}

/** Hands out the polling keys in turn. */
function keyRing(keys: string[]): () => string {
  let next = 0;
  return () => keys[next++ % keys.length]!;
}

/** Polls one gateway until it serves `value` at `path`; the milliseconds since `since`. */
async function untilServed(pool: Pool, path: string, value: string, nextKey: () => string, since: number): Promise<number> {
  for (;;) {
    const response = await pool.request({ path: `${API}${path}`, method: 'GET', headers: { 'x-api-key': nextKey() } });
    const body = await response.body.text();
    if (response.statusCode === 200 && body.includes(value)) return performance.now() - since;
    if (response.statusCode === 429) throw new Error('a poll met the rate limit: this benchmark needs more polling keys');
    if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}: ${body.slice(0, 200)}`);
    if (performance.now() - since > CHANGE_TIMEOUT_MS) throw new Error(`${path} did not show ${JSON.stringify(value)} within ${CHANGE_TIMEOUT_MS} ms`);
    await sleep(POLL_EVERY_MS);
  }
}

/** The id of the builder's last published snapshot of `slug`, from its log. */
function lastPublished(builder: MarqueeProcess, slug: string): string | undefined {
  return [...builder.output().matchAll(new RegExp(`${slug}: published ([\\w-]+)`, 'g'))].at(-1)?.[1];
}

/** Watches the builder's log until it reports a snapshot of `slug` other than `previous`; the milliseconds since `since`. */
async function untilPublished(builder: MarqueeProcess, slug: string, previous: string | undefined, since: number): Promise<number> {
  while (lastPublished(builder, slug) === previous) {
    if (performance.now() - since > CHANGE_TIMEOUT_MS) throw new Error(`the builder did not publish ${slug} within ${CHANGE_TIMEOUT_MS} ms`);
    await sleep(POLL_EVERY_MS);
  }
  return performance.now() - since;
}

interface ChangeTimes {
  /** Until the builder logged the new snapshot (as its output reached this process). */
  published: number;
  /** Until each gateway served the new value. */
  served: number[];
  /** Until the slower one did. */
  visible: number;
}

/** One change: the UPDATE, then the builder's log and both gateways watched at once. */
async function measureChange(change: Change, watch: { builder: MarqueeProcess; slug: string; pools: Pool[]; nextKey: () => string }): Promise<ChangeTimes> {
  const value = `Bench ${randomUUID()}`;
  const previous = lastPublished(watch.builder, watch.slug);
  // From before the UPDATE: its commit is part of what an editor waits for.
  const since = performance.now();
  await change.apply(value);
  const [published, ...served] = await Promise.all([
    untilPublished(watch.builder, watch.slug, previous, since),
    ...watch.pools.map((pool) => untilServed(pool, change.path, value, watch.nextKey, since)),
  ]);
  return { published, served, visible: Math.max(...served) };
}

/** Nearest rank. */
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** What each row of the table measures, per change. */
const CHANGE_ROWS: Array<[string, (times: ChangeTimes) => number]> = [
  ['UPDATE → builder logged the publish', (t) => t.published],
  ['UPDATE → new value served by the first gateway', (t) => Math.min(...t.served)],
  ['UPDATE → new value served by both gateways', (t) => t.visible],
  ['publish logged → served by both', (t) => t.visible - t.published],
];

/** The table, and whether the p95 target was met. */
function printChangeTable(times: ChangeTimes[]): boolean {
  console.log(`\n| ${times.length} changes: one SQL UPDATE, builder + 2 × serve on S3 (s3rver) through the CDN (nginx) and Redis | p50 | p95 | max |\n|---|---|---|---|`);
  for (const [name, of] of CHANGE_ROWS) {
    const sorted = times.map(of).sort((a, b) => a - b);
    console.log(`| ${name} | ${percentile(sorted, 50).toFixed(0)} ms | ${percentile(sorted, 95).toFixed(0)} ms | ${sorted.at(-1)!.toFixed(0)} ms |`);
  }
  const p95 = percentile(
    times.map((t) => t.visible).sort((a, b) => a - b),
    95,
  );
  console.log(`\n${p95 <= 1000 ? 'met ' : 'MISSED'}  p95 ≤ 1 s, UPDATE → served by both (${p95.toFixed(0)} ms)`);
  return p95 <= 1000;
}

/**
 * Keeps a run over every organization in progress on the builder's admin API: asks for one, waits
 * for it to finish, asks again, until stopped. `running()` says whether one is running now.
 */
function keepRunning(admin: string): { running(): boolean; runs(): number; stop(): Promise<void> } {
  const headers = { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' };
  let stopped = false;
  let running = false;
  let finished = 0;
  const loop = (async () => {
    while (!stopped) {
      const asked = await fetch(`${admin}/admin/v1/builds`, { method: 'POST', headers, body: '{}' });
      const { id } = (await asked.json()) as { id: string };
      for (;;) {
        const { state } = (await (await fetch(`${admin}/admin/v1/builds/${id}`, { headers })).json()) as { state: string };
        running = state === 'running';
        if (state === 'finished') break;
        await sleep(20);
      }
      running = false;
      finished++;
    }
  })();
  return {
    running: () => running,
    runs: () => finished,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/**
 * `duringRun`: that many organizations more (a light synthetic shape) in the platform, and a run
 * over every organization kept in progress on the builder while the changes are made; each
 * change is counted as made during a run only if one was running both at its UPDATE and once both
 * gateways served it.
 */
async function changesPart(count: number, pauseMs: number, duringRun = 0): Promise<boolean> {
  const started = performance.now();
  const world = await startProductionWorld();
  const pools: Pool[] = [];
  try {
    if (duringRun > 0) {
      const db = await openPostgres(world.env.DATABASE_URL!);
      await generateSyntheticPlatform(db, { organizations: duringRun, eventsPerOrganization: 2, sessionsPerEvent: 5, speakersPerOrganization: 5, registrationsPerEvent: 2 });
      await db.close();
    }
    // Its first run builds every organization into S3: minutes when there are thousands.
    const builder = await world.builder({ ADMIN_TOKEN }, { readyTimeoutMs: 30 * 60_000 });
    const admin = /"admin":"(http:\/\/[^"]+)"/.exec(builder.output())?.[1];
    if (admin === undefined) throw new Error('the builder did not log its admin address');
    const gateways = await Promise.all([world.serve(), world.serve()]);
    pools.push(...gateways.map((gateway) => new Pool(gateway.url, { connections: 2 })));
    const nordic = SAMPLE.organizations.nordic;
    const keyStore = await openRedisKeyStore({ url: world.redis.url });
    const keys: string[] = [];
    try {
      for (let i = 0; i < POLLING_KEYS; i++) keys.push((await keyStore.keys.create({ organizationId: nordic.id, label: `bench ${i}`, origins: [] })).secret);
    } finally {
      await keyStore.close();
    }
    const watch = { builder, slug: nordic.slug, pools, nextKey: keyRing(keys) };
    const changes = await changesOf(world, nordic.id);
    const organizations = duringRun > 0 ? `, ${duringRun} organizations more, a run over every organization kept in progress` : '';
    console.log(
      `production world up in ${seconds(performance.now() - started)}: 1 builder, ${gateways.length} gateways${organizations}; ${count} changes of ${nordic.slug}, ${pauseMs} ms apart`,
    );

    // Untimed: the first build of each path in the builder and the gateways' first reads.
    for (const change of changes) await measureChange(change, watch);
    const runs = duringRun > 0 ? keepRunning(admin) : undefined;
    const times: ChangeTimes[] = [];
    let duringRuns = 0;
    try {
      if (runs) while (!runs.running()) await sleep(20);
      for (let i = 0; i < count; i++) {
        await sleep(pauseMs);
        const change = changes[i % changes.length]!;
        const inRunBefore = runs?.running() ?? false;
        const took = await measureChange(change, watch);
        const inRun = inRunBefore && (runs?.running() ?? false);
        if (inRun) duringRuns++;
        times.push(took);
        console.log(
          `change ${String(i + 1).padStart(3)}  ${change.path.padEnd(14)} published by the builder at ${took.published.toFixed(0).padStart(5)} ms, served by the gateways at ${took.served.map((ms) => `${ms.toFixed(0).padStart(5)} ms`).join(' and ')}${inRun ? ', during a run' : ''}`,
        );
      }
    } finally {
      await runs?.stop();
    }
    if (runs) console.log(`\n${duringRuns} of ${count} changes made and served while a run over all ${duringRun + 4} organizations was running (${runs.runs()} runs)`);
    return printChangeTable(times) && (runs === undefined || duringRuns >= count * 0.9);
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
    await world.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Part 2: the full build into S3, and the unchanged rebuild's PUTs.

const S3_PREFIX = 'marquee/api';

interface Row {
  name: string;
  build: MeasuredBuild;
  /** Requests that reached the bucket, by method; none for the directory store. */
  requests?: Record<string, number>;
  refused?: number;
  reference?: MeasuredBuild;
}

/** One build into S3, with the requests the proxy counted during it. */
async function countedBuild(proxy: CountingProxy, env: NodeJS.ProcessEnv): Promise<Pick<Row, 'build' | 'requests' | 'refused'>> {
  proxy.reset();
  const build = await measuredBuild(env, 'build');
  return { build, requests: proxy.counts(), refused: proxy.refused() };
}

function printBuildTable(rows: Row[]): void {
  console.log(
    '\n| build | wall time | objects written | PUT | GET | HEAD | LIST | other | answered ≥ 400 | peak RSS | × directory store |\n|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const { name, build, requests, refused, reference } of rows) {
    const count = (method: string) => (requests ? String(requests[method] ?? 0) : '—');
    const other = requests ? String(Object.entries(requests).reduce((sum, [method, n]) => (['PUT', 'GET', 'HEAD', 'LIST'].includes(method) ? sum : sum + n), 0)) : '—';
    const ratio = reference ? `${(build.wallMs / reference.wallMs).toFixed(2)}×` : '';
    console.log(
      `| ${name} | ${seconds(build.wallMs)} | ${build.objectsWritten} | ${count('PUT')} | ${count('GET')} | ${count('HEAD')} | ${count('LIST')} | ${other} | ${refused ?? '—'} | ${build.maxRssMb.toFixed(0)} MB | ${ratio} |`,
    );
  }
}

async function buildPart(organizations: number): Promise<boolean> {
  const stops: Array<() => Promise<void>> = [];
  const work = await mkdtemp(join(tmpdir(), 'marquee-bench-'));
  stops.push(() => rm(work, { recursive: true, force: true }));
  try {
    const postgres = await startPostgres();
    stops.push(() => postgres.stop());
    const redis = await startRedis({ appendfsync: 'everysec' });
    stops.push(() => redis.stop());
    const s3 = await startS3();
    stops.push(() => s3.stop());
    const proxy = await startCountingProxy(s3.endpoint);
    stops.push(() => proxy.close());

    const db = await openPostgres(postgres.url);
    await migrate(db);
    const started = performance.now();
    await generateSyntheticPlatform(db, { organizations, eventsPerOrganization: 20, sessionsPerEvent: 10 });
    await db.close();
    console.log(`synthetic platform: ${organizations} organizations × 20 events × 10 sessions generated in ${seconds(performance.now() - started)}`);

    const base = { ...process.env, DATABASE_URL: postgres.url, MARQUEE_HOME: work, REDIS_URL: redis.url };
    const directory = { ...base, SNAPSHOT_STORE: join(work, 'snapshots') };
    // The bucket's address is the proxy's: every request the builder sends is counted on its way.
    const bucket = { ...base, ...s3.env(S3_PREFIX), S3_ENDPOINT: proxy.origin };
    const directoryFull = await measuredBuild(directory, 'build');
    const s3Full = await countedBuild(proxy, bucket);
    const s3Unchanged = await countedBuild(proxy, bucket);
    const directoryUnchanged = await measuredBuild(directory, 'build');

    printBuildTable([
      { name: 'reference: full build, directory store', build: directoryFull },
      { name: 'full build, S3 (s3rver)', ...s3Full, reference: directoryFull },
      { name: 'reference: rebuild, nothing changed, directory store', build: directoryUnchanged },
      { name: 'rebuild, nothing changed, S3 (s3rver)', ...s3Unchanged, reference: directoryUnchanged },
    ]);
    const puts = s3Unchanged.requests?.PUT ?? 0;
    console.log(`\n${puts === 0 ? 'met ' : 'MISSED'}  unchanged rebuild sends 0 PUTs to the bucket (sent ${puts})`);
    return puts === 0;
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

// ---------------------------------------------------------------------------------------------

const part = option('part');
const PARTS = ['changes', 'changes-during-run', 'build'];
if (part !== undefined && !PARTS.includes(part)) throw new Error(`--part is one of ${PARTS.join(', ')}, got ${part}`);
const organizations = Number(process.env.BENCH_ORGANIZATIONS ?? 1000);
const command = `${process.env.BENCH_ORGANIZATIONS ? `BENCH_ORGANIZATIONS=${organizations} ` : ''}node --import tsx bench/production.ts ${args.join(' ')}`.trim();
console.log(`command: ${command}`);
console.log(`${machine()}\n`);
const changeCount = Number(option('changes') ?? 50);
const pauseMs = Number(option('pause-ms') ?? 500);
const met: boolean[] = [];
if (part === undefined || part === 'changes') met.push(await changesPart(changeCount, pauseMs));
if (part === undefined || part === 'changes-during-run') {
  if (part === undefined) console.log('');
  met.push(await changesPart(changeCount, pauseMs, Number(process.env.BENCH_RUN_ORGANIZATIONS ?? 2000)));
}
if (part === undefined || part === 'build') {
  if (part === undefined) console.log('');
  met.push(await buildPart(organizations));
}
if (met.includes(false)) process.exitCode = 1;
