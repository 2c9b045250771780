// One shared auth / origin / CORS / rate-limit suite, run against every one of
// the nine routes of docs/api.md §4 on the real gateway (createGateway), with the product's own key
// store and per-key limit: the embedded key file and in-process limiter, or Redis in the production
// project. Keys are created and revoked through a second view of the same keys, as the CLI
// (another process) would.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KeyStore } from '../../../records/keys/key-store.ts';
import { API_ROUTES } from '../../../gateway/api-routes.ts';
import { publishSnapshot } from '../../../builder/publish.ts';
import { API, type GatewayHarness, type Reply } from '../../support/gateway-fixtures.ts';
import { usePublishedOrganization } from '../../support/gateway-world.ts';
import { issueKey } from '../../support/keys.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

const SUSPENDED_ORG = '11111111-1111-4111-8111-111111111111';
const CLOSED_ORG = '22222222-2222-4222-8222-222222222222';
const SITE = 'https://site.example';
const KEY_LIMIT = 600;
/** The product's default threshold of invalid credentials per address and minute. */
const FAILURE_LIMIT = 60;
const UNKNOWN_KEY = 'mqk_0000000000000000000000000000000sQHLi';

let eventId: string;
const world = usePublishedOrganization(
  () => {
    const fixture = new PlatformFixture();
    const event = fixture.event({ slug: 'spring-summit', startsAt: '2026-05-01T07:00:00Z', endsAt: '2026-05-01T16:00:00Z' });
    const session = fixture.session(event);
    fixture.bill(session, fixture.speaker({ name: 'Ada' }));
    fixture.place(event, fixture.sponsor({ name: 'Initech' }), { tier: 'Gold' });
    fixture.teamMember({ fullName: 'Grace' });
    eventId = event.id;
    return fixture;
  },
  {
    keyLimit: KEY_LIMIT,
    // The gateway's own invalid-credentials throttle, not the harness's generous one.
    deps: { authFailures: undefined },
  },
);
/** The CLI's view of the keys: a separate store instance, like another process. */
let cli: KeyStore;

beforeAll(async () => {
  cli = await world.harness.otherKeys();
  for (const [id, state] of [
    [SUSPENDED_ORG, 'suspended'],
    [CLOSED_ORG, 'closed'],
  ] as const) {
    await publishSnapshot(world.harness.store, {
      organizationId: id,
      organizationSlug: state,
      state,
      resources: [],
      slugs: {},
      trigger: 'manual',
      now: new Date('2026-01-01T00:00:00Z'),
    });
  }
});

// Every test starts in a fresh minute: the per-key and per-address windows hold nothing from
// earlier tests (all requests come from 127.0.0.1).
beforeEach(() => {
  world.harness.clock.now += 61_000;
});

function expectProblem(reply: Reply, status: number, errorCode: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(reply.headers['cache-control']).toBe('no-store');
  expect(reply.headers.etag).toBeUndefined();
  // docs/design.md "CORS": open on errors too, so page JavaScript can read errorCode.
  expect(reply.headers['access-control-allow-origin']).toBe('*');
  expect(reply.headers['access-control-expose-headers']).toBe('ETag, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, Marquee-Snapshot-Id');
  expect(reply.json<{ errorCode: string; status: number }>()).toMatchObject({ errorCode, status });
}

function expectServed(reply: Reply): void {
  expect(reply.status, reply.body).toBe(200);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.headers['access-control-allow-origin']).toBe('*');
  expect(reply.headers.etag).toMatch(/^"/);
  expect(reply.headers['cache-control']).toBe('private, max-age=60');
}

async function newKey(origins: string[] = [], forOrganization = world.fixture.organization.id): Promise<string> {
  return (await issueKey(cli, { organizationId: forOrganization, origins })).secret;
}

