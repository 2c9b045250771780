// Content codings of the API's answers (docs/design.md "Compressed answers"). A snapshot's objects
// are immutable, so each is compressed once, when it is built, and stored beside its JSON
// (snapshot/layout.ts codedObjectKey); gateways and the CDN serve those bytes as they are.
// Clock-dependent answers are rendered by the gateway, so they are compressed there, once per
// rendering, with the same parameters.
// The same module names the codings, their keys' suffixes and their parameters for both sides.
import { availableParallelism } from 'node:os';
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

/**
 * What a build stores beside each object worth coding unless SNAPSHOT_CODINGS says otherwise: gzip
 * alone. Every client that accepts br accepts gzip, not the other way round (Go's, Java's and
 * Python's HTTP clients ask for gzip only), so one stored form serves every client that compresses.
 * Each form is one more file or S3 PUT per object, and that, not the compressing, is most of what a
 * form costs a full build: measured on bench:build's synthetic platform, a full build storing gzip
 * took 1.18× the CPU of one storing none, br and gzip 2.03×, and writing two uncompressed copies
 * instead of the two forms 1.61× (docs/performance.md "Coded forms"). Brotli's forms are 9 % smaller
 * than gzip's on our JSON: `br,gzip` is there for an operator who values that over the build's time.
 * The gateway's renderings, compressed as they are made, are offered in both codings.
 */
export const STORED_CODINGS: readonly Coding[] = ['gzip'];

/**
 * Brotli 5 and gzip 9, for the objects a build stores and the renderings a gateway compresses alike.
 * Measured on bench:build's objects, brotli 5's forms are 11.0 % of the JSON, 9's 10.8 %, 11's
 * 9.6 %; but 11 costs about 1.5 ms of CPU per KB, fifteen times 5, which a full build storing br
 * pays for every object (docs/design.md "Compressed answers"). Gzip 9 costs a tenth more CPU than 6
 * on the same objects (5.9 against 5.4 µs per KB, one at a time) for forms 1.6 % smaller (12.1 %
 * against 12.3 % of the JSON); every level above 6 differs little on JSON this regular.
 */
const BROTLI_QUALITY = 5;
const GZIP_LEVEL = 9;

/**
 * Compressions under way at once in this process, at most one per core. libuv's pool runs four at
 * a time by default, and a builder asks for sixteen: on two cores, sixteen small compressions at
 * once cost up to seven times the CPU per KB of one at a time (each brotli or deflate state is
 * allocated and filled while the others evict it from the caches; measured, docs/performance.md).
 */
const AT_ONCE = Math.max(1, availableParallelism());
let running = 0;
const waiting: Array<() => void> = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

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
export function compress(coding: Coding, bytes: Uint8Array): Promise<Buffer> {
  if (coding === 'gzip') return inTurn(() => gzipAsync(bytes, { level: GZIP_LEVEL }));
  const params = {
    [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
    [constants.BROTLI_PARAM_LGWIN]: brotliWindow(bytes.length),
    [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
  };
  return inTurn(() => brotliAsync(bytes, { params }));
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
