// The SnapshotStore contract (test/contracts/snapshot-store.ts) against the S3 store on s3rver,
// through the proxy that gives s3rver real S3's conditional writes; each test has a fresh prefix,
// and a second S3Store on the same bucket and prefix stands for another process. Then what the
// contract does not say: headers, the prefix, long listings, the conditional-write probe, and how
// the store fails when throttled (its bounds in time: s3-store-bounds.test.ts; stuck:
// s3-store-stuck.test.ts).
import { randomUUID } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { publishSnapshot } from '../../../builder/publish.ts';
import { manifestKey, objectKey, objectPrefix, pointerKey } from '../../../snapshot/layout.ts';
import { StoreUnavailableError } from '../../../snapshot/store.ts';
import { S3Store } from '../../../snapshot/stores/s3.ts';
import { snapshotStoreContract } from '../../contracts/snapshot-store.ts';
import { expectCodedForms, resourcesWithLargeOnes } from '../../support/coded-forms.ts';
import { type ConditionalWritesProxy, startConditionalWrites } from '../../support/conditional-writes.ts';
import { startS3, type TestS3 } from '../../support/s3.ts';

let s3: TestS3;
let proxy: ConditionalWritesProxy;
/** Makes the proxy answer the next requests with an S3 error instead of forwarding them. */
let failNext: { count: number; status: number; code: string } = { count: 0, status: 0, code: '' };

beforeAll(async () => {
  s3 = await startS3();
  // The store finds its credentials and region where the SDK looks for them, as in production.
  for (const [name, value] of Object.entries(s3.env(''))) if (name.startsWith('AWS_')) vi.stubEnv(name, value);
  proxy = await startConditionalWrites(s3, {
    intercept: () => {
      if (failNext.count === 0) return 'forward';
      failNext.count--;
      return { status: failNext.status, code: failNext.code };
    },
  });
});
afterAll(async () => {
  await proxy?.close();
  await s3?.stop();
  vi.unstubAllEnvs();
});

const freshPrefix = () => `contract-${randomUUID()}`;

