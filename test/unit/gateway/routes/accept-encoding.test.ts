import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptedCodings, parseAcceptEncoding } from '../../../../gateway/routes/accept-encoding.ts';
import { bodyFor } from '../../../../gateway/routes/respond.ts';
import { MIN_CODED_BYTES } from '../../../../snapshot/codings.ts';
import { computedRepresentation, storedRepresentation } from '../../../../snapshot/representation.ts';

describe('Accept-Encoding (RFC 9110 §12.5.3)', () => {
  it.each([
    ['what fetch() and undici send', 'gzip, deflate, br', ['br', 'gzip', 'identity']],
    ['what Chromium sends', 'gzip, deflate, br, zstd', ['br', 'gzip', 'identity']],
    ['what curl --compressed sends', 'deflate, gzip, br, zstd', ['br', 'gzip', 'identity']],
    ['gzip alone (requests, older clients)', 'gzip', ['gzip', 'identity']],
    ['q-values putting gzip first', 'br;q=0.5, gzip', ['gzip', 'br', 'identity']],
    ['codings all below q=1, identity not named', 'gzip;q=0.8, br;q=0.9', ['br', 'gzip', 'identity']],
    ['identity preferred over a coding', 'gzip;q=0.5, identity', ['identity', 'gzip']],
    ['identity refused', 'br, identity;q=0', ['br']],
    ['* accepting every coding', '*', ['br', 'gzip', 'identity']],
    ['* refusing what is not named', 'gzip, *;q=0', ['gzip']],
    ['* with identity named', '*;q=0, identity', ['identity']],
    ['a coding refused by name beside *', 'br;q=0, *', ['gzip', 'identity']],
    ['x-gzip as gzip', 'x-gzip', ['gzip', 'identity']],
    ['names in any case, spaces around', ' BR ; Q=0.8 ,GZip', ['gzip', 'br', 'identity']],
    ['only codings it does not have', 'zstd, deflate', ['identity']],
    ['an empty value', '', ['identity']],
    ['a malformed q, ignored with its member', 'br;q=2, gzip;q=x, identity;q=0.5', ['identity']],
  ])('%s: %j', (_, header, order) => {
    expect(parseAcceptEncoding(header).order).toEqual(order);
  });

  it('refuses identity only by name or by *;q=0 without a weight of its own', () => {
    expect(parseAcceptEncoding('br, identity;q=0').identity).toBe(false);
    expect(parseAcceptEncoding('*;q=0').identity).toBe(false);
    expect(parseAcceptEncoding('br').identity).toBe(true);
    expect(parseAcceptEncoding('*;q=0, identity;q=0.1').identity).toBe(true);
  });

  it('reads no header as identity alone, and a repeated header as one list', () => {
    expect(acceptedCodings(undefined).order).toEqual(['identity']);
    expect(acceptedCodings(['gzip;q=0.1', 'br']).order).toEqual(['br', 'gzip', 'identity']);
    // Kept: the same value parses to the same object.
    expect(acceptedCodings('gzip, br')).toBe(acceptedCodings('gzip, br'));
  });
});

describe('the body a request gets', () => {
  const long = Buffer.from(JSON.stringify({ items: Array.from({ length: 60 }, (_, n) => ({ id: n, name: `Speaker ${n}`, bio: 'Talks about events and schedules.' })) }));
  const short = Buffer.from('{"items":[]}');
  expect(long.length).toBeGreaterThan(MIN_CODED_BYTES);

  it('is a rendering compressed once per coding, kept with it, decoding to the JSON', async () => {
    const rendering = computedRepresentation(long, 'a'.repeat(64), 'state');
    const br = await bodyFor(rendering, parseAcceptEncoding('gzip, deflate, br'));
    expect(br.headers).toEqual(expect.arrayContaining(['Content-Encoding', 'br', 'Content-Length', String(br.bytes.length)]));
    expect(brotliDecompressSync(br.bytes).equals(long)).toBe(true);
    // Held now: the next request is answered synchronously, with the same bytes.
    expect(bodyFor(rendering, parseAcceptEncoding('br'))).toBe(br);
    const gzip = await bodyFor(rendering, parseAcceptEncoding('gzip'));
    expect(gunzipSync(gzip.bytes).equals(long)).toBe(true);
    expect(rendering.codedBytes).toBe(br.bytes.length + gzip.bytes.length);
    // The tag is the JSON's, in every coding.
    expect(br.headers[br.headers.indexOf('ETag') + 1]).toBe(rendering.quotedEtag);
  });

  it('is the JSON for a short body, unless identity is refused', async () => {
    const rendering = computedRepresentation(short, 'b'.repeat(64), 'state');
    expect(bodyFor(rendering, parseAcceptEncoding('br, gzip'))).toBe(rendering);
    const coded = await bodyFor(rendering, parseAcceptEncoding('gzip, identity;q=0'));
    expect(gunzipSync(coded.bytes).equals(short)).toBe(true);
  });

  it('is refused 406 when identity is refused and no coding it has is accepted', () => {
    const rendering = computedRepresentation(long, 'c'.repeat(64), 'state');
    expect(() => bodyFor(rendering, parseAcceptEncoding('zstd, identity;q=0'))).toThrow(expect.objectContaining({ status: 406, errorCode: 'NOT_ACCEPTABLE' }));
  });

  it('falls back to the next choice when a stored form cannot be read, and tries the store again next time', async () => {
    let reads = 0;
    const representation = storedRepresentation(long, 'd'.repeat(64), async (coding) => {
      reads++;
      if (reads === 1) throw new Error(`store down reading ${coding}`);
      return Buffer.from('coded');
    });
    expect(await bodyFor(representation, parseAcceptEncoding('br'))).toBe(representation);
    const second = await bodyFor(representation, parseAcceptEncoding('br'));
    expect(second.bytes.toString()).toBe('coded');
    expect(reads).toBe(2);
  });

  it('is refused with the store error when nothing else is acceptable', async () => {
    const representation = storedRepresentation(long, 'e'.repeat(64), () => Promise.reject(new Error('store down')));
    await expect(bodyFor(representation, parseAcceptEncoding('br, identity;q=0'))).rejects.toThrow('store down');
  });

  it('is the JSON for a stored object without a coded form, and asks the store once', async () => {
    let reads = 0;
    const representation = storedRepresentation(long, 'f'.repeat(64), async () => {
      reads++;
      return undefined;
    });
    expect(await bodyFor(representation, parseAcceptEncoding('br'))).toBe(representation);
    expect(bodyFor(representation, parseAcceptEncoding('br'))).toBe(representation);
    expect(reads).toBe(1);
  });
});
