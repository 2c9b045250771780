// Content codings of the API's answers (docs/design.md "Compressed answers"). A snapshot's objects
// are immutable, so each is compressed once, when it is built, at the highest quality the build's
// time allows, and stored beside its JSON (snapshot/layout.ts codedObjectKey); gateways and the CDN
// serve those bytes as they are. Clock-dependent answers are rendered by the gateway, so they are
// compressed there, once per rendering, at a quality fast enough for the request that renders it.
// The same module names the codings, their keys' suffixes and their parameters for both sides.
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, brotliDecompressSync, constants, gunzip, gunzipSync, gzip } from 'node:zlib';

/**
 * In the order the gateway prefers them when a client accepts both equally: brotli is 15–25 %
 * smaller than gzip on our JSON (docs/performance.md "Bytes on the wire"). No zstd: on Node lines
 * that have it, level 19 is still larger than brotli 11 on every answer measured, and every client
 * that offers zstd (Chromium, curl) offers br too.
 */
export const CODINGS = ['br', 'gzip'] as const;
export type Coding = (typeof CODINGS)[number];

/** `Content-Encoding` values, and the suffix of the stored form's key (nginx's gzip_static and brotli_static look for these). */
export const CODING_SUFFIX: Readonly<Record<Coding, string>> = { br: '.br', gzip: '.gz' };

/**
 * Bodies shorter than this go as they are, and are stored without coded forms: an answer of about
 * 1 KB with its headers (about 600 bytes) fits in one TCP segment of 1,460 bytes either way, so
 * compressing it saves no round trip, only CPU in the client (docs/performance.md "Bytes on the wire").
 */
export const MIN_CODED_BYTES = 1024;

/** Whether a body of `length` bytes is worth a coded form. */
export const worthCoding = (length: number): boolean => length >= MIN_CODED_BYTES;

/** How hard each side compresses: `stored` once per object at build, `rendered` once per rendering at a gateway. */
export type CodingEffort = 'stored' | 'rendered';

/** Brotli qualities: 11 for what is stored (built once, served for ever); 5 for a rendering a request waits for. */
const BROTLI_QUALITY: Readonly<Record<CodingEffort, number>> = { stored: 11, rendered: 5 };
/** gzip levels: 9 stored; 6 rendered, zlib's default, within a few percent of 9 on our JSON at a third of its time. */
const GZIP_LEVEL: Readonly<Record<CodingEffort, number>> = { stored: 9, rendered: 6 };

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
const unbrotliAsync = promisify(brotliDecompress);
const gunzipAsync = promisify(gunzip);

/**
 * `bytes` in `coding`, compressed on libuv's thread pool (never on the event loop). Brotli's window
 * is sized to the input: at qualities below 10 a 4 MB window costs more to set up than a small
 * answer takes to compress (measured: 16 ms against 0.4 ms for 7 KB at quality 9), and a smaller
 * window asks less memory of the decoder.
 */
export function compress(coding: Coding, bytes: Uint8Array, effort: CodingEffort): Promise<Buffer> {
  if (coding === 'gzip') return gzipAsync(bytes, { level: GZIP_LEVEL[effort] });
  return brotliAsync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY[effort],
      [constants.BROTLI_PARAM_LGWIN]: brotliWindow(bytes.length),
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  });
}

/** log2 of the smallest window holding the whole input, within brotli's bounds (10–24). */
function brotliWindow(length: number): number {
  return Math.min(constants.BROTLI_MAX_WINDOW_BITS, Math.max(constants.BROTLI_MIN_WINDOW_BITS, Math.ceil(Math.log2(length + 1))));
}

/** `coded` decoded: to check a stored form against the hash of the JSON it codes, once, when it is read (tools). */
export function decode(coding: Coding, coded: Uint8Array): Buffer {
  return coding === 'br' ? brotliDecompressSync(coded) : gunzipSync(coded);
}

/**
 * `coded` decoded on the thread pool, by a reader that must not stall (a gateway). At most
 * `maxLength` bytes come out: a reader that knows the JSON's length stops a form that would
 * decode to more (a stored form is only trusted once it decodes to the JSON's hash).
 */
export function decodeOffLoop(coding: Coding, coded: Uint8Array, maxLength: number): Promise<Buffer> {
  const options = { maxOutputLength: Math.max(1, maxLength) };
  return coding === 'br' ? unbrotliAsync(coded, options) : gunzipAsync(coded, options);
}
