// The access checks in a tiny Express app of its own, with a stand-in for the problem
// handler: header parsing, the both-headers rule, order of checks, preflight, CORS on errors,
// rate-limit headers, and the per-address limit on failed key checks.
import express, { type ErrorRequestHandler } from 'express';
import fc from 'fast-check';
import { type AddressInfo, connect } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { accessControl } from '../../../../gateway/access/access-control.ts';
import { setHeaders } from '../../../../gateway/access/cors.ts';
import { standingHeaders } from '../../../../gateway/standing-headers.ts';
import { InMemoryRateLimiter } from '../../../../gateway/access/in-memory-rate-limiter.ts';
import { ApiError } from '../../../../gateway/errors.ts';
import type { OrganizationState } from '../../../../snapshot/manifest.ts';
import { CountingKeyStore } from '../../../support/keys.ts';

const ACTIVE_ORG = 'org-active';
const SUSPENDED_ORG = 'org-suspended';
const CLOSED_ORG = 'org-closed';
const NEW_ORG = 'org-without-snapshot';
const STATES: Record<string, OrganizationState> = { [ACTIVE_ORG]: 'active', [SUSPENDED_ORG]: 'suspended', [CLOSED_ORG]: 'closed' };
const FAILURE_LIMIT = 5;
const KEY_LIMIT = 3;

// Limiters are replaced per test (fresh windows); the app's delegates call the current ones.
// Stand-in for gateway/problem.ts: the ApiError's status, headers and errorCode.
const problemStandIn: ErrorRequestHandler = (error, _req, res, _next) => {
  if (!(error instanceof ApiError)) {
    res.status(500).json({ errorCode: 'INTERNAL_ERROR', message: String(error) });
    return;
  }
  res.status(error.status).set(error.headers).set('Cache-Control', 'no-store');
  res.type('application/problem+json').send(JSON.stringify({ status: error.status, errorCode: error.errorCode, detail: error.detail }));
};

let server: Server;
let base: string;
let store: CountingKeyStore;
let now: number;
let keyLimiter: InMemoryRateLimiter;
let failures: InMemoryRateLimiter;
let secrets: Record<'active' | 'suspended' | 'closed' | 'fresh' | 'revoked' | 'browser' | 'wildcard', string>;
let keyIds: Record<keyof typeof secrets, string>;

beforeAll(async () => {
  store = new CountingKeyStore();
  const issue = async (organizationId: string, origins: string[] = []) => store.create({ organizationId, origins, label: null });
  const made = {
    active: await issue(ACTIVE_ORG),
    suspended: await issue(SUSPENDED_ORG),
    closed: await issue(CLOSED_ORG),
    fresh: await issue(NEW_ORG),
    revoked: await issue(ACTIVE_ORG),
    browser: await issue(ACTIVE_ORG, ['https://site.example', 'http://localhost:3000']),
    wildcard: await issue(ACTIVE_ORG, ['https://*.site.example']),
  };
  await store.revoke(made.revoked.record.id, new Date());
  secrets = Object.fromEntries(Object.entries(made).map(([name, { secret }]) => [name, secret])) as typeof secrets;
  keyIds = Object.fromEntries(Object.entries(made).map(([name, { record }]) => [name, record.id])) as typeof keyIds;

  const app = express();
  // Tests pose as many client addresses through X-Forwarded-For.
  app.set('trust proxy', true);
  app.use(standingHeaders());
  const access = accessControl({
    keys: store,
    failures: {
      limit: FAILURE_LIMIT,
      windowSeconds: 60,
      consume: (bucket, nowMs) => failures.consume(bucket, nowMs),
    },
    limiter: { limit: KEY_LIMIT, windowSeconds: 60, consume: (bucket, nowMs) => keyLimiter.consume(bucket, nowMs) },
    clock: () => now,
    organizationState: (organizationId) => STATES[organizationId],
  });
  app.get('/thing', async (req, res) => {
    const { key, rateLimitHeaders } = await access.check(req);
    setHeaders(res, rateLimitHeaders);
    res.json({ organizationId: key.organizationId, keyId: key.id });
  });
  app.use(problemStandIn);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

let address = 0;
let clientAddress: string;
beforeEach(() => {
  now = Date.UTC(2026, 4, 1, 9, 0, 0);
  keyLimiter = new InMemoryRateLimiter({ limit: KEY_LIMIT });
  failures = new InMemoryRateLimiter({ limit: FAILURE_LIMIT });
  // A fresh client address per test, so failure counts do not leak between tests.
  clientAddress = `10.0.0.${++address}`;
  store.lookups = 0;
});

function get(headers: Record<string, string> = {}, method = 'GET') {
  return fetch(`${base}/thing`, { method, headers: { 'X-Forwarded-For': clientAddress, ...headers } });
}

/** A GET of /thing written byte for byte on a socket, so that repeated headers reach the server as sent. */
function rawGet(headerLines: string[]): Promise<{ status: number; body: string }> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(['GET /thing HTTP/1.1', 'Host: 127.0.0.1', `X-Forwarded-For: ${clientAddress}`, ...headerLines, 'Connection: close', '', ''].join('\r\n'));
    });
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: body.includes('{') ? body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1) : body });
    });
  });
}

