// The gateway's address (GATEWAY_HOST, docs/configuration.md): the URL it reports is made of the
// address really bound and its port, IPv6 in brackets; bound to every interface, it says so and
// reports loopback to reach it. Real servers on this machine's loopback (startGateway).
import { afterEach, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../../../gateway/server.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { CountingKeyStore } from '../../support/keys.ts';
import { RecordingLog } from '../../support/recording-log.ts';

const running: RunningGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.close()));
});

async function listen(host: string | undefined): Promise<RunningGateway> {
  const gateway = await startGateway({ port: 0, ...(host === undefined ? {} : { host }), snapshots: new MemoryStore(), keys: new CountingKeyStore(), log: new RecordingLog() });
  running.push(gateway);
  return gateway;
}

it.each([
  ['127.0.0.1', 'http://127.0.0.1:PORT', '127.0.0.1:PORT', false],
  ['localhost', /^http:\/\/(127\.0\.0\.1|\[::1\]):PORT$/, /^(127\.0\.0\.1|\[::1\]):PORT$/, false],
  ['::1', 'http://[::1]:PORT', '[::1]:PORT', false],
  ['0.0.0.0', 'http://127.0.0.1:PORT', '0.0.0.0:PORT', true],
  ['::', 'http://127.0.0.1:PORT', '[::]:PORT', true],
  [undefined, 'http://127.0.0.1:PORT', /^(0\.0\.0\.0|\[::\]):PORT$/, true],
] as const)('host %s: reports %s, bound to %s', async (host, url, address, everyInterface) => {
  const gateway = await listen(host);
  const withPort = (expected: string | RegExp) =>
    typeof expected === 'string' ? expected.replace('PORT', String(gateway.port)) : new RegExp(expected.source.replace('PORT', String(gateway.port)));
  expect(gateway.port).toBeGreaterThan(0);
  expect({ everyInterface: gateway.everyInterface }).toEqual({ everyInterface });
  if (typeof url === 'string') expect(gateway.url).toBe(withPort(url));
  else expect(gateway.url).toMatch(withPort(url));
  if (typeof address === 'string') expect(gateway.address).toBe(withPort(address));
  else expect(gateway.address).toMatch(withPort(address));
  // The URL is one a client can use as it is printed.
  expect(new URL(gateway.url).port).toBe(String(gateway.port));
  expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
});