/** Where a descriptor of this process points, or '' once it is closed. */
function readlinkSafe(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

snapshotStoreContract('S3Store', {
  setup() {
    const prefix = freshPrefix();
    return {
      store: new S3Store({ bucket: s3.bucket, prefix, endpoint: proxy.endpoint }),
      other: () => new S3Store({ bucket: s3.bucket, prefix, endpoint: proxy.endpoint }),
    };
  },
  capabilities: ['other'],
});

/** What s3rver holds under `name` (bucket-relative), read without the store: it answers unsigned requests. */
async function raw(name: string): Promise<Response> {
  return fetch(`${s3.endpoint}/${s3.bucket}/${name}`, { method: 'HEAD' });
}

describe('S3Store beyond the contract', () => {
  const org = '0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11';
  const hash = 'a'.repeat(64);

  it('keeps each key at prefix/key, as JSON, immutable for a year except the pointer, which caches must revalidate', async () => {
    const prefix = freshPrefix();
    const store = new S3Store({ bucket: s3.bucket, prefix, endpoint: proxy.endpoint });
    expect(store.description).toBe(`s3://${s3.bucket}/${prefix}`);
    await store.put(objectKey(org, hash), Buffer.from('{}'));
    await store.put(manifestKey(org, '20261121T100000000Z-aaaaaaaaaaaa'), Buffer.from('{}'));
    await store.put(pointerKey(org), Buffer.from('{}'));
    const read = await store.getIfChanged(pointerKey(org), undefined);
    if (read === undefined || read === 'unchanged') throw new Error('expected the pointer');
    expect(await store.putIfVersion(pointerKey(org), Buffer.from('{"v":2}'), read.version)).toBe('written');
    for (const [key, cacheControl] of [
      [objectKey(org, hash), 'public, max-age=31536000, immutable'],
      [manifestKey(org, '20261121T100000000Z-aaaaaaaaaaaa'), 'public, max-age=31536000, immutable'],
      [pointerKey(org), 'no-cache'],
    ]) {
      const head = await raw(`${prefix}/${key}`);
      expect(head.status, key).toBe(200);
      expect(head.headers.get('cache-control'), key).toBe(cacheControl);
      expect(head.headers.get('content-type'), key).toBe('application/json');
    }
    // The version is the ETag, which a CDN compares too.
    const now = await store.getIfChanged(pointerKey(org), undefined);
    expect(now).toMatchObject({ version: (await raw(`${prefix}/${pointerKey(org)}`)).headers.get('etag') });
    expect(await new S3Store({ bucket: s3.bucket, prefix: `${prefix}-other`, endpoint: proxy.endpoint }).list('')).toEqual([]);
  });

  it("keeps a publish's coded forms beside each object as opaque bytes, immutable for a year, with no Content-Encoding for a reader to undo", async () => {
    const prefix = freshPrefix();
    const store = new S3Store({ bucket: s3.bucket, prefix, endpoint: proxy.endpoint });
    await publishSnapshot(store, {
      organizationId: org,
      organizationSlug: 'nordic',
      state: 'active',
      trigger: 'manual',
      now: new Date(),
      slugs: {},
      resources: resourcesWithLargeOnes(org, 'Nordic'),
      codings: ['br', 'gzip'],
    });
    expect(await expectCodedForms(store, org, ['br', 'gzip'])).toBe(1);
    const coded = (await store.list(objectPrefix(org))).filter((key) => !key.endsWith('.json'));
    expect(coded).toHaveLength(2);
    for (const key of coded) {
      const head = await raw(`${prefix}/${key}`);
      expect(head.status, key).toBe(200);
      expect(head.headers.get('content-type'), key).toBe('application/octet-stream');
      expect(head.headers.get('content-encoding'), key).toBeNull();
      expect(head.headers.get('cache-control'), key).toBe('public, max-age=31536000, immutable');
    }
  });

  it('lists beyond one page of 1,000 keys, in order', async () => {
    const store = new S3Store({ bucket: s3.bucket, prefix: freshPrefix(), endpoint: proxy.endpoint });
    const keys = Array.from({ length: 1_100 }, (_, i) => objectKey(org, i.toString(16).padStart(64, '0')));
    const queue = [...keys];
    const worker = async () => {
      for (let key = queue.pop(); key; key = queue.pop()) await store.put(key, Buffer.from(key));
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const pagesBefore = proxy.requests.filter((request) => request.url.includes('list-type=2')).length;
    expect(await store.list('orgs/')).toEqual([...keys].sort());
    expect(proxy.requests.filter((request) => request.url.includes('list-type=2')).length - pagesBefore).toBe(2);
  });

  it('detects a server that ignores conditional writes: s3rver itself does, through the proxy S3 does not', async () => {
    const prefix = freshPrefix();
    const bare = new S3Store({ bucket: s3.bucket, prefix, endpoint: s3.endpoint });
    const conditional = new S3Store({ bucket: s3.bucket, prefix, endpoint: proxy.endpoint });
    expect(await bare.probeConditionalWrites()).toBe(false);
    expect(await conditional.probeConditionalWrites()).toBe(true);
    // A builder's start (prepare) tells the operator of the first, and says nothing of the second.
    const warnings: string[] = [];
    const log = { info: () => {}, error: () => {}, warn: (message: string) => warnings.push(message) };
    await conditional.prepare(log);
    expect(warnings).toEqual([]);
    await bare.prepare(log);
    expect(warnings).toEqual([`${bare.description}: the server ignores conditional writes (If-Match, If-None-Match); two builders are kept apart by the Redis build locks alone`]);
    // The probe leaves nothing behind.
    const listing = await (await fetch(`${s3.endpoint}/${s3.bucket}?list-type=2&prefix=${encodeURIComponent(`${prefix}/`)}`)).text();
    expect(listing).not.toContain('<Key>');
    // What the probe guards against: on s3rver alone, a second "only if absent" overwrites the first.
    expect(await bare.putIfVersion('orgs/a/current.json', Buffer.from('first'), null)).toBe('written');
    expect(await bare.putIfVersion('orgs/a/current.json', Buffer.from('second'), null)).toBe('written');
  });

  it('stores a PUT whole or not at all: a writer gone mid-body leaves nothing through the proxy, where s3rver alone keeps what came', async () => {
    /** Sends half of a 2 KiB PUT body to `endpoint`, then drops the connection, as a killed writer does. */
    async function halfPut(endpoint: string, name: string): Promise<void> {
      const url = new URL(`${endpoint}/${s3.bucket}/${name}`);
      const socket = createConnection({ host: url.hostname, port: Number(url.port) });
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`PUT ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 2048\r\n\r\n`);
      socket.write('x'.repeat(1024));
      // A moment mid-body, as a writer killed while sending is.
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
    }
    const prefix = freshPrefix();
    const throughProxy = `${prefix}/through-proxy.json`;
    await halfPut(proxy.endpoint, throughProxy);
    // The proxy is done with the PUT once it has seen its writer go: nothing of it was stored.
    await expect.poll(() => proxy.finished.some((request) => request.method === 'PUT' && request.name === `${s3.bucket}/${throughProxy}`)).toBe(true);
    expect((await raw(throughProxy)).status).toBe(404);
    // What the proxy repairs; if s3rver ever stops keeping partial bodies this half can go.
    await halfPut(s3.endpoint, `${prefix}/bare.json`);
    await expect.poll(async () => (await raw(`${prefix}/bare.json`)).status, { timeout: 5_000, interval: 20 }).toBe(200);
  });

  it('answers a conditional GET 304 without leaving a file open: s3rver alone leaks one per 304, as the soak found', async () => {
    const prefix = freshPrefix();
    const key = pointerKey('00000000-0000-4000-8000-000000000001');
    const store = new S3Store({ bucket: s3.bucket, prefix, endpoint: proxy.endpoint });
    await store.put(key, Buffer.from('{"v":1}'));
    const first = await store.getIfChanged(key, undefined);
    if (first === undefined || first === 'unchanged') throw new Error('expected the pointer');
    /** s3rver runs in this process: its files are among this process's descriptors. */
    const openObjectFiles = () => readdirSync('/proc/self/fd').filter((fd) => readlinkSafe(`/proc/self/fd/${fd}`).includes(prefix)).length;
    for (let n = 0; n < 50; n++) expect(await store.getIfChanged(key, first.version)).toBe('unchanged');
    // A file opened for an answer may be closed a moment after it: every one closed, none left open.
    await expect.poll(openObjectFiles, { timeout: 5_000, interval: 20 }).toBe(0);
    // Changed: the GET is forwarded and answered whole.
    await store.put(key, Buffer.from('{"v":2}'));
    expect((await store.getIfChanged(key, first.version)) as { bytes: Buffer }).toMatchObject({ bytes: Buffer.from('{"v":2}') });

    // What the proxy repairs; if s3rver ever closes the file on a 304 this half can go.
    const bare = new S3Store({ bucket: s3.bucket, prefix, endpoint: s3.endpoint });
    const current = await bare.getIfChanged(key, undefined);
    if (current === undefined || current === 'unchanged') throw new Error('expected the pointer');
    for (let n = 0; n < 10; n++) expect(await bare.getIfChanged(key, current.version)).toBe('unchanged');
    expect(openObjectFiles()).toBeGreaterThanOrEqual(10);
  });

  it('retries throttling and 5xx with backoff, then succeeds; rejects with StoreUnavailableError when they persist', async () => {
    const store = new S3Store({ bucket: s3.bucket, prefix: freshPrefix(), endpoint: proxy.endpoint });
    await store.put('orgs/a/current.json', Buffer.from('kept'));
    failNext = { count: 2, status: 503, code: 'SlowDown' };
    expect((await store.get('orgs/a/current.json'))?.toString()).toBe('kept');
    expect(failNext.count).toBe(0);

    failNext = { count: 3, status: 500, code: 'InternalError' };
    const error = await store.put('orgs/a/current.json', Buffer.from('lost')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).cause).toMatchObject({ $metadata: { httpStatusCode: 500, attempts: 3 } });
    expect((await store.get('orgs/a/current.json'))?.toString()).toBe('kept');
  });

  it('tells a broken setup from a store that is down: a missing bucket is an error, not StoreUnavailableError', async () => {
    const store = new S3Store({ bucket: 'no-such-bucket', prefix: 'x', endpoint: proxy.endpoint });
    const error = await store.list('').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain('s3://no-such-bucket/x: list');
  });
});
