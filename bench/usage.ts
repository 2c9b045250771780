// npm run bench:usage — what usage per key (docs/design.md "Usage per key") costs the builders'
// database and the gateway's memory, on a real PostgreSQL 15 and Redis started here (PostgreSQL as the
// tests run it, fsync off: its writes cost less than a durable server's).
//
// intake: a day of hourly rows for 100,000 keys (BENCH_USAGE_KEYS), ten to an organization, each
//   used once an hour with one or two outcomes (every key a 200, every other one a 304 too). The
//   batches are made as a gateway makes them: a gateway's own tally (gateway/usage/usage-tally.ts)
//   at the default budget, taken each time it asks to be moved early (half its budget: what a busy
//   gateway counts in less than ten seconds), encoded as its mover encodes them and put in Redis,
//   the shared place of a fleet, all before anything is timed. One builder's intake
//   (records/usage/usage-intake.ts) then counts each hour's batches in one round: each round is
//   timed, and the day.
// scheduled: a platform of 10,000 organizations (BENCH_ORGANIZATIONS) built once into a directory
//   store (bench/build-child.ts, wired like `marquee build`); each organization is one event of two
//   sessions, because a scheduled run with nothing changed reads no organization's rows (one
//   statement over versions, builder/platform/versions.ts). The day is written in stretches: a
//   scheduled run with nothing changed alone, then another while the intake counts hour after hour
//   until that run has finished, so each pair's runs are seconds apart. Target: beside the writing,
//   ≤ 1 s (the median; the slowest and the ratio to the runs alone are printed).
// reads: one key with 90 days of hourly rows (three outcomes an hour, two refused origins, counted
//   through countBatches), beside the day's 100,000 keys and 90 days of 1,000 other keys (inserted
//   directly), then ANALYZE as autovacuum would: 30 rounds of each read, in rotated order — the
//   key's 90 days by day and by hour (readUsage, as `keys usage` reads them), its organization's
//   90 days by day, and the last 24 hours' requests per key (requestsSince, as `keys list` reads
//   them) over every key and of one organization. Target: p95 < 50 ms each.
// gateway: `marquee serve` over that store with GATEWAY_CACHE_MB at its default and a key in Redis
//   for each of the 100,000 keys, ten to an organization, a builder's intake counting beside it;
//   each key's /organization asked once, 8 at once. Its RSS and its usage metrics, sampled from
//   /metrics every 250 ms. Targets: RSS ≤ 256 MB, peak included (bench:build:scale's at 100,000
//   organizations); the counts held ≤ their half of the usage budget (2 % of GATEWAY_CACHE_MB);
//   nothing dropped; and, once it has stopped, every key counted once in PostgreSQL. Last, what one
//   move interval can hold when nothing is moved (the shared place unreachable): the gateway's tally
//   at the default budget, 100,000 keys counted and never taken — how many it keeps, how many it
//   drops, and (with --expose-gc, as the npm script runs it) the heap it takes per key kept.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { Pool } from 'undici';
import { migrate } from '../builder/platform/migrations.ts';
import { openRedisKeyStore } from '../gateway/access/redis-access.ts';
import { cacheBudgets, DEFAULT_CACHE_BYTES } from '../gateway/cache-budget.ts';
import { ROUTE_NAMES } from '../gateway/route-label.ts';
import { type CountedKey, UsageTally } from '../gateway/usage/usage-tally.ts';
import { openPostgres } from '../records/database/postgres.ts';
import type { SqlClient } from '../records/database/sql.ts';
import { migrateMarquee } from '../records/schema/migrate.ts';
import { RedisUsageSpool } from '../records/usage/redis-usage-spool.ts';
import { encodeBatch, HOUR_MS, hourOf, type RequestCount, type UsageBatch } from '../records/usage/usage-batch.ts';
import { UsageIntake } from '../records/usage/usage-intake.ts';
import type { UsageInbox, WaitingBatch } from '../records/usage/usage-spool.ts';
import { countBatches, readUsage, requestsSince } from '../records/usage/usage-store.ts';
import type { Log } from '../runtime/log.ts';
import { closeRedis, connectRedis } from '../runtime/redis-connection.ts';
import { marqueeProcess } from '../test/support/cli.ts';
import { startPostgres } from '../test/support/postgres.ts';
import { startRedis } from '../test/support/redis.ts';
import { reportChecks } from './checks.ts';
import { machine } from './machine.ts';
import { type MeasuredBuild, measuredBuild } from './measured-build.ts';
import { memoryOf } from './process-usage.ts';
import { generateSyntheticPlatform } from './synthetic-platform.ts';

