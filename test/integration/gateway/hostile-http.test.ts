// What a hostile or broken client meets below the API: bytes the HTTP parser refuses, an Expect
// the gateway does not meet, a header block over the limit, and slow clients holding sockets. Each
// is answered through the one error mapping (problem+json, CORS, no-store) where the socket still
// allows, and a normal client is served throughout a slowloris. Real server (startGateway), raw
// sockets on loopback, timeouts shortened so the test takes seconds.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../../../gateway/server.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { API, publishFixture } from '../../support/gateway-fixtures.ts';
import { issueKey, type TemporaryKeyFile, temporaryKeyFile } from '../../support/keys.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { until } from '../../support/until.ts';

const HEADERS_TIMEOUT_MS = 1_500;
let gateway: RunningGateway;
let keyFile: TemporaryKeyFile;
let key: string;
let port: number;

beforeAll(async () => {
  const store = new MemoryStore();
  const fixture = new PlatformFixture();
  await publishFixture(store, fixture);
  keyFile = await temporaryKeyFile();
  const keys = keyFile.open();
  key = (await issueKey(keys, { organizationId: fixture.organization.id })).secret;
  gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    snapshots: store,
    keys,
    log: new RecordingLog(),
    timeouts: { headersMs: HEADERS_TIMEOUT_MS, requestMs: 3_000, keepAliveMs: 1_000 },
  });
  port = gateway.port;
});

afterAll(async () => {
  await gateway.close();
  await keyFile.remove();
});

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` as it is and reads until the server closes or answers. */
function raw(request: string | Buffer): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(parse(text)));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
  });
}

function parse(text: string): RawReply {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4) };
}

/** An answer through the error mapping: problem+json with its errorCode, CORS open, nosniff, nothing leaked. */
function expectProblem(reply: RawReply, status: number, errorCode: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(reply.headers['access-control-allow-origin']).toBe('*');
  expect(reply.headers['cache-control']).toBe('no-store');
  expect(reply.headers['x-content-type-options']).toBe('nosniff');
  expect(reply.headers['x-powered-by']).toBeUndefined();
  const body = JSON.parse(reply.body) as { status: number; errorCode: string; detail: string };
  expect(body).toMatchObject({ status, errorCode });
  expect(reply.body).not.toMatch(/\bat .*:\d+:\d+|node:internal|Error:/);
}

describe('bytes the HTTP parser refuses', () => {
  it.each([
    ['an unknown method', `FOO ${API}/organization HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['a lower-case method', `get ${API}/organization HTTP/1.1\r\nHost: x\r\n\r\n`],

    ['a header line without a colon', `GET ${API}/organization HTTP/1.1\r\nHost: x\r\nnonsense\r\n\r\n`],
    ['a bare line feed inside a header value', `GET ${API}/organization HTTP/1.1\r\nHost: x\r\nX-Api-Key: a\rb\r\n\r\n`],
  ])('%s: 400 BAD_REQUEST as problem+json', async (_what, request) => {
    expectProblem(await raw(request), 400, 'BAD_REQUEST');
  });

  it('a header block over the limit: 431 REQUEST_HEADERS_TOO_LARGE', async () => {
    expectProblem(await raw(`GET ${API}/organization HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'REQUEST_HEADERS_TOO_LARGE');
  });

  it('Expect with anything but 100-continue: 417 EXPECTATION_FAILED', async () => {
    expectProblem(await raw(`GET ${API}/organization HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nExpect: garbage\r\nConnection: close\r\n\r\n`), 417, 'EXPECTATION_FAILED');
  });

  it('a well-formed request on the same server is served, without X-Powered-By', async () => {
    const reply = await raw(`GET ${API}/organization HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nConnection: close\r\n\r\n`);
    expect(reply.status).toBe(200);
    expect(reply.headers['x-powered-by']).toBeUndefined();
  });
});

describe('slow clients', () => {
  it('a request whose headers do not arrive in time gets 408 REQUEST_TIMEOUT and its socket back', async () => {
    const started = Date.now();
    const reply = await raw(`GET ${API}/organization HTTP/1.1\r\nHost: x\r\n`);
    expectProblem(reply, 408, 'REQUEST_TIMEOUT');
    // The timeout, plus at most one check interval (1 s), plus slack for a loaded machine.
    expect(Date.now() - started).toBeLessThan(HEADERS_TIMEOUT_MS + 3_000);
  });

  it('serves a normal client throughout a slowloris of 500 sockets, and sheds the slow ones', async () => {
    const slow: Socket[] = [];
    const closedAt: number[] = [];
    const started = Date.now();
    await Promise.all(
      Array.from(
        { length: 500 },
        () =>
          new Promise<void>((resolve, reject) => {
            const socket = connect(port, '127.0.0.1', () => {
              socket.write(`GET ${API}/organization HTTP/1.1\r\nHost: x\r\n`);
              resolve();
            });
            socket.on('error', () => {});
            // Reads what comes (the 408), so the close is seen.
            socket.resume();
            socket.on('close', () => closedAt.push(Date.now() - started));
            socket.once('error', reject);
            slow.push(socket);
          }),
      ),
    );
    // A header byte every 200 ms: each socket keeps "sending", as a slowloris does.
    const drip = setInterval(() => {
      for (const socket of slow) if (!socket.destroyed) socket.write('X-A: b\r\n');
    }, 200);
    try {
      // The normal client asks every 50 ms for as long as the slowloris lasts: until the server has
      // closed every slow socket, about when its headers timeout ran out.
      const latencies: number[] = [];
      await until(
        'the server to close every slow socket',
        async () => {
          if (closedAt.length === 500) return true;
          const before = Date.now();
          const response = await fetch(`http://127.0.0.1:${port}${API}/organization`, { headers: { 'X-Api-Key': key } });
          expect(response.status).toBe(200);
          await response.arrayBuffer();
          latencies.push(Date.now() - before);
          return false;
        },
        { timeoutMs: Math.max(1_000, started + HEADERS_TIMEOUT_MS + 3_500 - Date.now()), intervalMs: 50 },
      );
      expect(latencies.length).toBeGreaterThan(10);
      expect(Math.max(...latencies)).toBeLessThan(1_000);
    } finally {
      clearInterval(drip);
    }
    expect(Math.max(...closedAt)).toBeLessThan(HEADERS_TIMEOUT_MS + 3_500);
    for (const socket of slow) socket.destroy();
  });
});
