// Snapshot store in an S3 bucket, or on an S3-compatible server (an endpoint): keys live below a
// prefix, the ETag is the version, and the pointer is replaced with a conditional write.
import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ListObjectsV2CommandOutput, PutObjectCommandInput, S3Client } from '@aws-sdk/client-s3';
import { isPointerKey, objectOfName } from '../layout.ts';
import type { Log } from '../../runtime/log.ts';
import {
  assertStoreKey,
  assertStorePrefix,
  IN_PROGRESS_SUFFIX,
  type SnapshotStore,
  type StoreBackend,
  type StoreLocation,
  StoreUnavailableError,
  type Version,
  type VersionedBytes,
} from '../store.ts';
import { HTTP_HANDLER_OPTIONS, quietNodeVersionWarning, RETRY_OPTIONS } from './aws-sdk.ts';
import { isHttpUrl } from '../../runtime/http-url.ts';

/**
 * The SDK's S3 module, loaded when an S3 store is opened: loading it (and the SDK's core under it)
 * is about 0.45 s of CPU, which every command paid at its start while this module imported it,
 * on a directory store too (docs/development.md "Where the time goes").
 */
type S3Sdk = typeof import('@aws-sdk/client-s3');
let s3Sdk: Promise<S3Sdk> | undefined;
const loadS3Sdk = (): Promise<S3Sdk> => (s3Sdk ??= import('@aws-sdk/client-s3'));

// S3's bucket naming rules (virtual-host safe): 3-63 lower-case letters, digits, dots and hyphens.
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** SNAPSHOT_STORE=s3://bucket[/prefix], with S3_ENDPOINT for an S3-compatible server. */
export const s3Backend: StoreBackend = {
  name: 's3',
  form: 's3://bucket/prefix',
  scheme: 's3',
  variables: ['S3_ENDPOINT'],
  parse(setting, { env }): StoreLocation | { problems: string[] } {
    const problems: string[] = [];
    const endpoint = env.S3_ENDPOINT?.trim() || undefined;
    if (endpoint !== undefined && !isHttpUrl(endpoint)) problems.push(`S3_ENDPOINT must be an absolute http(s) URL, got ${JSON.stringify(endpoint)}`);
    const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(setting);
    if (!match) return { problems: [...problems, `SNAPSHOT_STORE must be s3://bucket/prefix, got ${JSON.stringify(setting)}`] };
    const bucket = match[1]!;
    const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
    if (!BUCKET_NAME.test(bucket)) problems.push(`SNAPSHOT_STORE: ${JSON.stringify(bucket)} is not an S3 bucket name (3-63 lower-case letters, digits, dots and hyphens)`);
    if (prefix !== '' && prefix.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) {
      problems.push(`SNAPSHOT_STORE: the key prefix ${JSON.stringify(prefix)} has an empty, "." or ".." segment`);
    }
    if (problems.length > 0) return { problems };
    const options: S3StoreOptions = { bucket, prefix, ...(endpoint === undefined ? {} : { endpoint }) };
    return {
      backend: 's3',
      description: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      cdnPrefix: prefix,
      settings: { bucket, prefix, endpoint },
      open: () => new S3Store(options),
    };
  },
};

export interface S3StoreOptions {
  bucket: string;
  /** Keys live below `prefix/`; '' puts them at the bucket's root. */
  prefix: string;
  /** An S3-compatible server (S3_ENDPOINT), addressed path-style: http://host:port/bucket/key. */
  endpoint?: string;
  /** A client made elsewhere, used as it is: its timeouts and retries are its maker's. */
  client?: S3Client;
}

/** Objects and manifests never change once written: caches (the CDN, browsers) keep them for a year without asking again. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The pointer is replaced by every publish: a cache may keep it, but must ask the store before each use. */
const MUTABLE = 'no-cache';

