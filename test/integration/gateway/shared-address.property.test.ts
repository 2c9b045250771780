// A valid key's answer depends on nothing but the key and the request (docs/design.md, "Where
// the contract is silent": failed key checks from one address). Whatever other clients send —
// valid keys of its own or another organization, revoked, unknown, malformed, ambiguous or
// missing credentials, a key over its rate limit, spoofed X-Forwarded-For — from its own address
// or from others, a valid key within its own limit gets 200 and the same bytes and ETag as a key
// nobody disturbed. The generated noise does reach the invalid-credentials throttle (past 60 a
// minute an address gets 429): the test checks that it did, so the property does not pass on
// quiet runs alone.
//
// Client addresses vary for real: in the first mode each address is a loopback source address
// of its own (127.x.y.z, bound with undici's localAddress); in the second the gateway trusts a
// proxy on loopback (trustProxy) and each client is named by X-Forwarded-For, as behind a load
// balancer. The gateway's clock stands still, so every window holds for the whole test; each run
// gets fresh addresses and a fresh victim key, so runs do not disturb one another.
import fc from 'fast-check';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryRateLimiter } from '../../../gateway/access/in-memory-rate-limiter.ts';
import type { TrustProxy } from '../../../gateway/access/client-address.ts';
import { generateSecret } from '../../../records/keys/format.ts';
import { acmeFixture, API, publishFixture, startHarness, type GatewayHarness } from '../../support/gateway-fixtures.ts';
import { issueKey } from '../../support/keys.ts';
import { assertContract } from '../../support/openapi-contract.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

const KEY_LIMIT = 600;
const VICTIM_PATHS = ['/organization', '/team', '/events?timing=all', '/events/acme-conf'] as const;
const NOISE_PATHS = ['/organization', '/events?timing=all', '/events/no-such-event', '/no-such-path', '/events?page=0'] as const;
/** Addresses in play per run: the victim's and two neighbours. */
const ADDRESSES_PER_RUN = 3;

type CredentialKind = 'same-org' | 'other-org' | 'revoked' | 'unknown' | 'exhausted' | 'missing' | 'ambiguous' | 'wrong-scheme' | 'malformed';
const INVALID: ReadonlySet<CredentialKind> = new Set(['revoked', 'unknown', 'missing', 'ambiguous', 'wrong-scheme', 'malformed']);

interface NoiseStep {
  kind: 'noise';
  from: number;
  credential: CredentialKind;
  /** For `malformed`: the text sent as the key. */
  text: string;
  header: 'x-api-key' | 'bearer';
  count: number;
  path: (typeof NOISE_PATHS)[number];
  method: 'GET' | 'HEAD' | 'POST';
  /** Claims another run address (an index) in X-Forwarded-For, e.g. the victim's. */
  spoof: number | null;
}

interface VictimStep {
  kind: 'victim';
  from: number;
  path: (typeof VICTIM_PATHS)[number];
  method: 'GET' | 'HEAD';
  header: 'x-api-key' | 'bearer';
}

type Step = NoiseStep | VictimStep;

const addressIndex = fc.integer({ min: 0, max: ADDRESSES_PER_RUN - 1 });
const headerStyle = fc.constantFrom<'x-api-key' | 'bearer'>('x-api-key', 'bearer');
const noiseStep: fc.Arbitrary<Step> = fc.record({
  kind: fc.constant('noise' as const),
  from: addressIndex,
  credential: fc.constantFrom<CredentialKind>('same-org', 'other-org', 'revoked', 'unknown', 'exhausted', 'missing', 'ambiguous', 'wrong-scheme', 'malformed'),
  text: fc.stringMatching(/^[!-~]{0,48}$/),
  header: headerStyle,
  // Bursts big enough to cross the throttle in one step, and small ones.
  count: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 55, max: 80 })),
  path: fc.constantFrom(...NOISE_PATHS),
  method: fc.constantFrom<'GET' | 'HEAD' | 'POST'>('GET', 'HEAD', 'POST'),
  spoof: fc.option(addressIndex, { nil: null }),
});
const victimStep: fc.Arbitrary<Step> = fc.record({
  kind: fc.constant('victim' as const),
  from: addressIndex,
  path: fc.constantFrom(...VICTIM_PATHS),
  method: fc.constantFrom<'GET' | 'HEAD'>('GET', 'HEAD'),
  header: headerStyle,
});
const steps = fc.array(fc.oneof({ arbitrary: noiseStep, weight: 3 }, { arbitrary: victimStep, weight: 2 }), { minLength: 1, maxLength: 12 });

