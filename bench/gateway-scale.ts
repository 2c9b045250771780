// bench:build:scale's gateway part: `marquee serve` over the store the bench built (keys in Redis,
// as in production; GATEWAY_CACHE_MB at its default), asked round-robin for every organization's
// /organization with a key each, twice over; its resident memory read after 20,000 organizations
// and after all of them (issue target: ≤ 256 MB at 100,000; before the caches were bounded by
// bytes, 298 MB at 20,000). Then a gateway serving the 1,000 hottest organizations: a new one at
// the default budget against a reference of the same build whose budget is so large that nothing
// is ever evicted (what the gateway did before, for a working set of 1,000), both warmed, in
// rounds alternating which goes first, judged on the median of the rounds' ratios (target: within
// 5 %). Both are new so that neither carries the other's history: the one that served every
// organization holds a heap full of them, which is the memory target's business, not this one's.
import { Pool } from 'undici';
import { openRedisKeyStore } from '../gateway/access/redis-access.ts';
import { marqueeProcess } from '../test/support/cli.ts';
import { memoryOf } from './process-usage.ts';

/** Requests in flight to a gateway at once. */
const GATEWAY_CONCURRENCY = 8;
/** The first RSS reading: where the bench read it before the caches were bounded by bytes. */
const FIRST_READING = 20_000;
export const HOT = 1_000;
/** Rounds of the hot comparison (each gateway once per round, alternating which goes first), and each one's length. */
const HOT_ROUNDS = 8;
const HOT_ROUND_MS = 5_000;
/** The reference's budget: more than 1,000 organizations could ever fill. */
const UNBOUNDED_CACHE_MB = '16384';
const ADMIN_TOKEN = 'bench-platform-scale-admin-token';

interface ServingGateway {
  pool: Pool;
  admin: string;
  pid: number;
  stop(): Promise<void>;
}

/** A `marquee serve` over the store; `extra` adds variables (GATEWAY_CACHE_MB). */
async function serveGateway(env: NodeJS.ProcessEnv, redisUrl: string, extra: Record<string, string> = {}): Promise<ServingGateway> {
  const serveEnv = Object.fromEntries(
    Object.entries({ ...env, REDIS_URL: redisUrl, PORT: '0', ADMIN_PORT: '0', ADMIN_TOKEN, LOG_FORMAT: 'json', ...extra }).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
  const gateway = await marqueeProcess(['serve'], serveEnv, /"admin":"(http:\/\/[^"]+)".*?gateway listening on (http:\/\/\S+),/, { readyTimeoutMs: 120_000 });
  const pool = new Pool(gateway.match[2]!, { connections: GATEWAY_CONCURRENCY });
  return {
    pool,
    admin: gateway.match[1]!,
    pid: gateway.child.pid!,
    stop: async () => {
      await pool.close();
      await gateway.stop();
    },
  };
}

async function organization(gateway: ServingGateway, key: string): Promise<number> {
  const response = await gateway.pool.request({ path: '/api/integration/v1/organization', method: 'GET', headers: { authorization: `Bearer ${key}` } });
  await response.body.dump();
  return response.statusCode;
}

/** Each key's /organization once, GATEWAY_CONCURRENCY at once, in order; `at(n)` after the n-th answer. How many answered 200. */
async function roundRobin(gateway: ServingGateway, keys: readonly string[], at: (served: number) => void = () => {}): Promise<number> {
  let answered = 0;
  let done = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: GATEWAY_CONCURRENCY }, async () => {
      for (let index = next++; index < keys.length; index = next++) {
        if ((await organization(gateway, keys[index]!)) === 200) answered++;
        at(++done);
      }
    }),
  );
  return answered;
}

