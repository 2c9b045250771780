// The one place an error becomes a response: RFC 7807 application/problem+json
// with docs/api.md §7's fields plus `errorCode`, registered once as the last Express error handler.
// Anything that is not an ApiError is a fault of ours: the client gets a bare 500 body and the
// log gets one line with the stack — never the other way round. Except an outage: snapshot
// storage that cannot be reached (StoreUnavailableError, wherever it surfaces) is no bug and
// passes, so it answers 503 with Retry-After and logs a rate-limited warning without a stack; so
// does any other 503 (the key store unreachable). Every line names the request id, the route's
// template, the status and the duration. A 4xx is the client's and gets no line: under attack
// those are nearly all the traffic, and one line each would bury the log and cost the gateway;
// they are counted in the metrics instead (by route and status, 429s by limit).
import type { ErrorRequestHandler, Request } from 'express';
import { canonicalJson } from '../snapshot/canonical.ts';
import { keyOrderOf } from '../snapshot/key-order.ts';
import type { ProblemDetails } from '../snapshot/resources.ts';
import { setHeaders } from './access/cors.ts';
import { StoreUnavailableError } from '../snapshot/store.ts';
import { ApiError, serviceUnavailable } from './errors.ts';
import type { Log } from '../snapshot/log.ts';
import type { GatewayMetrics } from './metrics.ts';
import { countApiResponse, elapsedMs, observationOf } from './observed-request.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';
import { OutageWarning } from './snapshot-cache/outage-warning.ts';

/** `type` URIs name the errorCode, so a client can branch on either (docs/api.md §7). */
const PROBLEM_TYPE_BASE = 'https://marquee.example/problems/';
const PROBLEM_ORDER = keyOrderOf('problem-details');

const internalError = () => new ApiError(500, 'INTERNAL_ERROR', 'Internal error', 'The gateway could not answer this request; it has been logged.');

/**
 * Short, because the gateway remembers no failure: the next request reads storage again (one read
 * shared by every request waiting for it), so a client is served as soon as storage is back.
 */
const STORAGE_RETRY_AFTER_SECONDS = 5;
const storageUnavailable = () =>
  serviceUnavailable(STORAGE_RETRY_AFTER_SECONDS, 'The data for this request cannot be read from storage right now; try again after Retry-After seconds.');

/** Headers describing a representation: an error is not one (docs/design.md: errors carry no ETag). */
const REPRESENTATION_HEADERS = ['ETag', 'Last-Modified', 'Content-Length', 'Content-Encoding'];

export function problemHandler({ log, metrics }: { log: Log; metrics?: GatewayMetrics | undefined }): ErrorRequestHandler {
  const outage = new OutageWarning(log, 'request answered 503: snapshot storage unreachable');
  const unavailable = new OutageWarning(log, 'request answered 503: a backend cannot be reached');
  return function problemResponse(error: unknown, req, res, next) {
    const problem = asApiError(error);
    const apiError = problem ?? internalError();
    const observed = observationOf(req);
    if (apiError.status >= 500) {
      const fields = {
        requestId: observed?.id,
        method: req.method,
        route: observed?.route.name,
        path: withoutKeys(pathOf(req)),
        status: apiError.status,
        durationMs: observed && elapsedMs(observed),
      };
      if (problem === undefined) log.error('request failed', { ...fields, err: error });
      else if (isStoreOutage(error)) outage.report(error, fields);
      else unavailable.report(error, fields);
    } else if (apiError.status === 429) {
      // Only the key's own limit announces a policy; the address's throttle knows no key.
      metrics?.rateLimited('RateLimit-Policy' in apiError.headers ? 'key' : 'address');
    }
    // Too late for a status line; Express's final handler closes the connection.
    if (res.headersSent) return next(error);

    for (const name of REPRESENTATION_HEADERS) res.removeHeader(name);
    // CORS and rate-limit headers set earlier stay: a browser must be able to read the error.
    res.status(apiError.status);
    const bytes = problemBytes(apiError, problemInstance(pathOf(req), observed?.id));
    if (observed !== undefined) res.setHeader(REQUEST_ID_HEADER, observed.id);
    setHeaders(res, problemHeaders(apiError, bytes.length));
    // Node writes no body for HEAD, but the headers match GET's.
    res.end(bytes);
    countApiResponse(req, apiError.status);
  };
}

/**
 * The headers of an error answer besides CORS, as name/value pairs: its media type, no-store (an
 * error is no representation to cache), its own headers (Retry-After, Allow, …) and the length.
 */
export function problemHeaders(apiError: ApiError, length: number): string[] {
  return ['Content-Type', 'application/problem+json; charset=utf-8', 'Cache-Control', 'no-store', ...Object.entries(apiError.headers).flat(), 'Content-Length', String(length)];
}

/**
 * `instance`: the path the client asked for (null when none could be read), then the request id
 * as `#request=<id>`, so that a problem a client reports leads to the gateway's log lines.
 */
export function problemInstance(path: string | null, requestId: string | undefined): string | null {
  return requestId === undefined ? path : `${path ?? ''}#request=${requestId}`;
}

/** The problem+json body of an error; `instance` as problemInstance makes it, or null. */
export function problemBytes(apiError: ApiError, instance: string | null): Buffer {
  const body: ProblemDetails = {
    type: PROBLEM_TYPE_BASE + apiError.errorCode.toLowerCase().replaceAll('_', '-'),
    title: apiError.title,
    status: apiError.status,
    detail: apiError.detail,
    instance,
    errorCode: apiError.errorCode,
  };
  return Buffer.from(canonicalJson(body, PROBLEM_ORDER), 'utf8');
}

/** The client-facing error: what a client did wrong, or storage that is down; undefined for our own faults. */
function asApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  return isStoreOutage(error) ? storageUnavailable() : undefined;
}

/** A StoreUnavailableError, or an error caused by one (a wrapper adding context keeps it as its cause). */
function isStoreOutage(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    if (current instanceof StoreUnavailableError) return true;
    seen.add(current);
  }
  return false;
}

/**
 * A key pasted into a URL path, masked for the log (our keys start with mqk_, as sent or
 * percent-encoded). The query is never logged at all.
 */
const KEY_IN_PATH = /mqk(?:_|%5f)[A-Za-z0-9]*/gi;
const withoutKeys = (path: string) => path.replace(KEY_IN_PATH, 'mqk_[redacted]');

/** The path the client asked for, as sent, without the query. */
function pathOf(req: Request): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