interface Answer {
  status: number;
  etag: string | undefined;
  contentLength: string | undefined;
  body: string;
}

/** How requests reach the gateway "from" an address. */
interface Addressing {
  /** The n-th address (see nextAddressNumber). */
  address(n: number): string;
  /** The pool to send from `address`, and the headers that name it. */
  sender(address: string, spoofed: string | null): { pool: Pool; headers: Record<string, string> };
  /** Closes every connection opened so far; senders open new ones when asked again. */
  closeAll(): Promise<void>;
}

let addressCounter = 0x000101;
const nextAddressNumber = () => {
  do addressCounter += 1;
  while ((addressCounter & 0xff) === 0 || (addressCounter & 0xff) === 0xff);
  return addressCounter;
};

function socketAddressing(origin: string): Addressing {
  const pools = new Map<string, Pool>();
  return {
    address: (n) => `127.${(n >> 16) & 0xff}.${(n >> 8) & 0xff}.${n & 0xff}`,
    sender(address, spoofed) {
      let pool = pools.get(address);
      if (pool === undefined) {
        pool = new Pool(origin, { connections: 4, localAddress: address });
        pools.set(address, pool);
      }
      // Not trusted here: a client claiming another address must change nothing.
      const headers: Record<string, string> = spoofed === null ? {} : { 'x-forwarded-for': spoofed };
      return { pool, headers };
    },
    closeAll: async () => {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
    },
  };
}

function proxyAddressing(origin: string): Addressing {
  let pool: Pool | undefined;
  return {
    // 198.18.0.0/15, the benchmarking range: never a real client.
    address: (n) => `198.${18 + ((n >> 16) & 1)}.${(n >> 8) & 0xff}.${n & 0xff}`,
    // The proxy appends the address it saw last; a client can only put claims before it.
    sender: (address, spoofed) => ({
      pool: (pool ??= new Pool(origin, { connections: 4 })),
      headers: { 'x-forwarded-for': spoofed === null ? address : `${spoofed}, ${address}` },
    }),
    closeAll: async () => {
      await pool?.close();
      pool = undefined;
    },
  };
}

