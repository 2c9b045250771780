// Every answer of the gateway is nosniff (docs/design.md "Gateway"), besides its CORS
// headers: a 200 and its HEAD, a 304, a problem of the API before and after the key check, a path
// outside the API, the health check and the docs pages (gateway/standing-headers.ts).
import { expect, it } from 'vitest';
import { API, type Reply } from '../../support/gateway-fixtures.ts';
import { useAcmeWorld } from '../../support/gateway-world.ts';

const acme = useAcmeWorld();

function expectStanding(reply: Reply, status: number): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['x-content-type-options']).toBe('nosniff');
  expect(reply.headers['access-control-allow-origin']).toBe('*');
}

it('a 200, its HEAD and a 304 of the API are nosniff', async () => {
  const ok = await acme.call('/events');
  expectStanding(ok, 200);
  expectStanding(await acme.call('/events', { method: 'HEAD' }), 200);
  expectStanding(await acme.call('/events', { headers: { 'If-None-Match': ok.headers.etag! } }), 304);
  expectStanding(await acme.call(`/events/${acme.events.conference.slug}/sessions`), 200);
});

it('every problem of the API is nosniff, whichever check refused it', async () => {
  expectStanding(await acme.harness.call(`${API}/organization`), 401);
  expectStanding(await acme.call('/events?page=0'), 400);
  expectStanding(await acme.call('/events/no-such-event'), 404);
  expectStanding(await acme.call('/no-such-path'), 404);
  expectStanding(await acme.call('/organization', { method: 'DELETE' }), 405);
  expectStanding(await acme.call('/organization', { headers: { 'Marquee-Snapshot-Id': '20200101T000000000Z-000000000000' } }), 409);
});

it('answers outside the API are nosniff: an unknown path, the health check, the docs and their 304', async () => {
  expectStanding(await acme.harness.call('/no-such-path'), 404);
  expectStanding(await acme.harness.call('/healthz'), 200);
  const openapi = await acme.harness.call('/openapi.json');
  expectStanding(openapi, 200);
  expectStanding(await acme.harness.call('/openapi.json', { headers: { 'If-None-Match': openapi.headers.etag! } }), 304);
  expectStanding(await acme.harness.call('/docs/'), 200);
});
