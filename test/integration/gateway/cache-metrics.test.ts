// The gateway's bounded caches as an operator sees them: through the admin port's real /metrics
// (createAdminApp over HTTP, with the token, as `marquee serve` serves it), each cache's lookups by
// result, its evictions, the bytes it holds and its budget, with a budget small enough that serving
// a handful of organizations evicts the least recently used ones.
import { createServer } from 'node:http';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAdminApp } from '../../../admin/app.ts';
import { cacheBudgets } from '../../../gateway/cache-budget.ts';
import { gatewayMetrics } from '../../../gateway/metrics.ts';
import { listenHttp, type ListeningServer } from '../../../runtime/http-server.ts';
import { API, type GatewayHarness, publishFixture, RecordingLog, startHarness } from '../../support/gateway-fixtures.ts';
import { fixtureUuid, PlatformFixture } from '../../support/platform-fixture.ts';

const TOKEN = 'cache-metrics-admin-token';
/** Room for about three organizations' pointers and manifests (a budget no operator could set: GATEWAY_CACHE_MB starts at 16). */
const CACHE_BYTES = 40_000;
const ORGANIZATIONS = 8;

let harness: GatewayHarness;
let admin: ListeningServer;
const keys: string[] = [];

beforeAll(async () => {
  const registry = new Registry();
  harness = await startHarness({ deps: { metrics: gatewayMetrics(registry), limits: { cacheBytes: CACHE_BYTES } } });
  admin = await listenHttp(createServer(createAdminApp({ token: TOKEN, registry, readiness: () => harness.gateway.readiness.report(), log: new RecordingLog() })), {
    host: '127.0.0.1',
    port: 0,
  });
  for (let n = 0; n < ORGANIZATIONS; n++) {
    const fixture = new PlatformFixture({ id: fixtureUuid(5_000 + n), slug: `org-${n}`, name: `Organization ${n}` });
    fixture.event({ id: fixtureUuid(6_000 + n), slug: `event-${n}` });
    await publishFixture(harness.store, fixture);
    keys.push(await harness.keyFor(fixture.organization.id));
  }
});

afterAll(async () => {
  await admin?.close();
  await harness?.close();
});

/** The admin port's /metrics as name{labels} → value. */
async function scrape(): Promise<Map<string, number>> {
  const response = await fetch(`${admin.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    const match = /^(marquee_gateway_cache_\w+\{[^}]*\}) (\S+)$/.exec(line);
    if (match) samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

it('reports every cache with its budget, a share of the total, and nothing held or looked up before a request', async () => {
  const samples = await scrape();
  const budgets = cacheBudgets(CACHE_BYTES);
  for (const cache of ['snapshots', 'objects', 'views', 'parsed_keys', 'origins'] as const) {
    expect(samples.get(`marquee_gateway_cache_budget_bytes{cache="${cache}"}`), cache).toBe(budgets[cache]);
    expect(samples.get(`marquee_gateway_cache_bytes{cache="${cache}"}`), cache).toBe(0);
    expect(samples.get(`marquee_gateway_cache_evictions_total{cache="${cache}"}`), cache).toBe(0);
  }
  expect(samples.get('marquee_gateway_cache_lookups_total{cache="objects",result="hit"}')).toBe(0);
});

it('counts hits and misses, and past its budget evicts the least recently used organizations, never holding more than the budget', async () => {
  const budget = cacheBudgets(CACHE_BYTES).snapshots;
  // Each organization once: more than the budget holds.
  for (const key of keys) expect((await harness.call(`${API}/organization`, { key })).status).toBe(200);
  const filled = await scrape();
  expect(filled.get('marquee_gateway_cache_lookups_total{cache="objects",result="miss"}')).toBe(ORGANIZATIONS);
  expect(filled.get('marquee_gateway_cache_evictions_total{cache="snapshots"}')).toBeGreaterThan(0);
  const held = filled.get('marquee_gateway_cache_bytes{cache="snapshots"}')!;
  expect(held).toBeGreaterThan(0);
  expect(held).toBeLessThanOrEqual(budget);

  // The latest organization is still held: a hit. The first was evicted: read again, a miss.
  const before = filled.get('marquee_gateway_cache_lookups_total{cache="snapshots",result="miss"}')!;
  expect((await harness.call(`${API}/organization`, { key: keys.at(-1)! })).status).toBe(200);
  expect((await scrape()).get('marquee_gateway_cache_lookups_total{cache="snapshots",result="miss"}')).toBe(before);
  expect((await harness.call(`${API}/organization`, { key: keys[0]! })).status).toBe(200);
  const after = await scrape();
  expect(after.get('marquee_gateway_cache_lookups_total{cache="snapshots",result="miss"}')).toBe(before + 1);
  expect(after.get('marquee_gateway_cache_lookups_total{cache="objects",result="hit"}')).toBeGreaterThanOrEqual(1);
  expect(after.get('marquee_gateway_cache_bytes{cache="snapshots"}')).toBeLessThanOrEqual(budget);
});