/** Requests per second answered 200 over `ms` of cycling through `keys`, and how many were not. */
async function throughput(gateway: ServingGateway, keys: readonly string[], ms: number): Promise<{ perSecond: number; failed: number }> {
  let answered = 0;
  let failed = 0;
  let next = 0;
  const started = performance.now();
  const until = started + ms;
  await Promise.all(
    Array.from({ length: GATEWAY_CONCURRENCY }, async () => {
      while (performance.now() < until) {
        if ((await organization(gateway, keys[next++ % keys.length]!)) === 200) answered++;
        else failed++;
      }
    }),
  );
  return { perSecond: answered / ((performance.now() - started) / 1000), failed };
}

/** What the gateway's own /metrics says of its heap and its caches: what its resident memory is made of. */
async function heapReport(gateway: ServingGateway): Promise<string> {
  const response = await fetch(`${gateway.admin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const text = await response.text();
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const sample = (name: string) =>
    Number(
      text
        .split('\n')
        .find((line) => line.startsWith(`${name} `))
        ?.split(' ')[1] ?? Number.NaN,
    );
  const byCache = (metric: string) =>
    [...text.matchAll(new RegExp(`^${metric}\\{cache="(\\w+)"\\} (\\S+)$`, 'gm'))].map(([, cache, value]) => [cache!, Number(value)] as const).filter(([, value]) => value > 0);
  const caches = byCache('marquee_gateway_cache_bytes').map(([cache, bytes]) => `${cache} ${mb(bytes)}`);
  const evictions = byCache('marquee_gateway_cache_evictions_total').map(([cache, count]) => `${cache} ${count}`);
  return `heap used ${mb(sample('nodejs_heap_size_used_bytes'))} MB of ${mb(sample('nodejs_heap_size_total_bytes'))}, external ${mb(sample('nodejs_external_memory_bytes'))} MB; cache bytes (MB): ${caches.join(', ')}; evictions: ${evictions.join(', ') || 'none'}`;
}

async function createKeys(redisUrl: string, organizationIds: readonly string[]): Promise<string[]> {
  const keyStore = await openRedisKeyStore({ url: redisUrl });
  try {
    const keys: string[] = [];
    for (let i = 0; i < organizationIds.length; i += 100) {
      const batch = organizationIds.slice(i, i + 100);
      keys.push(...(await Promise.all(batch.map(async (organizationId) => (await keyStore.keys.create({ organizationId, label: 'bench', origins: [] })).secret))));
    }
    return keys;
  } finally {
    await keyStore.close();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface GatewayScale {
  organizations: number;
  /** Answered 200 in the first and the second round. */
  answered: [number, number];
  firstRoundMs: number;
  /** RSS (MB) after serving that many organizations once each, and the heap behind it. */
  readings: Array<{ served: number; rss: number; heap: string }>;
  afterSecondRound: { rss: number; peak: number; heap: string };
  hot: { ratio: number; rounds: string[]; failed: number; boundedRss: number; referenceRss: number; heap: string };
}

export async function gatewayAtScale(env: NodeJS.ProcessEnv, redisUrl: string, organizationIds: readonly string[]): Promise<GatewayScale> {
  const keys = await createKeys(redisUrl, organizationIds);
  // The reference's own keys, so that the two gateways' requests never share a key's rate limit.
  const referenceKeys = await createKeys(redisUrl, organizationIds.slice(0, HOT));
  const roundRobinGateway = await serveGateway(env, redisUrl);
  let readings: GatewayScale['readings'];
  let answered: [number, number];
  let firstRoundMs: number;
  let afterSecondRound: GatewayScale['afterSecondRound'];
  try {
    ({ readings, answered, firstRoundMs, afterSecondRound } = await servedRoundRobin(roundRobinGateway, keys));
  } finally {
    await roundRobinGateway.stop();
  }
  const bounded = await serveGateway(env, redisUrl);
  const reference = await serveGateway(env, redisUrl, { GATEWAY_CACHE_MB: UNBOUNDED_CACHE_MB });
  try {
    const hotKeys = keys.slice(0, HOT);
    for (let i = 0; i < 2; i++) await Promise.all([roundRobin(bounded, hotKeys), roundRobin(reference, referenceKeys)]);
    const ratios: number[] = [];
    const rounds: string[] = [];
    let failed = 0;
    for (let round = 0; round < HOT_ROUNDS; round++) {
      let boundedRate = 0;
      let referenceRate = 0;
      for (const which of round % 2 === 0 ? ['bounded', 'reference'] : ['reference', 'bounded']) {
        const result = which === 'bounded' ? await throughput(bounded, hotKeys, HOT_ROUND_MS) : await throughput(reference, referenceKeys, HOT_ROUND_MS);
        if (which === 'bounded') boundedRate = result.perSecond;
        else referenceRate = result.perSecond;
        failed += result.failed;
      }
      ratios.push(boundedRate / referenceRate);
      rounds.push(`${boundedRate.toFixed(0)}/${referenceRate.toFixed(0)}`);
    }
    return {
      organizations: keys.length,
      answered,
      firstRoundMs,
      readings,
      afterSecondRound,
      hot: { ratio: median(ratios), rounds, failed, boundedRss: memoryOf(bounded.pid).rss, referenceRss: memoryOf(reference.pid).rss, heap: await heapReport(bounded) },
    };
  } finally {
    await Promise.all([bounded.stop(), reference.stop()]);
  }
}

/** Every key's /organization round-robin, twice: RSS after FIRST_READING and after all of the first round, and after the second. */
async function servedRoundRobin(bounded: ServingGateway, keys: readonly string[]) {
  const readings: GatewayScale['readings'] = [];
  let firstReading: Promise<void> = Promise.resolve();
  const started = performance.now();
  const first = await roundRobin(bounded, keys, (served) => {
    if (served !== FIRST_READING || served === keys.length) return;
    const rss = memoryOf(bounded.pid).rss;
    firstReading = heapReport(bounded).then((heap) => void readings.push({ served, rss, heap }));
  });
  const firstRoundMs = performance.now() - started;
  await firstReading;
  readings.push({ served: keys.length, rss: memoryOf(bounded.pid).rss, heap: await heapReport(bounded) });
  const second = await roundRobin(bounded, keys);
  const afterSecondRound = { ...memoryOf(bounded.pid), heap: await heapReport(bounded) };

  return { readings, answered: [first, second] as [number, number], firstRoundMs, afterSecondRound };
}

/** The gateway part of the report: a table of RSS readings and the hot comparison. */
export function printGatewayScale(result: GatewayScale): void {
  const mb = (value: number) => `${value.toFixed(0)} MB`;
  console.log(
    `\ngateway (marquee serve, keys in Redis, GATEWAY_CACHE_MB at its default): /organization of each of ${result.organizations} organizations round-robin, ${GATEWAY_CONCURRENCY} at once; first round in ${(result.firstRoundMs / 1000).toFixed(1)} s, answered 200: ${result.answered.join(' and ')} (two rounds)`,
  );
  console.log('\n| organizations served | gateway RSS | heap and caches (from its /metrics) |\n|---|---|---|');
  for (const reading of result.readings) console.log(`| ${reading.served} | ${mb(reading.rss)} | ${reading.heap} |`);
  console.log(`| ${result.organizations}, second round | ${mb(result.afterSecondRound.rss)} (peak ${mb(result.afterSecondRound.peak)}) | ${result.afterSecondRound.heap} |`);
  console.log(
    `\n${HOT} hottest organizations' /organization, ${HOT_ROUNDS} rounds of ${HOT_ROUND_MS / 1000} s per gateway, alternating; bounded/reference requests/s: ${result.hot.rounds.join(', ')}; median ratio ${result.hot.ratio.toFixed(3)}× (reference: GATEWAY_CACHE_MB=${UNBOUNDED_CACHE_MB}, nothing evicted; RSS ${mb(result.hot.boundedRss)} and ${mb(result.hot.referenceRss)}); answers other than 200: ${result.hot.failed}`,
  );
  console.log(`default-budget gateway after the hot rounds: ${result.hot.heap}`);
}
