// Nothing about the gateway's insides reaches a client, whatever the answer: no X-Powered-By, no
// HTML error page, no stack trace or file path, and every error as problem+json. One request per
// status the gateway produces through Express (the statuses the HTTP parser produces are covered
// byte for byte in hostile-http.test.ts).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { InMemoryRateLimiter } from '../../../gateway/access/in-memory-rate-limiter.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { acmeFixture, API, publishFixture, type Reply, startHarness, type GatewayHarness } from '../../support/gateway-fixtures.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

/** Above what any one key here uses but the limited one. */
const KEY_LIMIT = 20;
let harness: GatewayHarness;
let key: string;
let browserKey: string;
let suspendedKey: string;
let brokenKey: string;
let limitedKey: string;

beforeAll(async () => {
  const store = new MemoryStore();
  harness = await startHarness({ store, deps: { rateLimiter: new InMemoryRateLimiter({ limit: KEY_LIMIT }) } });
  const acme = new PlatformFixture();
  acmeFixture(acme);
  await publishFixture(store, acme);
  const suspended = new PlatformFixture({ id: randomUUID(), name: 'Gone Quiet', slug: 'gone-quiet' });
  await publishFixture(store, suspended, { state: 'suspended' });
  const broken = new PlatformFixture({ id: randomUUID(), name: 'Broken Objects', slug: 'broken' });
  await publishFixture(store, broken);
  // An object whose bytes no longer match its name: the gateway's own fault, a 500.
  for (const entry of await store.list(`orgs/${broken.organization.id}/objects/`)) {
    const bytes = (await store.get(entry))!;
    if (bytes.toString('utf8').includes('"slug":"broken"')) await store.put(entry, Buffer.from('{"secret":"internal"}'));
  }
  key = await harness.keyFor(acme.organization.id);
  browserKey = await harness.keyFor(acme.organization.id, ['https://site.example']);
  suspendedKey = await harness.keyFor(suspended.organization.id);
  brokenKey = await harness.keyFor(broken.organization.id);
  limitedKey = await harness.keyFor(acme.organization.id);
});
afterAll(() => harness.close());

const API_CASES: Array<[string, () => Promise<Reply>, number]> = [
  ['200', () => harness.call(`${API}/organization`, { key }), 200],
  ['204 preflight', () => harness.call(`${API}/organization`, { method: 'OPTIONS', headers: { origin: 'https://site.example', 'access-control-request-method': 'GET' } }), 204],
  [
    '304',
    async () => {
      const first = await harness.call(`${API}/team`, { key });
      return harness.call(`${API}/team`, { key, headers: { 'if-none-match': first.headers.etag! } });
    },
    304,
  ],
  ['400', () => harness.call(`${API}/events?page=0`, { key }), 400],
  ['401', () => harness.call(`${API}/organization`), 401],
  ['403 suspended', () => harness.call(`${API}/organization`, { key: suspendedKey }), 403],
  ['403 origin', () => harness.call(`${API}/organization`, { key: browserKey, headers: { origin: 'https://evil.example' } }), 403],
  ['404 event', () => harness.call(`${API}/events/nope`, { key }), 404],
  ['404 API path', () => harness.call(`${API}/nowhere`, { key }), 404],
  ['404 outside the API', () => harness.call('/wp-admin.php'), 404],
  ['405', () => harness.call(`${API}/organization`, { key, method: 'DELETE' }), 405],
  [
    '429',
    async () => {
      for (let i = 0; i < KEY_LIMIT; i++) await harness.call(`${API}/organization`, { key: limitedKey });
      return harness.call(`${API}/organization`, { key: limitedKey });
    },
    429,
  ],
  ['500', () => harness.call(`${API}/organization`, { key: brokenKey }), 500],
  ['200 /openapi.json', () => harness.call('/openapi.json'), 200],
  ['200 /docs/', () => harness.call('/docs/'), 200],
  ['200 /healthz', () => harness.call('/healthz'), 200],
];

it.each(API_CASES)('%s: no X-Powered-By, no HTML error page, no stack trace or path', async (_name, request, status) => {
  const reply = await request();
  expect(reply.status).toBe(status);
  expect(reply.headers['x-powered-by']).toBeUndefined();
  expect(reply.headers.server).toBeUndefined();
  // Stack frames ("    at fn (/path/file.js:1:2)") and module paths, in any answer.
  expect(reply.body).not.toMatch(/\n\s+at |node_modules|node:internal|\/work\/|\.(?:js|ts):\d+/);
  if (status >= 400) {
    // Express's and Node's own error pages are HTML; the gateway's never are.
    expect(reply.body).not.toMatch(/<pre>|<html/i);
    expect(reply.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.headers['access-control-allow-origin']).toBe('*');
  } else if (status === 200 && !reply.headers['content-type']?.startsWith('text/html')) {
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
  }
});
