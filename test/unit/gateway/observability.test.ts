// The gateway's request ids, metrics and failure log lines, driving createGateway (and, for the
// HTTP parser's refusals, startGateway) in-process: X-Request-Id on every kind of response and in
// every problem's instance, the Prometheus text it exposes, and what a 5xx writes to the log.
import { connect } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryRateLimiter } from '../../../gateway/access/in-memory-rate-limiter.ts';
import { gatewayMetrics } from '../../../gateway/metrics.ts';
import { startGateway } from '../../../gateway/server.ts';
import { type SnapshotSource, StoreUnavailableError } from '../../../snapshot/store.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { acmeFixture, API, type GatewayHarness, publishFixture, RecordingLog, startHarness } from '../../support/gateway-fixtures.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The Prometheus text format, line by line (HELP, TYPE, samples): every sample by its name and
 * sorted labels, e.g. `marquee_gateway_requests_total{route="/healthz",status="200"}`. Throws on
 * a line that is none of these, so a broken exposition fails the test.
 */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (comment) {
      if (comment[1] === 'TYPE') types.set(comment[2]!, comment[3]!);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*)\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/.exec(line);
    if (!sample) throw new Error(`not a line of the Prometheus text format: ${line}`);
    const labels = [...(sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => `${name}="${value}"`).sort();
    samples.set(labels.length ? `${sample[1]}{${labels.join(',')}}` : sample[1]!, Number(sample[3]));
  }
  expect(types.get('marquee_gateway_requests_total')).toBe('counter');
  expect(types.get('marquee_gateway_request_duration_seconds')).toBe('histogram');
  return samples;
}

const requests = (route: string, status: number) => `marquee_gateway_requests_total{route="${route}",status="${status}"}`;

async function scrape(registry: Registry): Promise<Map<string, number>> {
  return parseExposition(await registry.metrics());
}

let fixture: PlatformFixture;
let world: ReturnType<typeof acmeFixture>;

beforeAll(() => {
  fixture = new PlatformFixture();
  world = acmeFixture(fixture);
});

describe('request ids', () => {
  let harness: GatewayHarness;
  let key: string;

  beforeAll(async () => {
    harness = await startHarness();
    await publishFixture(harness.store, fixture);
    key = await harness.keyFor(fixture.organization.id);
  });
  afterAll(() => harness.close());

  it('are on every kind of response, new ones when the request sent none, different each time', async () => {
    const replies = [
      await harness.call(`${API}/organization`, { key }),
      await harness.call(`${API}/organization`, { key, headers: { 'if-none-match': '*' } }),
      await harness.call(`${API}/organization`, { key, method: 'HEAD' }),
      await harness.call(`${API}/organization`),
      await harness.call(`${API}/nowhere`, { key }),
      await harness.call(`${API}/organization`, { method: 'OPTIONS', headers: { origin: 'https://site.example', 'access-control-request-method': 'GET' } }),
      await harness.call('/healthz'),
      await harness.call('/openapi.json'),
      await harness.call('/docs/'),
      await harness.call('/nowhere'),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([200, 304, 200, 401, 404, 204, 200, 200, 200, 404]);
    for (const reply of replies) expect(reply.headers['x-request-id']).toMatch(UUID);
    expect(new Set(replies.map((reply) => reply.headers['x-request-id'])).size).toBe(replies.length);
  });

  it("take the request's own id when it is sane, and replace any other", async () => {
    const sane = 'edge-7f3a:42.1_x';
    expect((await harness.call(`${API}/organization`, { key, headers: { 'x-request-id': sane } })).headers['x-request-id']).toBe(sane);
    expect((await harness.call('/healthz', { headers: { 'x-request-id': sane } })).headers['x-request-id']).toBe(sane);
    const insane = '<img src=x onerror=alert(1)>';
    const reply = await harness.call(`${API}/organization`, { key, headers: { 'x-request-id': insane } });
    expect(reply.headers['x-request-id']).toMatch(UUID);
    expect(reply.body).not.toContain('onerror');
  });

  it("are in every problem's instance, after the path without its query", async () => {
    const sent = 'client-chosen-1';
    const own = await harness.call(`${API}/events/no-such-event?key=mqk_in_the_query`, { key, headers: { 'x-request-id': sent } });
    expect(own.status).toBe(404);
    expect(own.json()).toMatchObject({ errorCode: 'EVENT_NOT_FOUND', instance: `${API}/events/no-such-event#request=${sent}` });
    for (const [path, status] of [
      [`${API}/organization`, 401],
      ['/nowhere?x=1', 404],
    ] as const) {
      const reply = await harness.call(path);
      expect(reply.status).toBe(status);
      expect(reply.json<{ instance: string }>().instance).toBe(`${path.split('?')[0]}#request=${reply.headers['x-request-id']}`);
    }
  });

  it("are on the HTTP parser's refusals too, in the header and as the whole instance", async () => {
    const registry = new Registry();
    const gateway = await startGateway({
      port: 0,
      host: '127.0.0.1',
      snapshots: new MemoryStore(),
      keys: harness.keys,
      log: new RecordingLog(),
      metrics: gatewayMetrics(registry),
    });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(gateway.port, '127.0.0.1', () => socket.write('get / HTTP/1.1\r\nHost: x\r\n\r\n'));
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString()));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      const id = /\r\nX-Request-Id: ([^\r]+)\r\n/.exec(answer)?.[1];
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(id).toMatch(UUID);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ errorCode: 'BAD_REQUEST', instance: `#request=${id}` });
      expect((await scrape(registry)).get(requests('protocol', 400))).toBe(1);
    } finally {
      await gateway.close();
    }
  });
});