async function expectProblem(response: globalThis.Response, status: number, errorCode: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.headers.get('access-control-allow-origin')).toBe('*');
  const body = (await response.json()) as { errorCode: string; detail: string };
  expect(body.errorCode).toBe(errorCode);
  return body;
}

describe('key headers', () => {
  it('accepts X-Api-Key', async () => {
    const response = await get({ 'X-Api-Key': secrets.active });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ organizationId: ACTIVE_ORG, keyId: keyIds.active });
  });

  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('accepts Authorization: %s <key>', async (scheme) => {
    expect((await get({ Authorization: `${scheme} ${secrets.active}` })).status).toBe(200);
  });

  it('accepts both headers with the same key', async () => {
    expect((await get({ Authorization: `Bearer ${secrets.active}`, 'X-Api-Key': secrets.active })).status).toBe(200);
  });

  it('refuses both headers with different keys, even when both are valid', async () => {
    const body = await expectProblem(await get({ Authorization: `Bearer ${secrets.active}`, 'X-Api-Key': secrets.browser }), 401, 'API_KEY_INVALID');
    expect(body.detail).toMatch(/different keys/);
  });

  // Rows build their headers lazily: the keys exist only once beforeAll has run.
  it.each([
    ['no key', () => ({}), /No API key/],
    ['another Authorization scheme', () => ({ Authorization: `Basic ${secrets.active}` }), /Bearer/],
    ['Bearer without a key', () => ({ Authorization: 'Bearer' }), /Bearer/],
    ['a malformed key', () => ({ 'X-Api-Key': 'mqk_short' }), /malformed/],
    ['a key with a bad checksum', () => ({ 'X-Api-Key': 'mqk_0000000000000000000000000000000sQHLj' }), /malformed/],
    ['an empty X-Api-Key', () => ({ 'X-Api-Key': '' }), /malformed/],
    ['an unknown key', () => ({ 'X-Api-Key': 'mqk_0000000000000000000000000000000sQHLi' }), /not recognised or has been revoked/],
    ['a revoked key', () => ({ 'X-Api-Key': secrets.revoked }), /not recognised or has been revoked/],
  ])('refuses %s with 401 API_KEY_INVALID and a Bearer challenge', async (_name, headers: () => Record<string, string>, detail) => {
    const response = await get(headers());
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect((await expectProblem(response, 401, 'API_KEY_INVALID')).detail).toMatch(detail);
  });

  it('refuses a repeated X-Api-Key (Node joins the values)', async () => {
    const headers = new Headers({ 'X-Forwarded-For': clientAddress });
    headers.append('X-Api-Key', secrets.active);
    headers.append('X-Api-Key', secrets.active);
    await expectProblem(await fetch(`${base}/thing`, { headers }), 401, 'API_KEY_INVALID');
  });

  // Node keeps only the first Authorization header in req.headers; the raw headers show them all.
  it.each([
    ['two Authorization headers with different keys', (a: string, b: string) => [`Authorization: Bearer ${a}`, `Authorization: Bearer ${b}`]],
    ['the same, the other way round and in other cases', (a: string, b: string) => [`authorization: Bearer ${b}`, `AUTHORIZATION: Bearer ${a}`]],
    ['two X-Api-Key headers with different keys', (a: string, b: string) => [`X-Api-Key: ${a}`, `x-api-key: ${b}`]],
    ['a valid key first and garbage second', (a: string) => [`Authorization: Bearer ${a}`, 'Authorization: Basic Zm9vOmJhcg==']],
  ])("refuses %s: 401, never the first key's data", async (_what, lines) => {
    const reply = await rawGet(lines(secrets.active, secrets.browser));
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.body)).toMatchObject({ errorCode: 'API_KEY_INVALID' });
  });

  it('accepts a key header repeated with the same value, as it accepts both headers with one key', async () => {
    const reply = await rawGet([`Authorization: Bearer ${secrets.active}`, `authorization: Bearer ${secrets.active}`]);
    expect(reply.status).toBe(200);
  });

  it('never looks a malformed key up (property, with a counting store)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.string().map((rest) => `mqk_${rest}`),
        ),
        async (text) => {
          // Header values cannot carry control characters or surrounding spaces.
          const value = text.replace(/[^\x21-\x7e]/g, 'x');
          failures = new InMemoryRateLimiter({ limit: FAILURE_LIMIT });
          const response = await get({ 'X-Api-Key': value });
          expect(response.status).toBe(401);
          await response.arrayBuffer();
        },
      ),
      { numRuns: 200 },
    );
    expect(store.lookups).toBe(0);
  });

  it('looks a well-formed key up exactly once', async () => {
    await get({ 'X-Api-Key': secrets.active });
    expect(store.lookups).toBe(1);
  });
});

