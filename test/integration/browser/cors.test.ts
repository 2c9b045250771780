// CORS in a real browser (docs/api.md §5.7–5.8, docs/design.md "CORS"): pages of two origins (same host,
// different ports) fetch the gateway with X-Api-Key, which makes Chromium send a real preflight.
// The allowed page reads the JSON body and the exposed headers; the other page gets 403 and can
// still read errorCode, because CORS is open on errors too.
import type { Server } from 'node:http';
import { closeServers, listen, portOf } from '../../support/loopback-http.ts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryRateLimiter } from '../../../gateway/access/in-memory-rate-limiter.ts';
import { createGateway, type Gateway } from '../../../gateway/app.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { launchChromium } from '../../support/chromium.ts';
import { API, publishFixture, RecordingLog } from '../../support/gateway-fixtures.ts';
import { CountingKeyStore, issueKey } from '../../support/keys.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

interface FetchResult {
  status: number;
  body: { errorCode?: string; name?: string; slug?: string };
  etag: string | null;
  rateLimit: string | null;
  retryAfter: string | null;
  requestId: string | null;
}

let browser: Browser;
let gateway: Gateway;
let gatewayServer: Server;
let gatewayUrl: string;
let allowedSite: { server: Server; origin: string };
let otherSite: { server: Server; origin: string };
/** Method and Origin of every request the gateway saw, to observe the preflight. */
const seen: Array<{ method: string; origin: string | undefined; path: string }> = [];
let browserKey: string;
let serverSideKey: string;

beforeAll(async () => {
  const store = new MemoryStore();
  const keys = new CountingKeyStore();
  const fixture = new PlatformFixture({ name: 'Acme Events', slug: 'acme' });
  await publishFixture(store, fixture);
  gateway = createGateway({
    snapshots: store,
    keys,
    rateLimiter: new InMemoryRateLimiter({ limit: 600 }),
    authFailures: new InMemoryRateLimiter({ limit: 30 }),
    log: new RecordingLog(),
  });
  await gateway.ready;
  gatewayServer = await listen((req, res) => {
    seen.push({ method: req.method ?? '', origin: req.headers.origin, path: req.url ?? '' });
    gateway.app(req, res);
  });
  gatewayUrl = `http://127.0.0.1:${portOf(gatewayServer)}${API}`;

  allowedSite = await site();
  otherSite = await site();
  browserKey = (await issueKey(keys, { organizationId: fixture.organization.id, origins: [allowedSite.origin] })).secret;
  serverSideKey = (await issueKey(keys, { organizationId: fixture.organization.id, origins: [] })).secret;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await closeServers([gatewayServer, allowedSite?.server, otherSite?.server]);
  await gateway?.close();
});

/** A page of `origin` that fetches `path` from the gateway with `headers`, from page JavaScript. */
async function fetchFromPage(origin: string, path: string, headers: Record<string, string>): Promise<FetchResult> {
  const page: Page = await browser.newPage();
  try {
    await page.goto(`${origin}/`);
    return await page.evaluate(
      async ({ url, headers }) => {
        const response = await fetch(url, { headers, cache: 'no-store' });
        return {
          status: response.status,
          body: await response.json(),
          etag: response.headers.get('ETag'),
          rateLimit: response.headers.get('RateLimit'),
          retryAfter: response.headers.get('Retry-After'),
          requestId: response.headers.get('X-Request-Id'),
        };
      },
      { url: `${gatewayUrl}${path}`, headers },
    );
  } finally {
    await page.close();
  }
}

describe('CORS from a real browser', () => {
  it('lets a page of an allowed origin read the JSON and the exposed headers, after a preflight', async () => {
    seen.length = 0;
    const result = await fetchFromPage(allowedSite.origin, '/organization', { 'X-Api-Key': browserKey });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ name: 'Acme Events', slug: 'acme' });
    expect(result.etag).toMatch(/^"/);
    expect(result.rateLimit).toMatch(/^"default";r=\d+;t=\d+$/);
    // The page can quote the request's id when it reports a problem.
    expect(result.requestId).toMatch(/^[0-9a-f-]{36}$/);
    // The custom header made Chromium ask first, without the key; then came the GET with it.
    expect(seen.map(({ method, origin }) => ({ method, origin }))).toEqual([
      { method: 'OPTIONS', origin: allowedSite.origin },
      { method: 'GET', origin: allowedSite.origin },
    ]);
  });

  it('lets a page send its own request id, and read it back', async () => {
    const own = await fetchFromPage(allowedSite.origin, '/organization', { 'X-Api-Key': browserKey, 'X-Request-Id': 'page-4711' });
    expect({ status: own.status, requestId: own.requestId }).toEqual({ status: 200, requestId: 'page-4711' });
  });

  it('works with Authorization: Bearer as well', async () => {
    const result = await fetchFromPage(allowedSite.origin, '/team', { Authorization: `Bearer ${browserKey}` });
    expect(result.status).toBe(200);
  });

  it('refuses a page of another origin with 403, whose errorCode the page can still read', async () => {
    const result = await fetchFromPage(otherSite.origin, '/organization', { 'X-Api-Key': browserKey });
    expect(result).toMatchObject({ status: 403, body: { errorCode: 'API_KEY_ORIGIN_NOT_ALLOWED' }, etag: null });
  });

  it('refuses a server-side key (empty list) used from any page', async () => {
    const result = await fetchFromPage(allowedSite.origin, '/organization', { 'X-Api-Key': serverSideKey });
    expect(result).toMatchObject({ status: 403, body: { errorCode: 'API_KEY_ORIGIN_NOT_ALLOWED' } });
  });

  it('lets a page read a 401 for a bad key', async () => {
    const result = await fetchFromPage(allowedSite.origin, '/organization', { 'X-Api-Key': 'mqk_wrong' });
    expect(result).toMatchObject({ status: 401, body: { errorCode: 'API_KEY_INVALID' } });
  });
});

/** A site of its own origin (its own port) serving one empty page. */
async function site(): Promise<{ server: Server; origin: string }> {
  const server = await listen((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>organization site</title>');
  });
  return { server, origin: `http://127.0.0.1:${portOf(server)}` };
}