describe.each<[string, TrustProxy, (origin: string) => Addressing]>([
  ['each client from its own loopback address', false, socketAddressing],
  ['clients named by X-Forwarded-For behind a trusted proxy', ['loopback'], proxyAddressing],
])('a valid key is never refused because of other requests: %s', (_label, trustProxy, makeAddressing) => {
  let harness: GatewayHarness;
  let addressing: Addressing;
  const acme = new PlatformFixture({ id: '00000000-0000-4000-8000-00000000a000', name: 'Acme Events', slug: 'acme' });
  acmeFixture(acme);
  const harbor = new PlatformFixture({ id: '00000000-0000-4000-8000-00000000b000', name: 'Harbor Games', slug: 'harbor' });
  const keys: Record<'same-org' | 'other-org' | 'revoked' | 'exhausted', string> = { 'same-org': '', 'other-org': '', revoked: '', exhausted: '' };
  /** What each victim path answers to a key nobody disturbed: GET and HEAD. */
  const baseline = new Map<string, Answer>();
  /** Noise replies with an invalid credential that got 429: the throttle was reached. */
  let throttled = 0;

  beforeAll(async () => {
    harness = await startHarness({
      deps: {
        // The contract's per-key limit, and the gateway's own invalid-credentials throttle.
        rateLimiter: new InMemoryRateLimiter({ limit: KEY_LIMIT, windowSeconds: 60 }),
        authFailures: undefined,
        trustProxy,
      },
    });
    addressing = makeAddressing(harness.origin);
    await publishFixture(harness.store, acme);
    await publishFixture(harness.store, harbor);
    keys['same-org'] = await harness.keyFor(acme.organization.id);
    keys['other-org'] = await harness.keyFor(harbor.organization.id);
    const revoked = await issueKey(harness.keys, { organizationId: harbor.organization.id });
    await harness.keys.revoke(revoked.record.id, new Date());
    keys.revoked = revoked.secret;
    // Over its limit for good: the clock never moves, so its window never frees a slot.
    keys.exhausted = await harness.keyFor(harbor.organization.id);
    const exhaustFrom = addressing.sender(addressing.address(nextAddressNumber()), null);
    const statuses = await sendMany(exhaustFrom.pool, KEY_LIMIT + 1, '/organization', 'GET', { ...exhaustFrom.headers, 'x-api-key': keys.exhausted });
    expect(statuses.filter((status) => status === 200)).toHaveLength(KEY_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(1);

    const quiet = await harness.keyFor(acme.organization.id);
    const from = addressing.sender(addressing.address(nextAddressNumber()), null);
    for (const path of VICTIM_PATHS) {
      for (const method of ['GET', 'HEAD'] as const) {
        const answer = await send(from.pool, path, method, { ...from.headers, 'x-api-key': quiet });
        expect(answer.status).toBe(200);
        baseline.set(`${method} ${path}`, answer);
      }
    }
    await addressing.closeAll();
  });

  afterAll(async () => {
    await addressing?.closeAll();
    await harness?.close();
  });

  it('whatever other keys and addresses send', async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (generated) => {
        const addresses = Array.from({ length: ADDRESSES_PER_RUN }, () => addressing.address(nextAddressNumber()));
        const victim = await harness.keyFor(acme.organization.id);
        // After all the noise, the victim asks once more from every address.
        const finale: Step[] = addresses.map((_address, from) => ({ kind: 'victim', from, path: '/organization', method: 'GET', header: 'x-api-key' }));
        try {
          for (const step of [...generated, ...finale]) await perform(step, addresses, victim);
        } finally {
          await addressing.closeAll();
        }
      }),
      { numRuns: 30 },
    );
    // The noise was not harmless by accident: it did get addresses throttled.
    expect(throttled).toBeGreaterThan(0);
  });

  async function perform(step: Step, addresses: string[], victim: string): Promise<void> {
    if (step.kind === 'victim') {
      const { pool, headers } = addressing.sender(addresses[step.from]!, null);
      const answer = await send(pool, step.path, step.method, { ...headers, ...credentialHeaders(step.header, victim) });
      expect(answer, `${step.method} ${step.path} from ${addresses[step.from]}`).toEqual(baseline.get(`${step.method} ${step.path}`));
      return;
    }
    const { pool, headers } = addressing.sender(addresses[step.from]!, step.spoof === null ? null : addresses[step.spoof]!);
    const statuses = await sendMany(pool, step.count, step.path, step.method, { ...headers, ...noiseCredential(step, victim) });
    for (const status of statuses) expect(status).toBeLessThan(500);
    if (INVALID.has(step.credential)) throttled += statuses.filter((status) => status === 429).length;
  }

  function noiseCredential(step: NoiseStep, victim: string): Record<string, string> {
    switch (step.credential) {
      case 'missing':
        return {};
      case 'unknown':
        return credentialHeaders(step.header, generateSecret());
      case 'malformed':
        return credentialHeaders(step.header, step.text);
      // The victim's own key beside another: ambiguous, refused, and counted against the address.
      case 'ambiguous':
        return { 'x-api-key': victim, authorization: `Bearer ${keys['other-org']}` };
      case 'wrong-scheme':
        return { authorization: `Basic ${Buffer.from(`user:${victim}`).toString('base64')}` };
      default:
        return credentialHeaders(step.header, keys[step.credential]);
    }
  }
});

function credentialHeaders(style: 'x-api-key' | 'bearer', key: string): Record<string, string> {
  return style === 'x-api-key' ? { 'x-api-key': key } : { authorization: `Bearer ${key}` };
}

/** One request; every response, noise included, must be what schemas/openapi.json promises. */
async function send(pool: Pool, path: string, method: string, headers: Record<string, string>): Promise<Answer> {
  const target = `${API}${path}`;
  const response = await pool.request({ path: target, method: method as 'GET', headers });
  const body = await response.body.text();
  assertContract({ method, path: target, status: response.statusCode, headers: response.headers, body });
  const one = (name: string) => {
    const value = response.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return { status: response.statusCode, etag: one('etag'), contentLength: one('content-length'), body };
}

/** `count` requests, a few at a time; their statuses in order. Bounded by `count`. */
async function sendMany(pool: Pool, count: number, path: string, method: string, headers: Record<string, string>): Promise<number[]> {
  const statuses: number[] = [];
  for (let sent = 0; sent < count; sent += 8) {
    const batch = Math.min(8, count - sent);
    statuses.push(...(await Promise.all(Array.from({ length: batch }, async () => (await send(pool, path, method, headers)).status))));
  }
  return statuses;
}
