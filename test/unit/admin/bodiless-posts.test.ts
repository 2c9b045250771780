// A state-changing admin request with no body, over real HTTP against the admin app in-process
// (over the console's fake services): `Content-Type: application/json` is what the API asks of a
// change (docs/design.md "Cross-site protections"), body or not, so POST /builds and POST
// /keys/{id}/revoke are accepted with no body, an empty one, Content-Length: 0 or no
// Content-Length at all; a route whose body requires members says which (400), and a POST that
// does not say it is JSON is still 415, as another site's form or no-cors fetch would be.
import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_API_BASE } from '../../../admin/api-routes.ts';
import { createAdminApp } from '../../../admin/app.ts';
import { assertAdminContract } from '../../support/admin-contract.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { fakeServices } from './console/fake-services.ts';

const TOKEN = 'the-admin-token-1234';
let server: Server;
let port: number;
let keyId: string;

beforeAll(async () => {
  const app = createAdminApp({ token: TOKEN, registry: new Registry(), readiness: () => ({ status: 'ready', backends: {} }), log: new RecordingLog(), services: fakeServices() });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
  const created = await fetch(`http://127.0.0.1:${port}${ADMIN_API_BASE}/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ organization: 'nordic-dev' }),
  });
  keyId = ((await created.json()) as { id: string }).id;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** A POST written byte for byte, so that what is sent is only what the case says: no Content-Length unless given. */
function rawPost(path: string, headers: readonly string[], body = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end([`POST ${ADMIN_API_BASE}${path} HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: Bearer ${TOKEN}`, 'Connection: close', ...headers, '', body].join('\r\n'));
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      const payload = text.slice(text.indexOf('\r\n\r\n') + 4);
      // Express answers Content-Length (not chunked) here: the payload is the body as sent.
      resolve({ status, body: JSON.parse(payload) as Record<string, unknown> });
    });
  });
}

/** The same through fetch (undici), its answer checked against the admin API's document. */
async function fetchPost(path: string, init: { headers: Record<string, string>; body?: string }): Promise<Answer> {
  const url = `http://127.0.0.1:${port}${ADMIN_API_BASE}${path}`;
  const response = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }) });
  await assertAdminContract('POST', url, response);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const JSON_TYPE = 'Content-Type: application/json';

describe.each([
  ['/builds', 202],
  ['/keys/{id}/revoke', 200],
])('POST %s sent as JSON with no body', (template, status) => {
  const path = () => template.replace('{id}', keyId);

  it('is accepted without Content-Length', async () => {
    expect(await rawPost(path(), [JSON_TYPE])).toMatchObject({ status });
  });

  it('is accepted with Content-Length: 0', async () => {
    expect(await rawPost(path(), [JSON_TYPE, 'Content-Length: 0'])).toMatchObject({ status });
  });

  it('is accepted with an empty chunked body', async () => {
    expect(await rawPost(path(), [JSON_TYPE, 'Transfer-Encoding: chunked'], '0\r\n\r\n')).toMatchObject({ status });
  });

  it('is accepted through fetch with no body and with an empty one (each sent with Content-Length: 0)', async () => {
    expect(await fetchPost(path(), { headers: { 'Content-Type': 'application/json' } })).toMatchObject({ status });
    expect(await fetchPost(path(), { headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: '' })).toMatchObject({ status });
  });

  it('is still 415 without a JSON Content-Type, body or not: what another site can send without a preflight', async () => {
    for (const headers of [[], ['Content-Length: 0'], ['Content-Type: text/plain', 'Content-Length: 0'], ['Content-Type: application/x-www-form-urlencoded']]) {
      const answer = await rawPost(path(), headers);
      expect(answer, headers.join(', ')).toMatchObject({ status: 415, body: { errorCode: 'UNSUPPORTED_MEDIA_TYPE' } });
    }
    const form = await fetchPost(path(), { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'organizations=nordic-dev' });
    expect(form).toMatchObject({ status: 415, body: { errorCode: 'UNSUPPORTED_MEDIA_TYPE' } });
  });
});

it('answers a body-less POST to a route whose body requires members with the 400 that names them', async () => {
  for (const headers of [[JSON_TYPE], [JSON_TYPE, 'Content-Length: 0']]) {
    expect(await rawPost('/keys', headers)).toMatchObject({
      status: 400,
      body: { errorCode: 'BAD_REQUEST', detail: 'organization (the organization, by id or slug) is required' },
    });
  }
});
