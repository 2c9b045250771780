// Gateways reading snapshots through a CDN (snapshot/stores/cdn-source.ts) on real servers: s3rver
// as the bucket, written by the real S3Store as the builder writes it, and nginx as the caching CDN
// in front of it. Two recording proxies count the traffic: `edge` every request a gateway sends to
// the CDN (with nginx's X-Cache-Status), `fill` every request the CDN sends to the bucket. Then
// the shipped deploy/nginx/marquee-cdn.conf in front of the same bucket, carrying objects' coded
// forms as the store holds them.
//
//   gateway ─► edge ─► nginx ─► fill ─► s3rver ◄─ S3Store (publish; the gateways' pointer reads)
import { randomUUID } from 'node:crypto';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CODINGS, compress, decode } from '../../../snapshot/codings.ts';
import { codedObjectKey, manifestKey, objectKey, pointerKey } from '../../../snapshot/layout.ts';
import { readManifest, readPointer } from '../../../snapshot/reader.ts';
import type { Organization } from '../../../snapshot/schema-types.ts';
import { CdnSource } from '../../../snapshot/stores/cdn-source.ts';
import { S3Store } from '../../../snapshot/stores/s3.ts';
import { API, type GatewayHarness, publishFixture, startHarness } from '../../support/gateway-fixtures.ts';
import { startHttpCache, startShippedCdn, type TestHttpCache } from '../../support/http-cache.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';
import { type RecordingProxy, startRecordingProxy } from '../../support/recording-proxy.ts';
import { S3RVER_CREDENTIALS, startS3, type TestS3 } from '../../support/s3.ts';
import { until } from '../../support/until.ts';

const PREFIX = 'marquee/api';

let s3: TestS3;
let fill: RecordingProxy;
let cache: TestHttpCache;
let edge: RecordingProxy;
let store: S3Store;
/** SNAPSHOT_CDN_URL: the CDN's path for the store's prefix. */
let cdnUrl: string;
const closing: Array<() => Promise<void>> = [];

beforeAll(async () => {
  s3 = await startS3();
  // The store finds its credentials where the SDK looks for them, as in production.
  for (const [name, value] of Object.entries(s3.env(PREFIX))) if (name.startsWith('AWS_')) vi.stubEnv(name, value);
  fill = await startRecordingProxy(s3.endpoint);
  cache = await startHttpCache(fill.origin);
  edge = await startRecordingProxy(cache.url);
  store = new S3Store({ bucket: s3.bucket, prefix: PREFIX, endpoint: s3.endpoint });
  cdnUrl = `${edge.origin}/${s3.bucket}/${PREFIX}`;
});

afterAll(async () => {
  for (const close of closing.reverse()) await close();
  await edge?.close();
  await cache?.stop();
  await fill?.close();
  await s3?.stop();
  vi.unstubAllEnvs();
});

/** A gateway reading through the CDN, closed after the file. */
async function gateway(): Promise<GatewayHarness> {
  const snapshots = new CdnSource(store, cdnUrl);
  const harness = await startHarness({ store, deps: { snapshots } });
  closing.push(async () => {
    await harness.close();
    await snapshots.close();
  });
  return harness;
}

/** An organization of its own for each test, with one published event. */
function organization(description: string): PlatformFixture {
  const fixture = new PlatformFixture({ id: randomUUID(), slug: `org-${randomUUID().slice(0, 8)}`, description });
  fixture.speaker({ name: 'Ada Lovelace' });
  fixture.event({ name: 'Summit', slug: 'summit', startsAt: '2026-05-01T07:00:00Z', endsAt: '2026-05-01T16:00:00Z' });
  return fixture;
}

/** Publishes the fixture with a new description, as a later build would. */
async function republish(fixture: PlatformFixture, description: string): Promise<void> {
  fixture.organization.description = description;
  await publishFixture(store, fixture, { now: new Date() });
}

const inStore = (key: string) => `/${s3.bucket}/${PREFIX}/${key}`;
const requestsFor = (proxy: RecordingProxy, key: string) => proxy.exchanges.filter((exchange) => exchange.path === inStore(key));
const description = async (harness: GatewayHarness, key: string) => (await harness.call(`${API}/organization`, { key })).json<Organization>().description;

/** The description the gateway serves, asked every 25 ms until it is `expected`; the milliseconds that took. */
async function untilDescription(harness: GatewayHarness, key: string, expected: string, timeoutMs: number): Promise<number> {
  const started = performance.now();
  await until(`the gateway to serve the description "${expected}"`, async () => (await description(harness, key)) === expected, { timeoutMs, intervalMs: 25 });
  return performance.now() - started;
}