/** The shared suite: everything access control promises, for one route. */
function authSuite(route: () => string): void {
  const call = (options: Parameters<GatewayHarness['call']>[1] = {}) => world.harness.call(API + route(), options);

  it('serves a valid key in X-Api-Key or Authorization: Bearer (any case), with rate-limit headers', async () => {
    const key = await newKey();
    const served = await call({ key });
    expectServed(served);
    expect(served.headers['ratelimit-policy']).toBe(`"default";q=${KEY_LIMIT};w=60`);
    expect(served.headers.ratelimit).toBe(`"default";r=${KEY_LIMIT - 1};t=60`);
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) expectServed(await call({ headers: { authorization: `${scheme} ${key}` } }));
    expectServed(await call({ key, headers: { authorization: `Bearer ${key}` } }));
  });

  it('refuses a missing, malformed, unknown or ambiguous key with 401 API_KEY_INVALID', async () => {
    const key = await newKey();
    const other = await newKey();
    expectProblem(await call(), 401, 'API_KEY_INVALID');
    expectProblem(await call({ key: 'mqk_not-a-key' }), 401, 'API_KEY_INVALID');
    expectProblem(await call({ key: `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}` }), 401, 'API_KEY_INVALID');
    expectProblem(await call({ key: UNKNOWN_KEY }), 401, 'API_KEY_INVALID');
    expectProblem(await call({ headers: { authorization: `Basic ${key}` } }), 401, 'API_KEY_INVALID');
    expectProblem(await call({ key, headers: { authorization: `Bearer ${other}` } }), 401, 'API_KEY_INVALID');
  });

  it('refuses a key revoked by another process from the next request on', async () => {
    const { record, secret } = await issueKey(cli, { organizationId: world.fixture.organization.id, origins: [] });
    expectServed(await call({ key: secret }));
    expect(await (await world.harness.otherKeys()).revoke(record.id, new Date())).toBe(true);
    expectProblem(await call({ key: secret }), 401, 'API_KEY_INVALID');
  });

  it('refuses keys of a suspended or closed organization with 403 ORGANIZATION_SUSPENDED', async () => {
    expectProblem(await call({ key: await newKey([], SUSPENDED_ORG) }), 403, 'ORGANIZATION_SUSPENDED');
    expectProblem(await call({ key: await newKey([], CLOSED_ORG) }), 403, 'ORGANIZATION_SUSPENDED');
  });

  it('serves an allowed origin and requests without Origin; refuses other origins with 403', async () => {
    const key = await newKey([SITE, 'https://*.site.example']);
    expectServed(await call({ key, headers: { origin: SITE } }));
    expectServed(await call({ key, headers: { origin: 'https://www.site.example' } }));
    expectServed(await call({ key }));
    expectProblem(await call({ key, headers: { origin: 'https://evil.example' } }), 403, 'API_KEY_ORIGIN_NOT_ALLOWED');
    expectProblem(await call({ key, headers: { origin: 'http://site.example' } }), 403, 'API_KEY_ORIGIN_NOT_ALLOWED');
    expectProblem(await call({ key, headers: { origin: 'null' } }), 403, 'API_KEY_ORIGIN_NOT_ALLOWED');
  });

  it('refuses any Origin for a server-side key (empty list)', async () => {
    const key = await newKey();
    expectProblem(await call({ key, headers: { origin: SITE } }), 403, 'API_KEY_ORIGIN_NOT_ALLOWED');
    expectServed(await call({ key }));
  });

  it('answers a preflight 204 without a key', async () => {
    const reply = await call({
      method: 'OPTIONS',
      headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key, if-none-match' },
    });
    expect(reply.status).toBe(204);
    expect(reply.body).toBe('');
    expect(reply.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD',
      'access-control-allow-headers': 'Authorization, X-Api-Key, If-None-Match, X-Request-Id, Marquee-Snapshot-Id',
    });
    expect(reply.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it(`refuses the ${KEY_LIMIT + 1}st request of a minute with 429 and Retry-After`, async () => {
    const key = await newKey();
    const start = world.harness.clock.now;
    for (let i = 1; i <= KEY_LIMIT; i++) {
      world.harness.clock.now = start + Math.floor((i * 30_000) / KEY_LIMIT);
      const reply = await call({ key });
      if (reply.status !== 200) expect.fail(`request ${i}: ${reply.status} ${reply.body}`);
    }
    // The first second of the window frees at start + 60 s.
    world.harness.clock.now = start + 45_000;
    const refused = await call({ key });
    expectProblem(refused, 429, 'RATE_LIMITED');
    expect(refused.headers['retry-after']).toBe('15');
    expect(refused.headers.ratelimit).toBe('"default";r=0;t=15');
    expect(refused.headers['ratelimit-policy']).toBe(`"default";q=${KEY_LIMIT};w=60`);
    // Another key of the same organization has its own quota.
    expectServed(await call({ key: await newKey() }));
  });

  it(`answers 429 to further invalid keys from an address after ${FAILURE_LIMIT}, and still serves valid keys from it`, async () => {
    const key = await newKey();
    for (let i = 0; i < FAILURE_LIMIT; i++) expectProblem(await call({ key: UNKNOWN_KEY }), 401, 'API_KEY_INVALID');
    const blocked = await call({ key: UNKNOWN_KEY });
    expectProblem(blocked, 429, 'RATE_LIMITED');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // A valid key behind the same address (a shared NAT or hosting platform) is never refused.
    expectServed(await call({ key }));
    world.harness.clock.now += 60_000;
    expectProblem(await call({ key: UNKNOWN_KEY }), 401, 'API_KEY_INVALID');
  });
}

// Every route of the gateway's table (docs/api.md §4); an event is addressed by slug and by id in
// turn, and the event list with a query.
const ROUTES: ReadonlyArray<readonly [string, () => string]> = API_ROUTES.map(
  (route, index) =>
    [
      `GET ${route.pattern}`,
      () => {
        if (route.pattern === '/events') return '/events?timing=all';
        return route.pattern.replace('{idOrSlug}', index % 2 === 0 ? 'spring-summit' : eventId);
      },
    ] as const,
);

describe.each(ROUTES)('%s', (_name, route) => authSuite(route));
