// The one place an API error becomes a response (written as every problem is: snapshot/problem.ts),
// registered once as the last Express error handler.
// Anything that is not an ApiError is a fault of ours: the client gets a bare 500 body and the
// log gets one line with the stack — never the other way round. Except an outage: snapshot
// storage that cannot be reached (StoreUnavailableError, wherever it surfaces) is no bug and
// passes, so it answers 503 with Retry-After and logs a rate-limited warning without a stack; so
// does any other 503 (the key store unreachable). Every line names the request id, the route's
// template, the status and the duration. A 4xx is the client's and gets no line: under attack
// those are nearly all the traffic, and one line each would bury the log and cost the gateway;
// they are counted in the metrics instead (by route and status, 429s by limit).
import type { ErrorRequestHandler, Request } from 'express';
import { causedBy, sendProblem } from '../snapshot/problem.ts';
import { StoreUnavailableError } from '../snapshot/store.ts';
import { ApiError, serviceUnavailable } from './errors.ts';
import type { Log } from '../runtime/log.ts';
import type { GatewayMetrics } from './metrics.ts';
import { countApiResponse, elapsedMs, observationOf } from './observed-request.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';
import { OutageWarning } from './snapshot-cache/outage-warning.ts';

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
      else if (causedBy(error, StoreUnavailableError)) outage.report(error, fields);
      else unavailable.report(error, fields);
    } else if (apiError.status === 429) {
      // Only the key's own limit announces a policy; the address's throttle knows no key.
      metrics?.rateLimited('RateLimit-Policy' in apiError.headers ? 'key' : 'address');
    }
    // Too late for a status line; Express's final handler closes the connection.
    if (res.headersSent) return next(error);

    for (const name of REPRESENTATION_HEADERS) res.removeHeader(name);
    // CORS and rate-limit headers set earlier stay: a browser must be able to read the error.
    if (observed !== undefined) res.setHeader(REQUEST_ID_HEADER, observed.id);
    sendProblem(res, apiError, problemInstance(pathOf(req), observed?.id));
    countApiResponse(req, apiError.status, apiError.errorCode);
  };
}

/**
 * `instance`: the path the client asked for (null when none could be read), then the request id
 * as `#request=<id>`, so that a problem a client reports leads to the gateway's log lines.
 */
export function problemInstance(path: string | null, requestId: string | undefined): string | null {
  return requestId === undefined ? path : `${path ?? ''}#request=${requestId}`;
}

/** The client-facing error: what a client did wrong, or storage that is down; undefined for our own faults. */
function asApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  return causedBy(error, StoreUnavailableError) ? storageUnavailable() : undefined;
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