/** Every path of the organization's API that reads a stored object. */
const READS = ['/organization', '/team', '/speakers', '/sponsors', '/events?timing=all', '/events/summit', '/events/summit/sessions'];

describe('a gateway reading through the CDN', () => {
  it('serves an organization, then the next publish, with the pointer read from the store and never from the CDN', async () => {
    const fixture = organization('first');
    await publishFixture(store, fixture, { now: new Date() });
    const harness = await gateway();
    const key = await harness.keyFor(fixture.organization.id);
    for (const path of READS) expect((await harness.call(`${API}${path}`, { key })).status, path).toBe(200);
    expect(await description(harness, key)).toBe('first');

    await republish(fixture, 'second');
    // A pointer older than one second is read again before use (CurrentSnapshots).
    expect(await untilDescription(harness, key, 'second', 3_000)).toBeLessThan(3_000);

    const pointer = await readPointer(store, fixture.organization.id);
    expect(requestsFor(edge, manifestKey(fixture.organization.id, pointer!.snapshotId!))).toHaveLength(1);
    expect(requestsFor(edge, pointerKey(fixture.organization.id))).toEqual([]);
    expect(edge.exchanges.every((exchange) => exchange.method === 'GET' && exchange.status === 200)).toBe(true);
  });

  it('is served from the CDN what another gateway read before: every read a cache HIT, none reaching the bucket', async () => {
    const fixture = organization('shared');
    await publishFixture(store, fixture, { now: new Date() });
    const first = await gateway();
    const firstKey = await first.keyFor(fixture.organization.id);
    const bodies = new Map<string, string>();
    const seenBeforeFirst = edge.exchanges.length;
    for (const path of READS) bodies.set(path, (await first.call(`${API}${path}`, { key: firstKey })).body);
    const readByFirst = edge.exchanges.slice(seenBeforeFirst);

    const seenAtEdge = edge.exchanges.length;
    const seenAtBucket = fill.exchanges.length;
    const second = await gateway();
    const secondKey = await second.keyFor(fixture.organization.id);
    for (const path of READS) expect((await second.call(`${API}${path}`, { key: secondKey })).body, path).toBe(bodies.get(path));

    // The same manifest and objects (equal objects, such as two empty lists, are one), each once.
    const readBySecond = edge.exchanges.slice(seenAtEdge);
    expect(readBySecond.map((exchange) => exchange.path).sort()).toEqual(readByFirst.map((exchange) => exchange.path).sort());
    expect(new Set(readBySecond.map((exchange) => exchange.path)).size).toBe(readBySecond.length);
    expect(readBySecond.length).toBeGreaterThanOrEqual(4);
    expect(readBySecond.map((exchange) => exchange.responseHeaders['x-cache-status'])).toEqual(readBySecond.map(() => 'HIT'));
    expect(fill.exchanges.slice(seenAtBucket)).toEqual([]);
  });

  it('sends one CDN request for a cold object, however many requests wait for it', async () => {
    const fixture = organization('cold');
    await publishFixture(store, fixture, { now: new Date() });
    const harness = await gateway();
    const key = await harness.keyFor(fixture.organization.id);
    const answers = await Promise.all(Array.from({ length: 50 }, () => harness.call(`${API}/organization`, { key })));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));

    const pointer = await readPointer(store, fixture.organization.id);
    const manifest = await readManifest(store, fixture.organization.id, pointer!.snapshotId!);
    expect(requestsFor(edge, manifestKey(fixture.organization.id, pointer!.snapshotId!))).toHaveLength(1);
    expect(requestsFor(edge, objectKey(fixture.organization.id, manifest!.resources['/organization']!))).toHaveLength(1);

    // The same below the gateway's own object cache: 50 reads of a cold key through CdnSource alone.
    const snapshots = new CdnSource(store, cdnUrl);
    closing.push(() => snapshots.close());
    const team = objectKey(fixture.organization.id, manifest!.resources['/team']!);
    const read = await Promise.all(Array.from({ length: 50 }, () => snapshots.get(team)));
    expect(new Set(read.map((bytes) => bytes?.toString())).size).toBe(1);
    expect(requestsFor(edge, team)).toHaveLength(1);
  });

  it("never hides a publish behind the CDN's copy of a pointer", async () => {
    const fixture = organization('before');
    await publishFixture(store, fixture, { now: new Date() });
    const harness = await gateway();
    const key = await harness.keyFor(fixture.organization.id);
    expect(await description(harness, key)).toBe('before');

    // The worst case: the CDN holds the pointer as if it were immutable (a misconfigured
    // distribution, or a pointer written without no-cache), so it keeps serving the old one.
    const pointerName = `${PREFIX}/${pointerKey(fixture.organization.id)}`;
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    closing.push(async () => client.destroy());
    const oldPointer = await store.get(pointerKey(fixture.organization.id));
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: pointerName, Body: oldPointer, ContentType: 'application/json', CacheControl: 'public, max-age=3600' }));
    const throughCdn = async () => {
      const response = await fetch(`${cache.url}/${s3.bucket}/${pointerName}`);
      return { body: await response.text(), cacheStatus: response.headers.get('x-cache-status') };
    };
    await throughCdn();
    expect(await throughCdn()).toEqual({ body: oldPointer!.toString(), cacheStatus: 'HIT' });

    await republish(fixture, 'after');
    expect(await throughCdn()).toEqual({ body: oldPointer!.toString(), cacheStatus: 'HIT' });
    expect(await untilDescription(harness, key, 'after', 3_000)).toBeLessThan(3_000);
  });
});

