// A gateway's SnapshotSource through a CDN (SNAPSHOT_CDN_URL): manifests and objects, which are
// written once under their names, are fetched over HTTP from the CDN in front of the store, so
// many gateways cost the store one read per key and region; pointers, the one key that is ever
// replaced (snapshot/layout.ts), and `has` go to the store itself, so a CDN's copy of a pointer
// can never hide a publish. `${cdn}/${key}` is the object under store key `key`.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Dispatcher, errors, Pool } from 'undici';
import { describeError } from '../../runtime/errors.ts';
import { isPointerKey } from '../layout.ts';
import { assertStoreKey, type SnapshotSource, StoreUnavailableError, type Version, type VersionedBytes } from '../store.ts';
import { RetryBudget } from './retry-budget.ts';

interface CdnSourceOptions {
  /** Connections to the CDN, and so requests in flight at once; further requests wait their turn. */
  connections?: number;
  connectTimeoutMs?: number;
  /** From sending a request to its response's headers. */
  headersTimeoutMs?: number;
  /** Between two chunks of a body: a stalled transfer fails instead of holding its requests. */
  bodyTimeoutMs?: number;
  /** Larger bodies are refused: no snapshot object comes near it, and memory stays bounded. */
  maxBodyBytes?: number;
  /**
   * Further attempts after a network error, a timeout or a 5xx (also 408 and 429), while the retry
   * budget lasts: retries are a share of successes, so a CDN failing most requests gets few.
   */
  retries?: number;
  /** Pause before the first retry, doubled before each further one. */
  retryDelayMs?: number;
}

const DEFAULTS: Required<CdnSourceOptions> = {
  connections: 32,
  connectTimeoutMs: 2_000,
  headersTimeoutMs: 5_000,
  bodyTimeoutMs: 5_000,
  maxBodyBytes: 64 * 1024 * 1024,
  retries: 2,
  retryDelayMs: 100,
};

/** One attempt's outcome: the key's bytes (undefined: there are none), or a failure worth retrying. */
type Attempt = { done: true; bytes: Buffer | undefined } | { done: false; failure: unknown };

export class CdnSource implements SnapshotSource {
  readonly description: string;
  private readonly pool: Pool;
  /** The base URL's path, without a trailing '/': keys are appended below it. */
  private readonly basePath: string;
  private readonly cdn: string;
  private readonly options: Required<CdnSourceOptions>;
  /** One fetch per key however many readers wait for it; the entry goes when it settles. */
  private readonly inFlight = new Map<string, Promise<Buffer | undefined>>();
  private readonly retryBudget = new RetryBudget();

  constructor(
    private readonly origin: SnapshotSource,
    cdnUrl: string,
    options: CdnSourceOptions = {},
  ) {
    const base = new URL(cdnUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`CDN URL ${cdnUrl} is not an http: or https: URL`);
    if (base.username !== '' || base.password !== '' || base.search !== '' || base.hash !== '') {
      throw new Error(`CDN URL ${cdnUrl} may hold a scheme, a host, a port and a path only`);
    }
    this.options = { ...DEFAULTS, ...options };
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.cdn = base.origin + this.basePath;
    this.description = `${origin.description} through CDN ${this.cdn}`;
    this.pool = new Pool(base.origin, {
      connections: this.options.connections,
      connect: { timeout: this.options.connectTimeoutMs },
      headersTimeout: this.options.headersTimeoutMs,
      bodyTimeout: this.options.bodyTimeoutMs,
      maxResponseSize: this.options.maxBodyBytes,
    });
  }

  async get(key: string): Promise<Buffer | undefined> {
    assertStoreKey(key);
    if (isPointerKey(key)) return this.origin.get(key);
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      pending = this.fetch(key).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /** Only pointers are read conditionally, and they are read from the store. */
  getIfChanged(key: string, version: Version | undefined): Promise<VersionedBytes | 'unchanged' | undefined> {
    return this.origin.getIfChanged(key, version);
  }

  /** The store answers: a CDN may have cached an earlier 404, and readiness must probe the store. */
  has(key: string): Promise<boolean> {
    return this.origin.has(key);
  }

  assertExists(): Promise<void> {
    return this.origin.assertExists?.() ?? Promise.resolve();
  }

  /** Closes the CDN connections; the origin store is the caller's to close. */
  async close(): Promise<void> {
    await this.pool.close();
  }

  private async fetch(key: string): Promise<Buffer | undefined> {
    const path = `${this.basePath}/${key.split('/').map(encodeURIComponent).join('/')}`;
    let failure: unknown;
    let attempts = 0;
    do {
      if (attempts > 0) await sleep(this.options.retryDelayMs * 2 ** (attempts - 1));
      attempts++;
      const outcome = await this.attempt(key, path);
      if (outcome.done) {
        this.retryBudget.succeeded();
        return outcome.bytes;
      }
      failure = outcome.failure;
    } while (attempts <= this.options.retries && this.retryBudget.spend());
    const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
    throw new StoreUnavailableError(`${key} could not be read through CDN ${this.cdn} (${tries}): ${describeError(failure)}`, { cause: failure });
  }

  private async attempt(key: string, path: string): Promise<Attempt> {
    let response: Dispatcher.ResponseData;
    try {
      // No Accept-Encoding asked and no Content-Encoding undone: the bytes are the store's as they
      // are, an object's coded forms too (stored without Content-Encoding, s3.ts contentTypeOf).
      response = await this.pool.request({ path, method: 'GET' });
    } catch (error) {
      return this.failed(key, error);
    }
    const { statusCode, body } = response;
    if (statusCode === 200) {
      try {
        return { done: true, bytes: Buffer.from(await body.arrayBuffer()) };
      } catch (error) {
        return this.failed(key, error);
      }
    }
    // Consumed so the connection can be reused; if that fails the connection is dropped, and the
    // status has already said what there is to know.
    await body.dump().catch(() => undefined);
    if (statusCode === 404 || statusCode === 410) return { done: true, bytes: undefined };
    if (statusCode >= 500 || statusCode === 408 || statusCode === 429) return { done: false, failure: new Error(`the CDN answered ${statusCode}`) };
    // 403 and the like: the CDN is up but not set up to read the store. A fault to fix, not an
    // outage to wait out: retrying cannot help.
    throw new Error(`CDN ${this.cdn} answered ${statusCode} for ${key}: check SNAPSHOT_CDN_URL and the CDN's access to the store`);
  }

  /** A transport failure is worth another attempt; a body over the bound is not. */
  private failed(key: string, error: unknown): Attempt {
    if (error instanceof errors.ResponseExceededMaxSizeError) {
      throw new Error(`${key} through CDN ${this.cdn} is larger than ${this.options.maxBodyBytes} bytes`, { cause: error });
    }
    return { done: false, failure: error };
  }
}
