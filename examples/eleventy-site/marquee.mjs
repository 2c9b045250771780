// The integration API as a site's build reads it: every answer of one build from ONE snapshot
// (docs/api.md §10). The first answer names its snapshot in `Marquee-Snapshot-Id`; every later
// request sends that id back, so the gateway answers it from the same snapshot even while newer
// ones are published. When the pinned snapshot can no longer be read (409 SNAPSHOT_NOT_CURRENT:
// it stopped being current longer ago than the pin window), the build must start over from the
// current one, which the 409 names. Plain Node (20.19 or later): global fetch, nothing else.

const API_BASE = '/api/integration/v1';
const SNAPSHOT_HEADER = 'Marquee-Snapshot-Id';
/** 429 and 503 carry Retry-After; a build waits that long, this many times per request at most. */
const MAX_WAITS = 5;
const MAX_WAIT_SECONDS = 60;

/** The pinned snapshot can no longer be read: start the build over from `currentSnapshotId`. */
export class SnapshotNotCurrent extends Error {
  /** @param {string | undefined} currentSnapshotId */
  constructor(currentSnapshotId) {
    super(`the pinned snapshot is no longer readable; the current one is ${currentSnapshotId}`);
    this.name = 'SnapshotNotCurrent';
    this.currentSnapshotId = currentSnapshotId;
  }
}

/** Any other answer than the one asked for: `status` and the problem body's `errorCode`. */
export class MarqueeError extends Error {
  /**
   * @param {string} path
   * @param {number} status
   * @param {Record<string, unknown> | undefined} problem
   */
  constructor(path, status, problem) {
    super(`GET ${path} answered ${status}${typeof problem?.errorCode === 'string' ? ` ${problem.errorCode}` : ''}`);
    this.name = 'MarqueeError';
    this.status = status;
    this.errorCode = typeof problem?.errorCode === 'string' ? problem.errorCode : undefined;
    this.problem = problem;
  }
}

/**
 * @typedef {object} Answer
 * @property {string} path The API path asked for, below the host (`/api/integration/v1/team`).
 * @property {number} status 200.
 * @property {any} body The parsed JSON.
 * @property {string} etag
 * @property {string} snapshotId The snapshot that decided the answer.
 */

/**
 * @typedef {object} ClientOptions
 * @property {string} url The gateway's origin, e.g. `https://api.example.org`.
 * @property {string} key The organization's API key.
 * @property {string} [pin] A snapshot to read from (e.g. the one a 409 named); else the first answer's.
 * @property {AbortSignal} [signal] Aborts requests in flight (a restart drops the old pin's).
 * @property {(answer: Answer) => void | Promise<void>} [onAnswer] Told of every answer, awaited before it is used.
 * @property {(line: string) => void} [log]
 */

/** A client that pins the first snapshot it is answered from. */
export class PinnedClient {
  /** The snapshot every request is pinned to; undefined until the first answer. @type {string | undefined} */
  snapshotId;
  /** Answers received, for the build's report. */
  requests = 0;
  /** @type {ClientOptions} */
  #options;

  /** @param {ClientOptions} options */
  constructor(options) {
    this.#options = options;
    this.snapshotId = options.pin;
  }

  /**
   * GET `path` (relative to the API's base path, e.g. `/events?page=2`) from the pinned snapshot.
   * Throws SnapshotNotCurrent on 409 and MarqueeError on any other status than 200; waits as
   * Retry-After says on 429 and 503 (a few times).
   * @param {string} path
   * @returns {Promise<Answer>}
   */
  async get(path) {
    const full = `${API_BASE}${path}`;
    for (let waits = 0; ; waits++) {
      /** @type {Record<string, string>} */
      const headers = { Authorization: `Bearer ${this.#options.key}`, Accept: 'application/json' };
      if (this.snapshotId !== undefined) headers[SNAPSHOT_HEADER] = this.snapshotId;
      const response = await fetch(`${this.#options.url.replace(/\/+$/, '')}${full}`, { headers, signal: this.#options.signal });
      this.requests++;
      const answeredFrom = response.headers.get(SNAPSHOT_HEADER) ?? undefined;
      if (response.status === 409) {
        const problem = await problemOf(response);
        if (problem?.errorCode === 'SNAPSHOT_NOT_CURRENT') throw new SnapshotNotCurrent(stringOr(problem.currentSnapshotId, answeredFrom));
        throw new MarqueeError(full, 409, problem);
      }
      if ((response.status === 429 || response.status === 503) && waits < MAX_WAITS) {
        // The key's 600 requests a minute (docs/api.md §8): a large organization's full build meets it.
        const seconds = Math.min(Number(response.headers.get('Retry-After')) || 1, MAX_WAIT_SECONDS);
        await response.body?.cancel();
        this.#options.log?.(`${response.status} on ${full}: waiting ${seconds} s as Retry-After says`);
        await delay(seconds * 1000, this.#options.signal);
        continue;
      }
      if (response.status !== 200) throw new MarqueeError(full, response.status, await problemOf(response));
      if (answeredFrom === undefined) throw new Error(`GET ${full} answered ${response.status} without ${SNAPSHOT_HEADER}`);
      if (this.snapshotId === undefined) this.snapshotId = answeredFrom;
      // A pinned request is answered from the pin or refused with 409: anything else would break the build's one snapshot.
      if (answeredFrom !== this.snapshotId) throw new Error(`GET ${full} pinned to ${this.snapshotId} was answered from ${answeredFrom}`);
      const answer = {
        path: full,
        status: response.status,
        body: await response.json(),
        etag: response.headers.get('ETag') ?? '',
        snapshotId: answeredFrom,
      };
      await this.#options.onAnswer?.(answer);
      return answer;
    }
  }
}

/** @param {Response} response @returns {Promise<Record<string, unknown> | undefined>} */
async function problemOf(response) {
  try {
    const body = await response.json();
    return typeof body === 'object' && body !== null ? body : undefined;
  } catch {
    return undefined;
  }
}

/** @param {unknown} value @param {string | undefined} fallback */
const stringOr = (value, fallback) => (typeof value === 'string' ? value : fallback);

/** @param {number} ms @param {AbortSignal | undefined} signal */
function delay(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve(undefined);
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/**
 * Runs `work` over `items`, at most `limit` at a time; the first failure rejects (and the rest are
 * not started).
 * @template T, R
 * @param {T[]} items
 * @param {number} limit
 * @param {(item: T) => Promise<R>} work
 * @returns {Promise<R[]>}
 */
export async function inParallel(items, limit, work) {
  /** @type {R[]} */
  const results = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await work(/** @type {T} */ (items[i]));
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export { API_BASE };
