// The one error type of the API (docs/api.md §7, docs/design.md decisions table). Route and middleware code
// throws these; gateway/problem.ts is the only place that turns them into answers, written as
// every problem is (snapshot/problem.ts).
import { HttpProblem } from '../snapshot/problem.ts';

/** Names the snapshot an answer came from, and the one a request pins (docs/api.md §10). */
export const SNAPSHOT_ID_HEADER = 'Marquee-Snapshot-Id';

/** Every `errorCode` the gateway answers, spelled once: the type below and the docs' test read it. */
export const API_ERRORS = [
  'BAD_REQUEST',
  'API_KEY_INVALID',
  'ORGANIZATION_SUSPENDED',
  'API_KEY_ORIGIN_NOT_ALLOWED',
  'EVENT_NOT_FOUND',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'NOT_ACCEPTABLE',
  'RATE_LIMITED',
  'SNAPSHOT_NOT_CURRENT',
  'SNAPSHOT_EXPIRED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  // Raised by the HTTP parser before a request reaches the API (gateway/protocol-errors.ts).
  'REQUEST_TIMEOUT',
  'EXPECTATION_FAILED',
  'REQUEST_HEADERS_TOO_LARGE',
] as const;

export type ErrorCode = (typeof API_ERRORS)[number];

export class ApiError extends HttpProblem<ErrorCode> {
  override name = 'ApiError';
}

export const badRequest = (detail: string) => new ApiError(400, 'BAD_REQUEST', 'Bad request', detail);
/** A 401 carries the challenge RFC 9110 §15.5.2 requires. */
export const keyInvalid = (detail = 'The API key is missing, unrecognised or revoked.') =>
  new ApiError(401, 'API_KEY_INVALID', 'Invalid API key', detail, { 'WWW-Authenticate': 'Bearer' });
export const organizationSuspended = () => new ApiError(403, 'ORGANIZATION_SUSPENDED', 'Organization suspended', 'The organization is suspended or closed; its data is hidden.');
export const originNotAllowed = (origin: string) => new ApiError(403, 'API_KEY_ORIGIN_NOT_ALLOWED', 'Origin not allowed', `This key may not be used from ${origin}.`);
export const eventNotFound = () => new ApiError(404, 'EVENT_NOT_FOUND', 'Event not found', 'No published event of this organization has that id or slug.');
export const notFound = () => new ApiError(404, 'NOT_FOUND', 'Not found', 'No resource at this path.');
/**
 * A pinned read (Marquee-Snapshot-Id) of a snapshot that stopped being current longer ago than the
 * pin window, or that was never this organization's: the client starts over from the current one,
 * named in the header and the body (docs/api.md §10).
 */
export const snapshotNotCurrent = (currentSnapshotId: string) =>
  new ApiError(
    409,
    'SNAPSHOT_NOT_CURRENT',
    'Snapshot no longer readable',
    "The snapshot named in Marquee-Snapshot-Id is no longer readable (it stopped being current too long ago, or is not this organization's). Start over from the current snapshot, named in currentSnapshotId and in the Marquee-Snapshot-Id response header.",
    { [SNAPSHOT_ID_HEADER]: currentSnapshotId },
    { currentSnapshotId },
  );

/**
 * GET /changes?since= names a snapshot the store no longer keeps (retention pruned it) or never
 * had: nothing to compare with, so the client reads everything again (docs/api.md §10).
 */
export const sinceExpired = (currentSnapshotId: string) =>
  new ApiError(
    410,
    'SNAPSHOT_EXPIRED',
    'Snapshot no longer kept',
    "The snapshot named in since is no longer kept (or was never this organization's), so there is nothing to compare with: read everything again, from GET /changes without since.",
    {},
    { currentSnapshotId },
  );

export const methodNotAllowed = (allow: string) =>
  new ApiError(405, 'METHOD_NOT_ALLOWED', 'Method not allowed', 'This API is read-only: only GET and HEAD are served.', { Allow: allow });
/**
 * The request refuses the JSON as it is (`identity;q=0`, or `*;q=0` without identity) and accepts
 * neither coding the gateway has (RFC 9110 §12.5.3, §15.5.7): br and gzip are named, so the client
 * knows what it could ask for.
 */
export const notAcceptable = () =>
  new ApiError(406, 'NOT_ACCEPTABLE', 'Not acceptable', 'The request refuses every coding this answer is available in: accept br, gzip or identity in Accept-Encoding.');
export const rateLimited = (retryAfterSeconds: number, headers: Record<string, string>, detail = 'The key exceeded its limit of requests per minute.') =>
  new ApiError(429, 'RATE_LIMITED', 'Too many requests', detail, { ...headers, 'Retry-After': String(retryAfterSeconds) });

/**
 * A backend the answer depends on (object storage, the CDN, Redis) cannot be reached, and the
 * gateway holds nothing it may answer with instead. Temporary: Retry-After says when to try again.
 */
export const serviceUnavailable = (retryAfterSeconds: number, detail: string) =>
  new ApiError(503, 'SERVICE_UNAVAILABLE', 'Service unavailable', detail, { 'Retry-After': String(retryAfterSeconds) });

/** A request whose bytes are not HTTP/1.1 the parser accepts: unknown or lower-case methods, bad request lines. */
export const malformedRequest = () => badRequest('The request is not valid HTTP/1.1: check the method (GET or HEAD, in capitals), the request line and the headers.');
export const requestTimeout = () => new ApiError(408, 'REQUEST_TIMEOUT', 'Request timeout', 'The request was not received completely in time.');
export const expectationFailed = () =>
  new ApiError(417, 'EXPECTATION_FAILED', 'Expectation failed', 'The only expectation the gateway meets is 100-continue; send no other Expect header.');
export const requestHeadersTooLarge = () =>
  new ApiError(431, 'REQUEST_HEADERS_TOO_LARGE', 'Request header fields too large', 'The request headers are larger than the gateway accepts (16 KiB in all).');