describe('metrics', () => {
  it('count responses by route template and status, time them by route, and count object-cache misses and hits in the one cache shape', async () => {
    const registry = new Registry();
    const harness = await startHarness({ deps: { metrics: gatewayMetrics(registry) } });
    try {
      await publishFixture(harness.store, fixture);
      const key = await harness.keyFor(fixture.organization.id);
      const before = await scrape(registry);
      expect(before.get(requests(`${API}/organization`, 200))).toBeUndefined();
      expect(before.get('marquee_gateway_cache_lookups_total{cache="objects",result="hit"}')).toBe(0);
      expect(before.get('marquee_gateway_rate_limited_total{limit="key"}')).toBe(0);

      for (let i = 0; i < 3; i++) expect((await harness.call(`${API}/organization`, { key })).status).toBe(200);
      const slug = world.conference.slug;
      expect((await harness.call(`${API}/events/${slug}`, { key })).status).toBe(200);
      expect((await harness.call(`${API}/events/another-slug`, { key })).status).toBe(404);
      expect((await harness.call(`${API}/events/${slug}/sessions`, { key })).status).toBe(200);
      expect((await harness.call(`${API}/organization`)).status).toBe(401);
      expect((await harness.call(`${API}/no/such/path`, { key })).status).toBe(404);
      expect((await harness.call('/healthz')).status).toBe(200);
      expect((await harness.call('/random-probe.php')).status).toBe(404);

      const after = await scrape(registry);
      expect(after.get(requests(`${API}/organization`, 200))).toBe(3);
      expect(after.get(requests(`${API}/organization`, 401))).toBe(1);
      // The template, never the slug: two slugs, one series per status.
      expect(after.get(requests(`${API}/events/{idOrSlug}`, 200))).toBe(1);
      expect(after.get(requests(`${API}/events/{idOrSlug}`, 404))).toBe(1);
      expect(after.get(requests(`${API}/events/{idOrSlug}/sessions`, 200))).toBe(1);
      expect(after.get(requests('unmatched', 404))).toBe(2);
      expect(after.get(requests('/healthz', 200))).toBe(1);
      expect([...after.keys()].filter((name) => name.includes(slug) || name.includes('another-slug') || name.includes('random-probe'))).toEqual([]);
      expect(after.get(`marquee_gateway_request_duration_seconds_count{route="${API}/organization"}`)).toBe(4);
      expect(after.get(`marquee_gateway_request_duration_seconds_bucket{le="+Inf",route="${API}/organization"}`)).toBe(4);
      expect(after.get(`marquee_gateway_request_duration_seconds_sum{route="${API}/organization"}`)).toBeGreaterThan(0);
      // /organization and the sessions: each read once from the store; /organization then served from memory twice.
      expect(after.get('marquee_gateway_cache_lookups_total{cache="objects",result="miss"}')).toBe(2);
      expect(after.get('marquee_gateway_cache_lookups_total{cache="objects",result="hit"}')).toBe(2);

      // Counts carry over from one scrape to the next.
      expect((await harness.call(`${API}/organization`, { key })).status).toBe(200);
      const again = await scrape(registry);
      expect(again.get(requests(`${API}/organization`, 200))).toBe(4);
      expect(again.get('marquee_gateway_cache_lookups_total{cache="objects",result="hit"}')).toBe(3);
    } finally {
      await harness.close();
    }
  });

  it("count 429s by limit: the key's own, and an address's invalid credentials", async () => {
    const registry = new Registry();
    const harness = await startHarness({ keyLimit: 2, deps: { metrics: gatewayMetrics(registry), authFailures: new InMemoryRateLimiter({ limit: 2, windowSeconds: 60 }) } });
    try {
      await publishFixture(harness.store, fixture);
      const key = await harness.keyFor(fixture.organization.id);
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await harness.call(`${API}/team`, { key })).status);
      for (let i = 0; i < 4; i++) statuses.push((await harness.call(`${API}/team`, { key: 'mqk_not-a-key' })).status);
      expect(statuses).toEqual([200, 200, 429, 401, 401, 429, 429]);
      const samples = await scrape(registry);
      expect(samples.get('marquee_gateway_rate_limited_total{limit="key"}')).toBe(1);
      expect(samples.get('marquee_gateway_rate_limited_total{limit="address"}')).toBe(2);
      expect(samples.get(requests(`${API}/team`, 429))).toBe(3);
    } finally {
      await harness.close();
    }
  });
});

