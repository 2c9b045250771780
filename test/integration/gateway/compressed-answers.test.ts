// Compressed answers (docs/api.md "Compressed answers", docs/design.md "Compressed answers"): every
// answer of 1 KB or more goes in the coding Accept-Encoding prefers, as the builder stored it or as
// the gateway compressed a rendering once; the tag names the JSON in every coding, so a 304 answers
// whatever the request accepts; shorter answers go as they are. Raw bytes are read (undici.request
// does not decode), so what is checked is what travels.
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';
import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { MIN_CODED_BYTES } from '../../../snapshot/codings.ts';
import { codedObjectKey } from '../../../snapshot/layout.ts';
import { API } from '../../support/gateway-fixtures.ts';
import { useAcmeWorld } from '../../support/gateway-world.ts';

const acme = useAcmeWorld();

interface Raw {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
}

async function raw(path: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET'): Promise<Raw> {
  const response = await request(`${acme.harness.origin}${API}${path}`, { method, headers: { 'x-api-key': acme.key, ...headers } });
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return { status: response.statusCode, headers: flat, bytes: Buffer.from(await response.body.arrayBuffer()) };
}

const decoded = (reply: Raw): Buffer => {
  const coding = reply.headers['content-encoding'];
  return coding === 'br' ? brotliDecompressSync(reply.bytes) : coding === 'gzip' ? gunzipSync(reply.bytes) : reply.bytes;
};

const PATHS = ['/organization', '/team', '/speakers', '/sponsors', '/events?timing=all', '/events/acme-conf', '/events/acme-conf/sessions', '/events/acme-conf/speakers'];
/**
 * The paths answered with a stored object of 1 KB or more, which builds store in gzip alone by
 * default (snapshot/codings.ts STORED_CODINGS): a client accepting br gets that gzip. The others
 * are renderings, compressed by the gateway in either coding, or shorter than MIN_CODED_BYTES.
 */
const STORED_IN_GZIP_ALONE = new Set(['/events/acme-conf/sessions']);
/** Each path's identity answer, read first. */
const identity = new Map<string, Raw>();

beforeAll(async () => {
  for (const path of PATHS) identity.set(path, await raw(path));
});

describe.each(PATHS)('%s', (path) => {
  it.each([
    ['br', 'gzip, deflate, br'],
    ['gzip', 'gzip'],
  ])('in %s when it is long enough, the same JSON and tag; as it is otherwise', async (coding, acceptEncoding) => {
    const plain = identity.get(path)!;
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const reply = await raw(path, { 'accept-encoding': acceptEncoding });
    expect(reply.status).toBe(200);
    expect(reply.headers.vary).toBe('Authorization, X-Api-Key, Origin, Accept-Encoding, Marquee-Snapshot-Id');
    expect(reply.headers.etag).toBe(plain.headers.etag);
    expect(reply.headers['content-length']).toBe(String(reply.bytes.length));
    if (plain.bytes.length >= MIN_CODED_BYTES) {
      expect(reply.headers['content-encoding']).toBe(STORED_IN_GZIP_ALONE.has(path) ? 'gzip' : coding);
      expect(reply.bytes.length).toBeLessThan(plain.bytes.length / 2);
    } else {
      expect(reply.headers['content-encoding']).toBeUndefined();
    }
    expect(decoded(reply).equals(plain.bytes)).toBe(true);
  });

  it('answers If-None-Match with 304 whatever the request accepts, refusing everything included', async () => {
    const tag = identity.get(path)!.headers.etag!;
    for (const acceptEncoding of ['br', 'gzip', 'identity', '*;q=0']) {
      const reply = await raw(path, { 'accept-encoding': acceptEncoding, 'if-none-match': tag });
      expect(reply.status).toBe(304);
      expect(reply.bytes.length).toBe(0);
      expect(reply.headers['content-encoding']).toBeUndefined();
      expect(reply.headers.etag).toBe(tag);
    }
  });
});

