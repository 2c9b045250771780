// Who the invalid-credentials throttle counts (TRUST_PROXY): without trusted proxies the socket's
// address, whatever X-Forwarded-For claims; behind trusted proxies the client they name. Driven
// through the real gateway app with its default throttle (60 invalid credentials a minute).
import { afterEach, describe, expect, it } from 'vitest';
import type { TrustProxy } from '../../../gateway/access/client-address.ts';
import { API, publishFixture, startHarness, type GatewayHarness } from '../../support/gateway-fixtures.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

const THRESHOLD = 60;
const UNKNOWN_KEY = 'mqk_0000000000000000000000000000000sQHLi';

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function gatewayTrusting(trustProxy: TrustProxy): Promise<{ harness: GatewayHarness; key: string }> {
  harness = await startHarness({ deps: { trustProxy, authFailures: undefined } });
  const fixture = new PlatformFixture();
  await publishFixture(harness.store, fixture);
  return { harness, key: await harness.keyFor(fixture.organization.id) };
}

async function invalidFrom(gateway: GatewayHarness, forwardedFor: string | undefined): Promise<number> {
  const headers: Record<string, string> = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  return (await gateway.call(`${API}/organization`, { key: UNKNOWN_KEY, headers })).status;
}

describe('TRUST_PROXY', () => {
  it('unset: X-Forwarded-For is ignored, so a client cannot rotate out of its throttle', async () => {
    const { harness: gateway } = await gatewayTrusting(false);
    for (let i = 0; i < THRESHOLD; i++) expect(await invalidFrom(gateway, `198.51.100.${i}`)).toBe(401);
    expect(await invalidFrom(gateway, '198.51.100.250')).toBe(429);
  });

  it.each<[string, TrustProxy]>([
    ['a hop count', 1],
    ["the proxy's address", ['127.0.0.1']],
    ['a preset', ['loopback']],
  ])('trusting the proxy by %s: clients behind it are counted apart, a valid key is served throughout', async (_how, trustProxy) => {
    const { harness: gateway, key } = await gatewayTrusting(trustProxy);
    for (let i = 0; i < THRESHOLD; i++) expect(await invalidFrom(gateway, '203.0.113.9')).toBe(401);
    expect(await invalidFrom(gateway, '203.0.113.9')).toBe(429);
    // A spoofed leftmost entry does not help: the proxy appends the real client last.
    expect(await invalidFrom(gateway, '192.0.2.1, 203.0.113.9')).toBe(429);
    expect(await invalidFrom(gateway, '203.0.113.10')).toBe(401);
    const served = await gateway.call(`${API}/organization`, { key, headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(served.status).toBe(200);
  });

  it('counts IPv6 clients per /64', async () => {
    const { harness: gateway } = await gatewayTrusting(1);
    for (let i = 0; i < THRESHOLD; i++) expect(await invalidFrom(gateway, `2001:db8:aa:bb::${(i + 1).toString(16)}`)).toBe(401);
    expect(await invalidFrom(gateway, '2001:db8:aa:bb:1:2:3:4')).toBe(429);
    expect(await invalidFrom(gateway, '2001:db8:aa:bc::1')).toBe(401);
  });
});