const KEYS = Number(process.env.BENCH_USAGE_KEYS ?? 100_000);
const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 10_000);
const DAY_HOURS = 24;
const RETENTION_DAYS = 90;
/** Other keys with 90 days of rows, beside the day's: a background the measured key's reads must find their way through. */
const BACKGROUND_KEYS = 1_000;
const READ_ROUNDS = 30;
const READ_TARGET_MS = 50;
const SCHEDULED_TARGET_MS = 1_000;
/** bench:build:scale's gateway target at 100,000 organizations. */
const GATEWAY_RSS_TARGET_MB = 256;
const GATEWAY_CONCURRENCY = 8;
const SAMPLE_MS = 250;
const ADMIN_TOKEN = 'bench-usage-admin-token';
/** A gateway's usage budget at the default GATEWAY_CACHE_MB: half for the counts, half for the batches held. */
const USAGE_BUDGET = cacheBudgets(DEFAULT_CACHE_BYTES).usage;
const API_ROUTES = ROUTE_NAMES.filter((name) => name.startsWith('/api/'));

const quiet: Log = { info: () => {}, warn: (message) => console.error(message), error: (message, fields) => console.error(message, fields) };
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const load = () => `load ${loadavg()[0]!.toFixed(1)}`;
const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};
const median = (values: readonly number[]) => percentile(values, 50);

// ---- the day's batches, as a gateway makes them --------------------------------------------------

/** `key_` and 12 characters, as generateKeyId makes them; numbered, so that every run counts the same keys. */
const keyIdOf = (index: number) => `key_${String(index).padStart(12, '0')}`;

/**
 * One hour of every key's requests (a 200 each, a 304 too for every other key, on one route per
 * key), counted by a gateway's tally at the default budget and taken whenever it asks for an early
 * move, as its mover takes it: the batches one busy gateway hands over for that hour.
 */
function hourBatches(hour: number, keys: readonly CountedKey[], gatewayId: string): WaitingBatch[] {
  let pressed = false;
  const tally = new UsageTally({ maxBytes: USAGE_BUDGET / 2, clock: () => hour, onPressure: () => (pressed = true) });
  const batches: WaitingBatch[] = [];
  const move = () => {
    const id = `${gatewayId}.${batches.length + 1}`;
    batches.push({ id, payload: encodeBatch({ id, ...tally.take() }) });
    pressed = false;
  };
  keys.forEach((key, index) => {
    const route = API_ROUTES[index % API_ROUTES.length]!;
    tally.count(key, route, 200, '', undefined);
    if (index % 2 === 1) tally.count(key, route, 304, '', undefined);
    if (pressed) move();
  });
  if (tally.bytes > 0) move();
  if (tally.dropped > 0) throw new Error(`the tally dropped ${tally.dropped} counts while making the batches`);
  return batches;
}

/** The intake's side of one hour's spool at a time: one builder's intake takes the day hour by hour. */
function hourByHour(spools: readonly RedisUsageSpool[]): { inbox: UsageInbox; select(hour: number): void } {
  let current = spools[0]!;
  return {
    inbox: { waiting: (limit) => current.waiting(limit), countWaiting: () => current.countWaiting(), markCounted: (ids) => current.markCounted(ids) },
    select: (hour) => void (current = spools[hour]!),
  };
}

// ---- the scheduled runs beside the writing -------------------------------------------------------

interface HourWritten {
  hour: number;
  ms: number;
  batches: number;
  counts: number;
  /** A scheduled run was running beside this hour's round. */
  beside: boolean;
}

interface DayWritten {
  hours: HourWritten[];
  alone: MeasuredBuild[];
  beside: MeasuredBuild[];
  /** Scheduled runs that outlasted the day's writing (left out of the verdict). */
  outlasted: number;
}