/** Storage that answered the readiness probe, then became unreachable for every read. */
class Unreachable implements SnapshotSource {
  readonly description = 'unreachable';
  constructor(private readonly inner: MemoryStore) {}
  get(): Promise<never> {
    return Promise.reject(new StoreUnavailableError('connect ECONNREFUSED'));
  }
  getIfChanged(): Promise<never> {
    return this.get();
  }
  has(key: string) {
    return this.inner.has(key);
  }
}

describe('failed requests in the log', () => {
  it('a 500 logs one error line with the request id, route, status, duration and the error; a 4xx logs nothing', async () => {
    const store = new MemoryStore();
    const harness = await startHarness({ store });
    try {
      await publishFixture(store, fixture);
      const key = await harness.keyFor(fixture.organization.id);
      for (const entry of await store.list(`orgs/${fixture.organization.id}/objects/`)) {
        const bytes = (await store.get(entry))!;
        if (bytes.toString('utf8').includes('"publicUrl":"https://events.example.com/acme"')) await store.put(entry, Buffer.from('{"broken":true}'));
      }
      expect((await harness.call(`${API}/events/nope`, { key })).status).toBe(404);
      expect((await harness.call(`${API}/organization?key=${key}`)).status).toBe(401);
      expect(harness.log.lines).toEqual([]);

      const reply = await harness.call(`${API}/organization?apiKey=${key}`, { key, headers: { 'x-request-id': 'trace-500' } });
      expect(reply.status).toBe(500);
      expect(harness.log.lines).toHaveLength(1);
      const [line] = harness.log.lines;
      expect(line).toMatchObject({ level: 'error', message: 'request failed' });
      expect(line!.fields).toMatchObject({ requestId: 'trace-500', method: 'GET', route: `${API}/organization`, path: `${API}/organization`, status: 500 });
      expect(line!.fields.durationMs).toBeTypeOf('number');
      expect(line!.fields.err).toBeInstanceOf(Error);
      expect(JSON.stringify(line!.fields)).not.toContain(key);
    } finally {
      await harness.close();
    }
  });

  it('a 503 for unreachable storage logs a rate-limited warning naming the first request; a key pasted into the path is masked', async () => {
    const store = new MemoryStore();
    const harness = await startHarness({ store, deps: { snapshots: new Unreachable(store) } });
    try {
      await publishFixture(store, fixture);
      const key = await harness.keyFor(fixture.organization.id);
      // The key's organization cannot be checked, whatever the path: the pasted key is in this one.
      const first = await harness.call(`${API}/events/${key}`, { key });
      expect(first.status).toBe(503);
      for (let i = 0; i < 5; i++) expect((await harness.call(`${API}/team`, { key })).status).toBe(503);
      const warnings = harness.log.lines.filter((line) => line.message === 'request answered 503: snapshot storage unreachable');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.level).toBe('warn');
      expect(warnings[0]!.fields).toMatchObject({
        requestId: first.headers['x-request-id'],
        route: `${API}/events/{idOrSlug}`,
        path: `${API}/events/mqk_[redacted]`,
        status: 503,
      });
      expect(JSON.stringify(harness.log.lines)).not.toContain(key);
    } finally {
      await harness.close();
    }
  });
});