// Debian's nginx.conf turns gzip on in the http context that includes conf.d/; these are its
// commented gzip lines, as an operator who uncomments them has them: application/json among the
// types, proxied requests included. The shipped file must carry the coded forms through that.
const DEBIAN_GZIP_UNCOMMENTED = `  gzip on;
  gzip_vary on;
  gzip_proxied any;
  gzip_comp_level 6;
  gzip_types text/plain text/css application/json application/javascript text/xml application/xml application/xml+rss text/javascript;
`;

describe('the shipped CDN file (deploy/nginx/marquee-cdn.conf)', () => {
  let shipped: TestHttpCache;

  beforeAll(async () => {
    shipped = await startShippedCdn(new URL(s3.endpoint).host, s3.bucket, { http: DEBIAN_GZIP_UNCOMMENTED });
  });
  afterAll(async () => shipped?.stop());

  /** One GET of the bucket's `key` from `base`, as a requester offering both codings: a CDN compressing by itself would gzip it here. */
  const read = async (base: string, key: string) => {
    const response = await request(`${base}/${PREFIX}/${key}`, { headers: { 'accept-encoding': 'gzip, br' } });
    const bytes = Buffer.from(await response.body.arrayBuffer());
    const header = (name: string) => response.headers[name] as string | undefined;
    return {
      status: response.statusCode,
      bytes,
      headers: { 'content-type': header('content-type'), 'content-encoding': header('content-encoding'), 'cache-control': header('cache-control'), etag: header('etag') },
      cacheStatus: header('x-cache-status'),
    };
  };

  it("carries an object's coded forms ({hash}.json.br, .json.gz) byte for byte with the store's headers, kept for good, as a gateway reads them", async () => {
    // A profile of a few kilobytes: worth its coded forms.
    const fixture = organization('Talks on light and the instruments that measure it. '.repeat(60));
    await publishFixture(store, fixture, { now: new Date() });
    const id = fixture.organization.id;
    const pointer = await readPointer(store, id);
    const manifest = await readManifest(store, id, pointer!.snapshotId!);
    const hash = manifest!.resources['/organization']!;
    const json = await store.get(objectKey(id, hash));
    expect(json!.length).toBeGreaterThan(2048);

    const snapshots = new CdnSource(store, `${shipped.url}/${PREFIX}`);
    closing.push(() => snapshots.close());
    for (const coding of CODINGS) {
      const key = codedObjectKey(id, hash, coding);
      // The coded forms as a build stores them: compressed once, at the stored effort, put beside the JSON.
      if (!(await store.has(key))) await store.put(key, await compress(coding, json!));
      const stored = await store.get(key);
      expect(decode(coding, stored!).equals(json!)).toBe(true);
      // The bucket's own answer (path-style, straight to s3rver), then nginx's: a fill, then a HIT.
      const direct = await request(`${s3.endpoint}/${s3.bucket}/${PREFIX}/${key}`);
      await direct.body.dump();
      const fromStore = {
        'content-type': direct.headers['content-type'],
        'content-encoding': direct.headers['content-encoding'],
        'cache-control': direct.headers['cache-control'],
        etag: direct.headers.etag,
      };
      expect(fromStore['cache-control']).toBe('public, max-age=31536000, immutable');
      const first = await read(shipped.url, key);
      const second = await read(shipped.url, key);
      expect([first.cacheStatus, second.cacheStatus], key).toEqual(['MISS', 'HIT']);
      for (const answer of [first, second]) {
        expect(answer.status, key).toBe(200);
        expect(answer.headers, key).toEqual(fromStore);
        expect(answer.bytes.equals(stored!), `${key}: the stored bytes, neither recompressed nor decoded`).toBe(true);
      }
      // A gateway's read: CdnSource, which asks for the key by name and takes the bytes as they come.
      expect((await snapshots.get(key))?.equals(stored!), key).toBe(true);
    }
  });
});
