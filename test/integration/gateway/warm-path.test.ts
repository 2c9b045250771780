// The gateway's speed rests on answering from memory without an asynchronous hop: a warm request
// (pointer, manifest and objects cached; the embedded key file; in-process limiters) is answered
// before the app returns. A stray `async` in a route, the access check or the resources would
// not fail any functional test, only the benchmark; this fails instead, for every route.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../../gateway/app.ts';
import { API_ROUTES } from '../../../gateway/api-routes.ts';
import { API_BASE } from '../../../snapshot/resource-catalog.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { acmeFixture, publishFixture, RecordingLog } from '../../support/gateway-fixtures.ts';
import { issueKey, temporaryKeyFile, type TemporaryKeyFile } from '../../support/keys.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

let gateway: Gateway;
let server: Server;
let base: string;
let key: string;
let keyFile: TemporaryKeyFile;
/** Whether each response had ended when the app returned, by request path. */
const endedInCall = new Map<string, boolean>();

beforeAll(async () => {
  const store = new MemoryStore();
  keyFile = await temporaryKeyFile();
  const keys = keyFile.open();
  const fixture = new PlatformFixture();
  acmeFixture(fixture);
  await publishFixture(store, fixture);
  key = (await issueKey(keys, { organizationId: fixture.organization.id, origins: [] })).secret;
  gateway = createGateway({ snapshots: store, keys, log: new RecordingLog() });
  await gateway.ready;
  server = createServer((req, res) => {
    gateway.app(req, res);
    endedInCall.set(req.url ?? '', res.writableEnded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_BASE}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await gateway.close();
  await keyFile.remove();
});

it.each(API_ROUTES.map((route) => [route.name, route.pattern.replace('{idOrSlug}', 'acme-conf')]))('%s (%s) is answered synchronously once warm', async (_name, path) => {
  const url = `${base}${path}`;
  for (let i = 0; i < 2; i++) {
    const response = await fetch(url, { headers: { 'X-Api-Key': key } });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  }
  expect(endedInCall.get(`${API_BASE}${path}`)).toBe(true);
});