/**
 * The day, in stretches: a scheduled run alone, then one started with the next hour's round and
 * kept company by rounds of the following hours until it has finished. Each round counts one
 * hour's batches, checked all added.
 */
async function writeDay(intake: UsageIntake, select: (hour: number) => void, hourly: readonly number[], countsPerHour: number, env: NodeJS.ProcessEnv): Promise<DayWritten> {
  const day: DayWritten = { hours: [], alone: [], beside: [], outlasted: 0 };
  const countHour = async (hour: number, beside: boolean) => {
    select(hour);
    const started = performance.now();
    const round = await intake.round();
    const ms = performance.now() - started;
    if (round === undefined || round.added !== hourly[hour]) throw new Error(`hour ${hour}: the intake added ${round?.added} of ${hourly[hour]} batches`);
    day.hours.push({ hour, ms, batches: round.added, counts: countsPerHour, beside });
  };
  let hour = 0;
  while (hour < hourly.length) {
    day.alone.push(await measuredBuild(env, 'scheduled'));
    let finished = false;
    const run = measuredBuild(env, 'scheduled').finally(() => (finished = true));
    // Caught here, thrown by the await below: a failed run must not be an unhandled rejection meanwhile.
    run.catch(() => {});
    do await countHour(hour++, !finished);
    while (!finished && hour < hourly.length);
    const outlasted = !finished;
    const measured = await run;
    if (outlasted) day.outlasted++;
    else day.beside.push(measured);
  }
  return day;
}

// ---- a key's 90 days, and the reads ------------------------------------------------------------

/** The measured key's 90 days: a 200, a 304 and a refused origin's 403 every hour, from two origins, in batches of a day. */
function ninetyDays(key: CountedKey, lastHour: number): UsageBatch[] {
  const batches: UsageBatch[] = [];
  for (let day = 0; day < RETENTION_DAYS; day++) {
    const counts: RequestCount[] = [];
    const origins: UsageBatch['origins'][number][] = [];
    for (let h = 0; h < 24; h++) {
      const hour = lastHour - (day * 24 + h) * HOUR_MS;
      const count = (status: number, errorCode: string, requests: number) =>
        counts.push({ keyId: key.id, organizationId: key.organizationId, hour, route: '/api/integration/v1/events', status, errorCode, requests });
      count(200, '', 40 + h);
      count(304, '', 12);
      count(403, 'API_KEY_ORIGIN_NOT_ALLOWED', 3);
      origins.push({ keyId: key.id, organizationId: key.organizationId, hour, origin: 'https://copy.example', requests: 2 });
      origins.push({ keyId: key.id, organizationId: key.organizationId, hour, origin: 'https://other.example', requests: 1 });
    }
    batches.push({ id: `bench-ninety-days.${day}`, counts, origins });
  }
  return batches;
}

/** 90 days of one 200 an hour for each of BACKGROUND_KEYS other keys, inserted directly: background, not the measured write. */
async function background(db: SqlClient, lastHour: number, organizationIds: readonly string[]): Promise<number> {
  const rows = await db.query<{ n: string }>(
    `WITH inserted AS (
       INSERT INTO marquee_key_usage (key_id, hour, route, status, error_code, organization_id, requests)
       SELECT 'key_bg' || lpad(k::text, 8, '0'), to_timestamp($1::float8 / 1000) - make_interval(hours => h), '/api/integration/v1/events', 200, '', ($2::text[])[1 + k % array_length($2::text[], 1)], 1 + h % 7
       FROM generate_series(0, $3::int - 1) AS k, generate_series(0, $4::int - 1) AS h
       RETURNING 1)
     SELECT count(*) AS n FROM inserted`,
    [lastHour, organizationIds, BACKGROUND_KEYS, RETENTION_DAYS * 24],
  );
  return Number(rows[0]!.n);
}

interface ReadTimes {
  name: string;
  ms: number[];
  /** What the last read returned, to show it read what it should. */
  found: string;
}