describe('organization state', () => {
  it.each([
    ['suspended', 'suspended'],
    ['closed', 'closed'],
  ] as const)('refuses a %s organization with 403 ORGANIZATION_SUSPENDED', async (_state, name) => {
    await expectProblem(await get({ 'X-Api-Key': secrets[name] }), 403, 'ORGANIZATION_SUSPENDED');
  });

  it('passes an organization without a snapshot yet on to the routes', async () => {
    expect((await get({ 'X-Api-Key': secrets.fresh })).status).toBe(200);
  });

  it('checks the key before the organization, the organization before the origin', async () => {
    await expectProblem(await get({ 'X-Api-Key': secrets.revoked, Origin: 'https://evil.example' }), 401, 'API_KEY_INVALID');
    await expectProblem(await get({ 'X-Api-Key': secrets.suspended, Origin: 'https://evil.example' }), 403, 'ORGANIZATION_SUSPENDED');
  });
});

describe('origin', () => {
  it.each([
    ['browser', 'https://site.example', 200],
    ['browser', 'https://SITE.example:443', 200],
    ['browser', 'http://localhost:3000', 200],
    ['browser', 'http://localhost:3001', 403],
    ['browser', 'https://evil.example', 403],
    ['browser', 'null', 403],
    ['browser', undefined, 200],
    ['wildcard', 'https://www.site.example', 200],
    ['wildcard', 'https://a.b.site.example', 200],
    ['wildcard', 'https://site.example', 403],
    ['active', 'https://site.example', 403],
    ['active', undefined, 200],
  ] as const)('key %s from Origin %s → %i', async (name, origin, status) => {
    const response = await get({ 'X-Api-Key': secrets[name], ...(origin === undefined ? {} : { Origin: origin }) });
    if (status === 200) expect(response.status).toBe(200);
    else await expectProblem(response, 403, 'API_KEY_ORIGIN_NOT_ALLOWED');
  });

  it('checks the origin before the rate limit, and a refused origin uses no quota', async () => {
    for (let i = 0; i < KEY_LIMIT + 2; i++) {
      const response = await get({ 'X-Api-Key': secrets.browser, Origin: 'https://evil.example' });
      await expectProblem(response, 403, 'API_KEY_ORIGIN_NOT_ALLOWED');
      expect(response.headers.get('ratelimit')).toBeNull();
    }
    expect((await get({ 'X-Api-Key': secrets.browser, Origin: 'https://site.example' })).status).toBe(200);
  });
});

describe('CORS', () => {
  it('answers a preflight 204 without a key, allowing the key headers', async () => {
    const response = await get({ Origin: 'https://anywhere.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' }, 'OPTIONS');
    expect(response.status).toBe(204);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD',
      'access-control-allow-headers': 'Authorization, X-Api-Key, If-None-Match, X-Request-Id, Marquee-Snapshot-Id',
      'access-control-max-age': '7200',
    });
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(store.lookups).toBe(0);
  });

  it('puts CORS headers on successes and errors alike, never Allow-Credentials', async () => {
    for (const response of [await get({ 'X-Api-Key': secrets.active }), await get({}), await get({ 'X-Api-Key': secrets.suspended })]) {
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-expose-headers')).toBe('ETag, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, Marquee-Snapshot-Id');
      expect(response.headers.get('vary')).toBe('Authorization, X-Api-Key, Origin, Accept-Encoding, Marquee-Snapshot-Id');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });
});