describe('the answers that are coded', () => {
  it('include the list of every event and an event with its programme', () => {
    // Else the checks above would pass on identity alone.
    expect(identity.get('/events?timing=all')!.bytes.length).toBeGreaterThanOrEqual(MIN_CODED_BYTES);
    expect(identity.get('/events/acme-conf')!.bytes.length).toBeGreaterThanOrEqual(MIN_CODED_BYTES);
  });

  it('are the same bytes at the next request: a rendering is compressed once and kept', async () => {
    const first = await raw('/events?timing=all', { 'accept-encoding': 'br' });
    const second = await raw('/events?timing=all', { 'accept-encoding': 'br' });
    expect(second.bytes.equals(first.bytes)).toBe(true);
  });

  it('answer HEAD with the coded length and coding, and no body', async () => {
    const get = await raw('/events/acme-conf', { 'accept-encoding': 'br' });
    const head = await raw('/events/acme-conf', { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.bytes.length).toBe(0);
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
  });

  it('follow q-values: gzip over br when br weighs less, identity when it weighs more than both', async () => {
    expect((await raw('/events/acme-conf', { 'accept-encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await raw('/events/acme-conf', { 'accept-encoding': 'br;q=0.5, gzip;q=0.5, identity' })).headers['content-encoding']).toBeUndefined();
  });

  it('are pinned like any answer', async () => {
    const plain = identity.get('/events/acme-conf')!;
    const snapshotId = plain.headers['marquee-snapshot-id']!;
    const reply = await raw('/events/acme-conf', { 'accept-encoding': 'br', 'marquee-snapshot-id': snapshotId });
    expect(reply.headers['marquee-snapshot-id']).toBe(snapshotId);
    expect(decoded(reply).equals(plain.bytes)).toBe(true);
  });
});

describe('a short answer', () => {
  it('is coded when identity is refused', async () => {
    const plain = identity.get('/team')!;
    expect(plain.bytes.length).toBeLessThan(MIN_CODED_BYTES);
    const reply = await raw('/team', { 'accept-encoding': 'gzip, identity;q=0' });
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(decoded(reply).equals(plain.bytes)).toBe(true);
  });
});

describe('a request that refuses every coding the answer has', () => {
  it('gets 406 NOT_ACCEPTABLE with a problem body, as it is', async () => {
    const reply = await raw('/events/acme-conf', { 'accept-encoding': 'zstd, identity;q=0' });
    expect(reply.status).toBe(406);
    expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(reply.headers.vary).toBe('Authorization, X-Api-Key, Origin, Accept-Encoding, Marquee-Snapshot-Id');
    expect(JSON.parse(reply.bytes.toString())).toMatchObject({ status: 406, errorCode: 'NOT_ACCEPTABLE' });
  });
});

describe("a stored object's coded forms", () => {
  /** The organization's hash of /speakers: a stored (not clock-dependent) answer, its tag the object's hash. */
  const speakersHash = () => identity.get('/speakers')!.headers.etag!.slice(1, -1);

  it('are served as the store holds them, byte for byte', async () => {
    const json = identity.get('/speakers')!.bytes;
    // Quality 1: bytes that no compression of the gateway's own would give, so what is served came from the store.
    const stored = brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
    // Short, so no request before this one asked for its form: the check reads it through a request refusing identity.
    expect(json.length).toBeLessThan(MIN_CODED_BYTES);
    await acme.harness.store.put(codedObjectKey(acme.fixture.organization.id, speakersHash(), 'br'), stored);
    const reply = await raw('/speakers', { 'accept-encoding': 'br, identity;q=0' });
    expect(reply.headers['content-encoding']).toBe('br');
    expect(reply.bytes.equals(stored)).toBe(true);
  });

  it('in gzip alone, as builds store them by default, are what a client accepting br gets too: nothing is compressed here', async () => {
    const json = identity.get('/sponsors')!.bytes;
    // Level 1: bytes that no compression of the gateway's own would give. No br form is stored for /sponsors.
    const stored = gzipSync(json, { level: 1 });
    const hash = identity.get('/sponsors')!.headers.etag!.slice(1, -1);
    await acme.harness.store.put(codedObjectKey(acme.fixture.organization.id, hash, 'gzip'), stored);
    const reply = await raw('/sponsors', { 'accept-encoding': 'br, gzip;q=0.9, identity;q=0' });
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(reply.bytes.equals(stored)).toBe(true);
  });

  it('that do not decode to the object are never served: the gateway compresses the JSON itself, and says so', async () => {
    const json = identity.get('/speakers')!.bytes;
    await acme.harness.store.put(codedObjectKey(acme.fixture.organization.id, speakersHash(), 'gzip'), Buffer.from('not gzip at all'));
    const reply = await raw('/speakers', { 'accept-encoding': 'gzip, identity;q=0' });
    expect(reply.status).toBe(200);
    expect(gunzipSync(reply.bytes).equals(json)).toBe(true);
    expect(acme.harness.log.lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: expect.stringContaining('does not decode to its object'),
        fields: expect.objectContaining({ hash: speakersHash(), coding: 'gzip' }),
      }),
    );
  });
});