async function timeReads(db: SqlClient, key: CountedKey, now: number): Promise<ReadTimes[]> {
  const until = new Date(hourOf(now) + HOUR_MS);
  const ninety = new Date(until.getTime() - RETENTION_DAYS * 24 * HOUR_MS);
  const dayStart = (date: Date) => new Date(date.getTime() - (date.getTime() % (24 * HOUR_MS)));
  const lastDay = new Date(now - 24 * HOUR_MS);
  const reads: Array<{ name: string; read: () => Promise<string> }> = [
    {
      name: "one key's 90 days by day (readUsage, `keys usage --since 90d`)",
      read: async () => `${(await readUsage(db, { keyId: key.id }, { since: dayStart(ninety), until, by: 'day' })).requests} requests`,
    },
    {
      name: "one key's 90 days by hour (readUsage, 2,160 buckets)",
      read: async () => `${(await readUsage(db, { keyId: key.id }, { since: ninety, until, by: 'hour' })).series.length} buckets`,
    },
    {
      name: "its organization's 90 days by day (readUsage, the console's page)",
      read: async () => `${(await readUsage(db, { organizationId: key.organizationId }, { since: dayStart(ninety), until, by: 'day' })).keys.length} keys`,
    },
    { name: 'requests per key, last 24 hours, every key (requestsSince, `keys list`)', read: async () => `${(await requestsSince(db, lastDay)).size} keys` },
    {
      name: 'requests per key, last 24 hours, one organization (requestsSince, `keys list --org`)',
      read: async () => `${(await requestsSince(db, lastDay, key.organizationId)).size} keys`,
    },
  ];
  const times: ReadTimes[] = reads.map(({ name }) => ({ name, ms: [], found: '' }));
  for (let round = 0; round < READ_ROUNDS; round++) {
    for (let i = 0; i < reads.length; i++) {
      const at = (i + round) % reads.length;
      const started = performance.now();
      const found = await reads[at]!.read();
      times[at]!.ms.push(performance.now() - started);
      times[at]!.found = found;
    }
  }
  return times;
}

// ---- the gateway with 100,000 keys ------------------------------------------------------------

interface UsageSample {
  rss: number;
  usageBytes: number;
  pending: number;
  dropped: number;
}

interface GatewayUsage {
  keys: number;
  answered: number;
  servedMs: number;
  samples: UsageSample[];
  after: { rss: number; peak: number };
  counted: { keys: number; requests: number };
  dropped: number;
  budget: number;
}