describe('rate limit per key', () => {
  it('announces the policy and what is left on every response, then refuses with Retry-After', async () => {
    for (let i = 1; i <= KEY_LIMIT; i++) {
      const response = await get({ 'X-Api-Key': secrets.active });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe(`"default";q=${KEY_LIMIT};w=60`);
      expect(response.headers.get('ratelimit')).toBe(`"default";r=${KEY_LIMIT - i};t=60`);
    }
    now += 20_500;
    const refused = await get({ 'X-Api-Key': secrets.active });
    await expectProblem(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBe('40');
    expect(refused.headers.get('ratelimit')).toBe('"default";r=0;t=40');
    expect(refused.headers.get('ratelimit-policy')).toBe(`"default";q=${KEY_LIMIT};w=60`);

    now += 39_500;
    expect((await get({ 'X-Api-Key': secrets.active })).status).toBe(200);
  });

  it('counts per key, not per address', async () => {
    for (let i = 0; i < KEY_LIMIT; i++) await get({ 'X-Api-Key': secrets.active });
    expect((await get({ 'X-Api-Key': secrets.browser })).status).toBe(200);
    clientAddress = '10.9.9.9';
    await expectProblem(await get({ 'X-Api-Key': secrets.active }), 429, 'RATE_LIMITED');
  });
});

describe('failed key checks per address', () => {
  const failUntilThrottled = async () => {
    for (let i = 0; i < FAILURE_LIMIT; i++) await expectProblem(await get({ 'X-Api-Key': secrets.revoked }), 401, 'API_KEY_INVALID');
  };

  it('answers 401 up to the threshold, then 429 with Retry-After for further invalid credentials', async () => {
    await failUntilThrottled();
    now += 10_000;
    const blocked = await get({ 'X-Api-Key': secrets.revoked });
    const body = await expectProblem(blocked, 429, 'RATE_LIMITED');
    expect(body.detail).toMatch(/invalid API key from this address/);
    expect(blocked.headers.get('retry-after')).toBe('50');
    // Let in again when its failures leave the window.
    now += 50_000;
    await expectProblem(await get({ 'X-Api-Key': secrets.revoked }), 401, 'API_KEY_INVALID');
  });

  it('never refuses a valid key because of invalid ones from its address (shared egress addresses)', async () => {
    await failUntilThrottled();
    for (let i = 0; i < 3 * FAILURE_LIMIT; i++) await get({ 'X-Api-Key': 'nonsense' });
    const served = await get({ 'X-Api-Key': secrets.active });
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual({ organizationId: ACTIVE_ORG, keyId: keyIds.active });
    // And the address is still throttled for invalid ones.
    await expectProblem(await get({ 'X-Api-Key': secrets.revoked }), 429, 'RATE_LIMITED');
  });

  it("spares the key store a throttled address's malformed keys, but still looks well-formed ones up", async () => {
    await failUntilThrottled();
    const before = store.lookups;
    await expectProblem(await get({ 'X-Api-Key': 'nonsense' }), 429, 'RATE_LIMITED');
    expect(store.lookups).toBe(before);
    expect((await get({ 'X-Api-Key': secrets.active })).status).toBe(200);
    expect(store.lookups).toBe(before + 1);
  });

  it('counts every kind of key failure, and nothing else', async () => {
    await get({});
    await get({ 'X-Api-Key': 'nonsense' });
    await get({ 'X-Api-Key': secrets.revoked });
    await get({ 'X-Api-Key': secrets.active, Authorization: `Bearer ${secrets.browser}` });
    // Not key failures: a suspended organization, a refused origin, a success.
    await get({ 'X-Api-Key': secrets.suspended });
    await get({ 'X-Api-Key': secrets.browser, Origin: 'https://evil.example' });
    await get({ 'X-Api-Key': secrets.active });
    for (let i = 4; i < FAILURE_LIMIT; i++) await expectProblem(await get({}), 401, 'API_KEY_INVALID');
    await expectProblem(await get({}), 429, 'RATE_LIMITED');
  });

  it('counts the addresses of one IPv6 /64 together, and other /64s apart', async () => {
    for (let i = 0; i < FAILURE_LIMIT; i++) {
      clientAddress = `2001:db8:7:${address}::${i + 1}`;
      await expectProblem(await get({}), 401, 'API_KEY_INVALID');
    }
    clientAddress = `2001:db8:7:${address}:ffff:ffff:ffff:ffff`;
    await expectProblem(await get({}), 429, 'RATE_LIMITED');
    clientAddress = `2001:db8:8:${address}::1`;
    await expectProblem(await get({}), 401, 'API_KEY_INVALID');
  });

  it('does not let a preflight count or be blocked', async () => {
    for (let i = 0; i < FAILURE_LIMIT; i++) await get({});
    expect((await get({ Origin: 'https://site.example', 'Access-Control-Request-Method': 'GET' }, 'OPTIONS')).status).toBe(204);
  });
});
