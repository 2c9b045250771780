// CdnSource against a real HTTP server on loopback, standing in for the CDN so that each test
// decides its answers: statuses, stalls, oversized bodies.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { manifestKey, objectKey, pointerKey } from '../../../snapshot/layout.ts';
import { StoreKeyError, StoreUnavailableError } from '../../../snapshot/store.ts';
import { CdnSource } from '../../../snapshot/stores/cdn-source.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { freePort } from '../../support/ports.ts';

const ORG = '00000000-0000-4000-8000-000000000001';
const HASH = 'a'.repeat(64);

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface FakeCdn {
  url: string;
  /** Request paths in arrival order. */
  paths: string[];
  answer: Handler;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startCdn(answer: Handler): Promise<FakeCdn> {
  const cdn: FakeCdn = { url: '', paths: [], answer };
  const server: Server = createServer((req, res) => {
    cdn.paths.push(req.url ?? '');
    cdn.answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cdn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return cdn;
}

function source(cdnUrl: string, origin = new MemoryStore(), options: ConstructorParameters<typeof CdnSource>[2] = {}): CdnSource {
  const made = new CdnSource(origin, cdnUrl, { retryDelayMs: 1, ...options });
  cleanups.push(() => made.close());
  return made;
}

const send =
  (status: number, body = '') =>
  (_req: IncomingMessage, res: ServerResponse) =>
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(body);

describe('CdnSource', () => {
  it('reads manifests and objects below the CDN base, and pointers and presence from the store itself', async () => {
    const cdn = await startCdn(send(200, '{"from":"cdn"}'));
    const origin = new MemoryStore();
    await origin.put(pointerKey(ORG), Buffer.from('{"from":"store"}'));
    const snapshots = source(`${cdn.url}/bucket/prefix/`, origin);

    expect((await snapshots.get(objectKey(ORG, HASH)))?.toString()).toBe('{"from":"cdn"}');
    expect((await snapshots.get(manifestKey(ORG, '20260101T000000000Z-abcdefabcdef')))?.toString()).toBe('{"from":"cdn"}');
    expect((await snapshots.get(pointerKey(ORG)))?.toString()).toBe('{"from":"store"}');
    const versioned = await snapshots.getIfChanged(pointerKey(ORG), undefined);
    expect(versioned !== 'unchanged' && versioned?.bytes.toString()).toBe('{"from":"store"}');
    expect(await snapshots.has(pointerKey(ORG))).toBe(true);
    expect(await snapshots.has(objectKey(ORG, HASH))).toBe(false);
    expect(cdn.paths).toEqual([`/bucket/prefix/orgs/${ORG}/objects/${HASH}.json`, `/bucket/prefix/orgs/${ORG}/snapshots/20260101T000000000Z-abcdefabcdef.json`]);
    expect(snapshots.description).toBe(`memory through CDN ${cdn.url}/bucket/prefix`);
  });

  it('reads a missing key (404) as undefined, as the store would', async () => {
    const cdn = await startCdn(send(404, '<Error><Code>NoSuchKey</Code></Error>'));
    expect(await source(cdn.url).get(objectKey(ORG, HASH))).toBeUndefined();
    expect(cdn.paths).toHaveLength(1);
  });

  it('sends one request for a cold key however many readers ask for it at once', async () => {
    let arrived: (res: ServerResponse) => void = () => {};
    const first = new Promise<ServerResponse>((resolve) => (arrived = resolve));
    const cdn = await startCdn((req, res) => (cdn.paths.length === 1 ? arrived(res) : send(200, '{"again":true}')(req, res)));
    const snapshots = source(cdn.url);
    const readers = Array.from({ length: 50 }, () => snapshots.get(objectKey(ORG, HASH)));
    // Answered only once all 50 wait; a second request would be counted and answered other bytes.
    (await first).writeHead(200).end('{"once":true}');
    const read = await Promise.all(readers);
    expect(read.every((bytes) => bytes?.toString() === '{"once":true}')).toBe(true);
    expect(cdn.paths).toHaveLength(1);
    // Settled: the next read is a new request (the gateway's object cache keeps the bytes, not this).
    await snapshots.get(objectKey(ORG, HASH));
    expect(cdn.paths).toHaveLength(2);
  });

  it('retries a 5xx and gives the bytes of the attempt that succeeds', async () => {
    const statuses = [503, 502];
    const cdn = await startCdn((req, res) => send(statuses.shift() ?? 200, '{"third":true}')(req, res));
    expect((await source(cdn.url, undefined, { retries: 2 }).get(objectKey(ORG, HASH)))?.toString()).toBe('{"third":true}');
    expect(cdn.paths).toHaveLength(3);
  });

  it('reports a CDN that keeps failing as StoreUnavailableError after its retries', async () => {
    const cdn = await startCdn(send(504));
    const read = source(cdn.url, undefined, { retries: 2 }).get(objectKey(ORG, HASH));
    await expect(read).rejects.toThrow(StoreUnavailableError);
    await expect(read).rejects.toThrow(/3 attempts.*504/);
    expect(cdn.paths).toHaveLength(3);
  });

  it('retries a CDN that fails every request only while its retry budget lasts, and earns it back with successes', async () => {
    let failing = true;
    const cdn = await startCdn((req, res) => send(failing ? 503 : 200, '{}')(req, res));
    const cdnSource = source(cdn.url, undefined, { retries: 2 });
    const keys = Array.from({ length: 100 }, (_, n) => objectKey(ORG, n.toString(16).padStart(64, '0')));
    for (const key of keys) await expect(cdnSource.get(key)).rejects.toThrow(StoreUnavailableError);
    // Three attempts each would be 300 requests; the budget allows 20 retries in a row.
    expect(cdn.paths).toHaveLength(100 + 20);
    await expect(cdnSource.get(keys[0]!)).rejects.toThrow(/\(1 attempt\).*503/);

    // Ten successes earn one retry back.
    failing = false;
    for (const key of keys.slice(0, 10)) await cdnSource.get(key);
    failing = true;
    cdn.paths.length = 0;
    await expect(cdnSource.get(keys[0]!)).rejects.toThrow(/2 attempts/);
    expect(cdn.paths).toHaveLength(2);
  });

  it('reports a CDN that cannot be reached as StoreUnavailableError', async () => {
    const closedPort = await freePort();
    await expect(source(`http://127.0.0.1:${closedPort}`).get(objectKey(ORG, HASH))).rejects.toThrow(StoreUnavailableError);
  });

  it('reports a CDN that does not answer within the headers timeout as StoreUnavailableError', async () => {
    const cdn = await startCdn(() => {
      // Never answers.
    });
    const read = source(cdn.url, undefined, { headersTimeoutMs: 100, retries: 0 }).get(objectKey(ORG, HASH));
    await expect(read).rejects.toThrow(StoreUnavailableError);
    await expect(read).rejects.toThrow(/Headers Timeout/);
  });

  it('refuses at once, as a fault and not an outage, a CDN that refuses access and a body over the bound', async () => {
    const forbidden = await startCdn(send(403));
    const refused = source(forbidden.url).get(objectKey(ORG, HASH));
    await expect(refused).rejects.toThrow(/answered 403/);
    await expect(refused).rejects.not.toThrow(StoreUnavailableError);
    expect(forbidden.paths).toHaveLength(1);

    const large = await startCdn(send(200, 'x'.repeat(2048)));
    const oversized = source(large.url, undefined, { maxBodyBytes: 1024 }).get(objectKey(ORG, HASH));
    await expect(oversized).rejects.toThrow(/larger than 1024 bytes/);
    await expect(oversized).rejects.not.toThrow(StoreUnavailableError);
    expect(large.paths).toHaveLength(1);
  });

  it('refuses keys no store accepts, and CDN URLs it cannot use', async () => {
    const cdn = await startCdn(send(200, '{}'));
    await expect(source(cdn.url).get('orgs/../x.json')).rejects.toThrow(StoreKeyError);
    expect(cdn.paths).toEqual([]);
    expect(() => new CdnSource(new MemoryStore(), 'ftp://cdn.example/')).toThrow(/http/);
    expect(() => new CdnSource(new MemoryStore(), 'https://cdn.example/?token=1')).toThrow(/path only/);
  });
});