/** The usage metrics and the RSS of a running gateway. */
async function sample(admin: string, pid: number): Promise<UsageSample> {
  const text = await (await fetch(`${admin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    rss: memoryOf(pid).rss,
    usageBytes: value('marquee_gateway_usage_bytes'),
    pending: value('marquee_gateway_usage_batches_pending'),
    dropped: value('marquee_gateway_usage_dropped_total'),
  };
}

async function createKeys(redisUrl: string, organizationIds: readonly string[]): Promise<Array<{ id: string; secret: string }>> {
  const store = await openRedisKeyStore({ url: redisUrl });
  try {
    const keys: Array<{ id: string; secret: string }> = [];
    for (let i = 0; i < KEYS; i += 100) {
      const made = await Promise.all(
        Array.from({ length: Math.min(100, KEYS - i) }, (_, j) =>
          store.keys.create({ organizationId: organizationIds[(i + j) % organizationIds.length]!, label: 'bench', origins: [] }),
        ),
      );
      keys.push(...made.map(({ record, secret }) => ({ id: record.id, secret })));
    }
    return keys;
  } finally {
    await store.close();
  }
}

async function gatewayWithKeys(db: SqlClient, redis: Redis, env: NodeJS.ProcessEnv, redisUrl: string, organizationIds: readonly string[]): Promise<GatewayUsage> {
  let started = performance.now();
  const keys = await createKeys(redisUrl, organizationIds);
  console.log(`${keys.length} keys in Redis, ${KEYS / organizationIds.length} to an organization, in ${seconds(performance.now() - started)}`);
  const serveEnv = Object.fromEntries(
    Object.entries({ ...env, REDIS_URL: redisUrl, PORT: '0', ADMIN_PORT: '0', ADMIN_TOKEN, LOG_FORMAT: 'json' }).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
  const gateway = await marqueeProcess(['serve'], serveEnv, /"admin":"(http:\/\/[^"]+)".*?gateway listening on (http:\/\/\S+),/, { readyTimeoutMs: 120_000 });
  const admin = gateway.match[1]!;
  const pid = gateway.child.pid!;
  // A builder's intake beside it, as in production: what the gateway moved is counted and settled.
  const intake = new UsageIntake(db, new RedisUsageSpool(redis), { log: quiet, retentionDays: RETENTION_DAYS });
  intake.start();
  const samples: UsageSample[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      samples.push(await sample(admin, pid));
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
  })();
  const pool = new Pool(gateway.match[2]!, { connections: GATEWAY_CONCURRENCY });
  let answered = 0;
  let next = 0;
  started = performance.now();
  let servedMs: number;
  let after: GatewayUsage['after'];
  let dropped: number;
  try {
    await Promise.all(
      Array.from({ length: GATEWAY_CONCURRENCY }, async () => {
        for (let index = next++; index < keys.length; index = next++) {
          const response = await pool.request({ path: '/api/integration/v1/organization', method: 'GET', headers: { authorization: `Bearer ${keys[index]!.secret}` } });
          await response.body.dump();
          if (response.statusCode === 200) answered++;
        }
      }),
    );
    servedMs = performance.now() - started;
    sampling = false;
    await sampler;
    const last = await sample(admin, pid);
    samples.push(last);
    dropped = last.dropped;
    after = memoryOf(pid);
  } finally {
    sampling = false;
    await pool.close();
    // Stopping moves what the gateway still counts; the intake's last round counts it.
    await gateway.stop();
    await intake.stop();
  }
  const [counted] = await db.query<{ keys: string; requests: string }>(
    `SELECT count(DISTINCT key_id) AS keys, coalesce(sum(requests), 0) AS requests FROM marquee_key_usage WHERE key_id = ANY($1::text[])`,
    [keys.map((key) => key.id)],
  );
  return { keys: keys.length, answered, servedMs, samples, after, counted: { keys: Number(counted!.keys), requests: Number(counted!.requests) }, dropped, budget: USAGE_BUDGET };
}

/** What the gateway's tally holds when nothing moves it: 100,000 keys counted, never taken. */
function unmoved(): { kept: number; dropped: number; bytes: number; heapPerKey: number | undefined } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const tally = new UsageTally({ maxBytes: USAGE_BUDGET / 2 });
  const organization = '00000000-0000-4000-8000-000000000000';
  for (let i = 0; i < KEYS; i++) tally.count({ id: `key_u${String(i).padStart(11, '0')}`, organizationId: organization }, '/api/integration/v1/organization', 200, '', undefined);
  gc?.();
  const grown = process.memoryUsage().heapUsed - before;
  const kept = KEYS - tally.dropped;
  const result = { kept, dropped: tally.dropped, bytes: tally.bytes, heapPerKey: gc === undefined ? undefined : grown / kept };
  // Kept alive until measured.
  tally.take();
  return result;
}

// ---- the run ----------------------------------------------------------------------------------

console.log(`bench:usage — ${machine()}, ${load()}`);
const [postgres, redisServer] = await Promise.all([startPostgres(), startRedis({ appendfsync: 'everysec' })]);
const work = await mkdtemp(join(tmpdir(), 'marquee-bench-usage-'));
const redis = await connectRedis(redisServer.url, { maxRetriesPerRequest: 1 });
const db = await openPostgres(postgres.url);
try {
  await migrate(db);
  await migrateMarquee(db);
  let started = performance.now();
  await generateSyntheticPlatform(db, {
    organizations: ORGANIZATIONS,
    eventsPerOrganization: 1,
    sessionsPerEvent: 2,
    speakersPerOrganization: 2,
    sponsorsPerOrganization: 1,
    teamMembersPerOrganization: 1,
    sponsorsPerEvent: 1,
    registrationsPerEvent: 1,
  });
  const organizationIds = (await db.query<{ id: string }>(`SELECT id FROM organizations WHERE status = 'active' ORDER BY id`)).map((row) => row.id);
  console.log(`synthetic platform: ${ORGANIZATIONS} organizations generated in ${seconds(performance.now() - started)}, ${organizationIds.length} active`);
  const env = { ...process.env, DATABASE_URL: postgres.url, SNAPSHOT_STORE: join(work, 'snapshots'), MARQUEE_HOME: work };
  const full = await measuredBuild(env, 'build');
  console.log(`full build: ${seconds(full.wallMs)}, ${full.organizations} organizations, ${load()}`);

  // The day: hours ending with the current one, so that `keys list`'s last 24 hours is this day.
  const now = Date.now();
  const lastHour = hourOf(now);
  const keys: CountedKey[] = Array.from({ length: KEYS }, (_, i) => ({ id: keyIdOf(i), organizationId: organizationIds[i % organizationIds.length]! }));
  started = performance.now();
  const spools = Array.from({ length: DAY_HOURS }, (_, h) => new RedisUsageSpool(redis, { namespace: `bench-usage:h${h}:` }));
  // Only how many: the payloads (400 MB a day at 100,000 keys) are Redis's to hold, not this
  // process's, whose heap would otherwise slow its own intake rounds and reads with collections.
  const hourly: number[] = [];
  let payloadBytes = 0;
  for (let h = 0; h < DAY_HOURS; h++) {
    const batches = hourBatches(lastHour - (DAY_HOURS - 1 - h) * HOUR_MS, keys, `bench-gateway-h${h}`);
    for (const batch of batches) await spools[h]!.put(batch);
    hourly.push(batches.length);
    payloadBytes += batches.reduce((sum, batch) => sum + batch.payload.length, 0);
  }
  const countsPerHour = KEYS + Math.floor(KEYS / 2);
  const batchCount = hourly.reduce((sum, n) => sum + n, 0);
  console.log(
    `the day's batches: ${batchCount} (${hourly[0]} an hour) of ${Math.round((countsPerHour * DAY_HOURS) / batchCount)} counts and ${(payloadBytes / batchCount / 1024).toFixed(0)} KB each on average, put in Redis in ${seconds(performance.now() - started)}, ${load()}`,
  );

  const hours = hourByHour(spools);
  const intake = new UsageIntake(db, hours.inbox, { log: quiet, retentionDays: RETENTION_DAYS });
  const day = await writeDay(intake, hours.select, hourly, countsPerHour, env);
  const [{ rows: dayRows }] = (await db.query<{ rows: string }>(`SELECT count(*) AS rows FROM marquee_key_usage`)) as [{ rows: string }];
  const dayMs = day.hours.reduce((sum, hour) => sum + hour.ms, 0);
  const hourMs = day.hours.map((hour) => hour.ms);
  console.log(`\nintake: a day of ${KEYS} keys, ${countsPerHour} counts an hour, ${dayRows} rows after the day; ${load()}`);
  console.log('\n| hour | batches | round | scheduled run beside |\n|---|---|---|---|');
  for (const hour of day.hours) console.log(`| ${hour.hour + 1} | ${hour.batches} | ${seconds(hour.ms)} | ${hour.beside ? 'yes' : 'no'} |`);
  console.log(`\nthe day: ${seconds(dayMs)} of rounds; an hour's round p50 ${seconds(median(hourMs))}, slowest ${seconds(Math.max(...hourMs))}`);
  const alone = day.alone.map((run) => run.wallMs);
  const beside = day.beside.map((run) => run.wallMs);
  const scheduledMedian = beside.length > 0 ? median(beside) : Number.NaN;
  console.log(
    `scheduled run, nothing changed, ${ORGANIZATIONS} organizations: alone p50 ${seconds(median(alone))} (slowest ${seconds(Math.max(...alone))}, ${alone.length} runs, ${alone.filter((ms) => ms > SCHEDULED_TARGET_MS).length} over 1 s); ` +
      `beside the writing p50 ${seconds(scheduledMedian)} (slowest ${seconds(Math.max(...beside))}, ${beside.length} runs, ${beside.filter((ms) => ms > SCHEDULED_TARGET_MS).length} over 1 s, ${day.outlasted} outlasted the writing); ratio of medians ${(scheduledMedian / median(alone)).toFixed(2)}×`,
  );
  console.log(`  alone: ${alone.map(seconds).join(', ')}\n  beside: ${beside.map(seconds).join(', ')}`);

  started = performance.now();
  const backgroundRows = await background(db, lastHour, organizationIds);
  const measuredKey = keys[0]!;
  await countBatches(db, ninetyDays(measuredKey, lastHour));
  await db.exec('ANALYZE marquee_key_usage, marquee_key_usage_origins');
  const [{ rows: allRows }] = (await db.query<{ rows: string }>(`SELECT count(*) AS rows FROM marquee_key_usage`)) as [{ rows: string }];
  console.log(
    `\nreads: ${backgroundRows} background rows (90 days of ${BACKGROUND_KEYS} keys) and the key's 90 days written in ${seconds(performance.now() - started)}; ${allRows} rows in all; ${load()}`,
  );
  const reads = await timeReads(db, measuredKey, now);
  console.log(`\n| read (${READ_ROUNDS} each, interleaved) | p50 | p95 | found |\n|---|---|---|---|`);
  for (const read of reads) console.log(`| ${read.name} | ${percentile(read.ms, 50).toFixed(1)} ms | ${percentile(read.ms, 95).toFixed(1)} ms | ${read.found} |`);
  console.log(load());

  console.log(`\ngateway: marquee serve, keys in Redis, GATEWAY_CACHE_MB at its default (usage budget ${(USAGE_BUDGET / 1024).toFixed(0)} KB), ${load()}`);
  const gateway = await gatewayWithKeys(db, redis, env, redisServer.url, organizationIds);
  const maxOf = (pick: (s: UsageSample) => number) => Math.max(...gateway.samples.map(pick));
  const peakRss = Math.max(
    gateway.after.peak,
    maxOf((s) => s.rss),
  );
  console.log(
    `${gateway.keys} keys' /organization once each, ${GATEWAY_CONCURRENCY} at once, in ${seconds(gateway.servedMs)} (${((gateway.keys / gateway.servedMs) * 1000).toFixed(0)}/s); answered 200: ${gateway.answered}; ${load()}`,
  );
  console.log(
    `RSS after ${gateway.after.rss.toFixed(0)} MB, peak ${peakRss.toFixed(0)} MB; usage counts held at most ${(maxOf((s) => s.usageBytes) / 1024).toFixed(0)} KB of ${(USAGE_BUDGET / 2 / 1024).toFixed(0)} KB; ` +
      `batches pending at most ${maxOf((s) => s.pending)}; dropped ${gateway.dropped}; counted in PostgreSQL: ${gateway.counted.keys} keys, ${gateway.counted.requests} requests (${gateway.samples.length} samples)`,
  );
  const held = unmoved();
  console.log(
    `nothing moved (the shared place unreachable): of ${KEYS} keys the tally keeps ${held.kept} (${(held.bytes / 1024).toFixed(0)} KB estimated` +
      `${held.heapPerKey === undefined ? '' : `, ${held.heapPerKey.toFixed(0)} B of heap a key measured against ${(held.bytes / held.kept).toFixed(0)} B estimated`}) and drops ${held.dropped}`,
  );

  reportChecks([
    [`scheduled run, nothing changed, ${ORGANIZATIONS} organizations, beside the intake's writing: ≤ 1 s (median of ${beside.length})`, scheduledMedian <= SCHEDULED_TARGET_MS],
    ['every scheduled run read and built no organization', [...day.alone, ...day.beside].every((run) => run.organizations === 0)],
    ...reads.map((read) => [`${read.name}: p95 < ${READ_TARGET_MS} ms`, percentile(read.ms, 95) < READ_TARGET_MS] as const),
    [`gateway RSS ≤ ${GATEWAY_RSS_TARGET_MB} MB, peak included, ${gateway.keys} keys used once`, peakRss <= GATEWAY_RSS_TARGET_MB],
    [`gateway usage counts ≤ half the usage budget (${(USAGE_BUDGET / 2 / 1024).toFixed(0)} KB)`, maxOf((s) => s.usageBytes) <= USAGE_BUDGET / 2],
    ['gateway dropped no count', gateway.dropped === 0],
    [
      `every key answered and counted once (${gateway.counted.keys} keys, ${gateway.counted.requests} requests)`,
      gateway.answered === gateway.keys && gateway.counted.keys === gateway.keys && gateway.counted.requests === gateway.keys,
    ],
  ]);
} finally {
  await db.close();
  await closeRedis(redis);
  await Promise.all([postgres.stop(), redisServer.stop()]);
  await rm(work, { recursive: true, force: true });
}