/**
 * An object's coded forms (snapshot/layout.ts codedObjectKey) go as opaque bytes, every other key
 * as JSON. No Content-Encoding on them: with one, HTTP readers decode by themselves (fetch, a
 * browser, a CDN answering a client that does not accept the coding), and a gateway reading through
 * the CDN (cdn-source.ts) would be handed the JSON where it expects the coded bytes it checks and
 * serves as they are. Nor application/json: a CDN that compresses by type (CloudFront compresses
 * application/json) would compress them a second time, and tools would show them as text.
 */
function contentTypeOf(key: string): string {
  return objectOfName(key.slice(key.lastIndexOf('/') + 1))?.coding === undefined ? 'application/json' : 'application/octet-stream';
}

/** Far above any snapshot object or manifest; a body larger than this is refused, not buffered. */
const MAX_OBJECT_BYTES = 64 * 1024 * 1024;

export class S3Store implements SnapshotStore {
  readonly description: string;
  private readonly endpoint: string | undefined;
  private readonly givenClient: S3Client | undefined;
  /** The SDK and this store's client, made once the SDK is loaded. */
  private sdk: Promise<{ s3: S3Sdk; client: S3Client }> | undefined;
  private readonly bucket: string;
  /** `prefix/`, or '' at the bucket's root. */
  private readonly root: string;

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.root = options.prefix === '' ? '' : `${options.prefix.replace(/\/+$/, '')}/`;
    this.description = `s3://${options.bucket}/${this.root.slice(0, -1)}`;
    this.endpoint = options.endpoint;
    this.givenClient = options.client;
    // Loading starts now, so the first request does not wait for all of it; its failure is that request's.
    this.loaded().catch(() => {});
  }

  private loaded(): Promise<{ s3: S3Sdk; client: S3Client }> {
    this.sdk ??= loadS3Sdk().then((s3) => ({ s3, client: this.givenClient ?? createClient(s3, this.endpoint) }));
    return this.sdk;
  }

  async get(key: string): Promise<Buffer | undefined> {
    const read = await this.read(key, undefined);
    return read === 'unchanged' ? undefined : read?.bytes;
  }

  async getIfChanged(key: string, version: Version | undefined): Promise<VersionedBytes | 'unchanged' | undefined> {
    return this.read(key, version);
  }

  async has(key: string): Promise<boolean> {
    return (await this.head(key)) !== undefined;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const input = this.putInput(key, bytes);
    const { s3, client } = await this.loaded();
    await this.call('put', key, () => client.send(new s3.PutObjectCommand(input)));
  }

  async putIfVersion(key: string, bytes: Uint8Array, expected: Version | null): Promise<'written' | 'conflict'> {
    const input = { ...this.putInput(key, bytes), ...(expected === null ? { IfNoneMatch: '*' } : { IfMatch: expected }) };
    // If-Match on a key deleted since answers 404 NoSuchKey: refused too.
    const refused = (error: unknown) => isRefusedCondition(error) || isMissingKey(error);
    const { s3, client } = await this.loaded();
    try {
      await this.call('put', key, () => client.send(new s3.PutObjectCommand(input)), refused);
      return 'written';
    } catch (error) {
      if (!refused(error)) throw error;
      // An attempt may have written and lost its answer, and the SDK's next attempt then found
      // its own bytes: the write happened. (Equal bytes from another writer are the same write.)
      if (attemptsOf(error) > 1 && (await this.head(key))?.ETag === etagOf(bytes)) return 'written';
      return 'conflict';
    }
  }

  async list(prefix: string): Promise<string[]> {
    assertStorePrefix(prefix);
    const keys: string[] = [];
    const { s3, client } = await this.loaded();
    // A page holds at most 1,000 keys; the continuation token leads to the next.
    let token: string | undefined;
    do {
      const page: ListObjectsV2CommandOutput = await this.call('list', prefix, () =>
        client.send(new s3.ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${this.root}${prefix}`, ContinuationToken: token })),
      );
      for (const object of page.Contents ?? []) {
        const key = object.Key?.slice(this.root.length);
        // Names ending in the in-progress suffix are this store's own (the conditional-write probe).
        if (key && !key.endsWith(IN_PROGRESS_SUFFIX)) keys.push(key);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    // S3 lists in UTF-8 byte order, the contract promises UTF-16 code unit order; they differ above U+FFFF.
    return keys.sort();
  }

  async delete(key: string): Promise<void> {
    const name = this.objectName(key);
    const { s3, client } = await this.loaded();
    await this.call('delete', key, () => client.send(new s3.DeleteObjectCommand({ Bucket: this.bucket, Key: name })));
  }

  async modifiedAt(key: string): Promise<Date | undefined> {
    return (await this.head(key))?.LastModified;
  }

  /**
   * Nothing to sweep: a PUT to S3 makes the whole object visible at once or nothing at all, and
   * this store never starts multipart uploads (whose parts an interrupted upload would leave).
   */
  async sweepInterrupted(): Promise<number> {
    return 0;
  }

  /**
   * Whether the backend honours conditional writes (If-None-Match on PUT): S3 does; some
   * S3-compatible servers answer 200 and overwrite, and then two builders can overwrite each
   * other's pointers. Writes a probe under the prefix twice, each only if absent: the second must
   * be refused. The probe's name ends in the in-progress suffix, so list never shows it.
   */
  async probeConditionalWrites(): Promise<boolean> {
    const name = `${this.root}.conditional-write-probe-${randomUUID()}${IN_PROGRESS_SUFFIX}`;
    const { s3, client } = await this.loaded();
    const attempt = async (): Promise<boolean> => {
      try {
        await this.call(
          'probe',
          name,
          () => client.send(new s3.PutObjectCommand({ Bucket: this.bucket, Key: name, Body: Buffer.from('probe'), IfNoneMatch: '*' })),
          isRefusedCondition,
        );
        return true;
      } catch (error) {
        if (isRefusedCondition(error)) return false;
        throw error;
      }
    };
    try {
      await attempt();
      return !(await attempt());
    } finally {
      await this.call('probe', name, () => client.send(new s3.DeleteObjectCommand({ Bucket: this.bucket, Key: name })));
    }
  }

  /**
   * An S3-compatible server that ignores conditional writes is reported: only the Redis build
   * locks then keep two builders' pointers apart.
   */
  async prepare(log: Log): Promise<void> {
    if (await this.probeConditionalWrites()) return;
    log.warn(`${this.description}: the server ignores conditional writes (If-Match, If-None-Match); two builders are kept apart by the Redis build locks alone`, {
      store: this.description,
    });
  }

  private objectName(key: string): string {
    assertStoreKey(key);
    return `${this.root}${key}`;
  }

  private putInput(key: string, bytes: Uint8Array): PutObjectCommandInput {
    return {
      Bucket: this.bucket,
      Key: this.objectName(key),
      // A view, not a copy: the request is sent before put resolves.
      Body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      ContentType: contentTypeOf(key),
      CacheControl: isPointerKey(key) ? MUTABLE : IMMUTABLE,
    };
  }

  private async read(key: string, version: Version | undefined): Promise<VersionedBytes | 'unchanged' | undefined> {
    const name = this.objectName(key);
    const { s3, client } = await this.loaded();
    try {
      return await this.call(
        'get',
        key,
        async () => {
          const answer = await client.send(new s3.GetObjectCommand({ Bucket: this.bucket, Key: name, IfNoneMatch: version }));
          const bytes = await readBody(answer.Body as Readable | undefined, answer.ContentLength, `${this.description}: ${key}`);
          return { bytes, version: answer.ETag ?? '' };
        },
        isUnchangedOrMissing,
      );
    } catch (error) {
      if (!isUnchangedOrMissing(error)) throw error;
      return statusOf(error) === 304 ? 'unchanged' : undefined;
    }
  }

  private async head(key: string) {
    const name = this.objectName(key);
    const { s3, client } = await this.loaded();
    try {
      return await this.call('head', key, () => client.send(new s3.HeadObjectCommand({ Bucket: this.bucket, Key: name })), isMissingKey);
    } catch (error) {
      if (isMissingKey(error)) return undefined;
      throw error;
    }
  }

  /**
   * One SDK call (which already retried what is worth retrying). An `expected` answer (304, 404,
   * 412) is rethrown as it is, for the caller to turn into an outcome; a backend that stayed
   * unreachable becomes StoreUnavailableError; anything else (403: credentials; a missing bucket)
   * is a broken setup, rethrown with the store and the key.
   */
  private async call<T>(operation: string, key: string, run: () => Promise<T>, expected: (error: unknown) => boolean = () => false): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (expected(error)) throw error;
      const what = `${this.description}: ${operation} ${JSON.stringify(key)}`;
      if (isUnavailable(error)) throw new StoreUnavailableError(`${what}: the store did not answer`, { cause: error });
      throw new Error(`${what} failed`, { cause: error });
    }
  }
}

/** The region when AWS_REGION is unset (docs/configuration.md). */
export const DEFAULT_REGION = 'us-east-1';

function createClient(s3: S3Sdk, endpoint: string | undefined): S3Client {
  quietNodeVersionWarning();
  return new s3.S3Client({
    // The SDK's chain finds credentials (environment, profile, SSO, container or instance role);
    // the region is AWS_REGION's, and a bucket in another region is followed there.
    region: process.env.AWS_REGION || DEFAULT_REGION,
    ...(endpoint === undefined ? { followRegionRedirects: true } : { endpoint, forcePathStyle: true }),
    // No checksum headers unless an operation needs one: S3-compatible servers store an
    // aws-chunked body as its chunks. Every read is checked against its content hash anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...RETRY_OPTIONS,
    requestHandler: HTTP_HANDLER_OPTIONS,
  });
}

/** Reads a body into one Buffer, refusing one larger than MAX_OBJECT_BYTES before holding it. */
async function readBody(body: Readable | undefined, length: number | undefined, what: string): Promise<Buffer> {
  if (body === undefined) return Buffer.alloc(0);
  const tooLarge = (size: string) => new Error(`${what} is ${size} bytes, more than the ${MAX_OBJECT_BYTES} a snapshot object may have: not read`);
  if (length !== undefined && length > MAX_OBJECT_BYTES) {
    body.destroy();
    throw tooLarge(String(length));
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_OBJECT_BYTES) {
      body.destroy();
      throw tooLarge(`over ${MAX_OBJECT_BYTES}`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/** The ETag S3 gives the bytes of a single PUT: their MD5, quoted. */
function etagOf(bytes: Uint8Array): string {
  return `"${createHash('md5').update(bytes).digest('hex')}"`;
}

interface SdkError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number; attempts?: number };
}

function statusOf(error: unknown): number | undefined {
  return (error as SdkError | undefined)?.$metadata?.httpStatusCode;
}

function attemptsOf(error: unknown): number {
  return (error as SdkError | undefined)?.$metadata?.attempts ?? 1;
}

/** A conditional PUT that did not hold: 412 (the ETag moved, or If-None-Match met an object), 409 (S3: another conditional write to the key was in flight). */
function isRefusedCondition(error: unknown): boolean {
  const status = statusOf(error);
  return status === 412 || status === 409;
}

/** No object under the key. A missing bucket is a 404 too, but a broken setup, not an empty store (HEAD answers carry no body to tell them apart). */
function isMissingKey(error: unknown): boolean {
  return statusOf(error) === 404 && (error as SdkError).name !== 'NoSuchBucket';
}

function isUnchangedOrMissing(error: unknown): boolean {
  return statusOf(error) === 304 || isMissingKey(error);
}

/** Connection errors, timeouts, throttling and 5xx: the backend is down or overwhelmed, not misconfigured. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

function isUnavailable(error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined && (status >= 500 || status === 429)) return true;
  const { name, code } = error as SdkError;
  return name === 'TimeoutError' || name === 'AbortError' || (code !== undefined && UNREACHABLE_CODES.has(code));
}
