// CORS for every response of the gateway (docs/api.md §5.8; docs/design.md "CORS"): open to any
// origin, errors included, so page JavaScript can read `errorCode`; preflights answered without a
// key. Every answer carries them among its standing headers (gateway/standing-headers.ts).
import type { Response } from 'express';

// docs/design.md "CORS": open on every response, errors included, so page JavaScript can read
// `errorCode`. No Access-Control-Allow-Credentials: browser requests carry no cookies (§5.8).
// X-Request-Id: so page JavaScript can quote the id of a request when reporting a problem, and send its own.
// Marquee-Snapshot-Id: so a page can read which snapshot answered, and pin its next reads to it (docs/api.md §10).
const EXPOSED_HEADERS = 'ETag, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, Marquee-Snapshot-Id';
const ALLOWED_METHODS = 'GET, HEAD';
const ALLOWED_HEADERS = 'Authorization, X-Api-Key, If-None-Match, X-Request-Id, Marquee-Snapshot-Id';
// Chromium caps a preflight cache at 2 hours; asking for more gains nothing there.
const PREFLIGHT_MAX_AGE_SECONDS = '7200';
// ACAO is the constant `*`, so it needs no `Vary: Origin` for CORS's sake. But the response does
// depend on request headers a browser's private cache does not key on: the key picks the
// organization, and the Origin decides between 200 and 403 for a key with an allowed list.
// Without Vary, a cached 200 (Cache-Control: private, max-age=60) could be reused for another
// key, or for a page of a refused origin. Accept-Encoding: a body may be coded (docs/api.md
// "Compressed answers"), and a cache must not give a br body to a client that cannot decode it. On
// every answer, short ones and problems too: a cache keys on the Vary of what it stores, whatever
// the size. Marquee-Snapshot-Id: a pinned read is answered from the snapshot it names, so a cached
// answer of the current snapshot must not be reused for a read pinned to another (docs/api.md §10).
const VARY = 'Authorization, X-Api-Key, Origin, Accept-Encoding, Marquee-Snapshot-Id';

/** The CORS headers of every response, as writeHead takes them; part of gateway/standing-headers.ts's. */
export const CORS_HEADERS: readonly string[] = ['Access-Control-Allow-Origin', '*', 'Access-Control-Expose-Headers', EXPOSED_HEADERS, 'Vary', VARY];

const PREFLIGHT_HEADERS: readonly string[] = [
  ...CORS_HEADERS,
  'Access-Control-Allow-Methods',
  ALLOWED_METHODS,
  'Access-Control-Allow-Headers',
  ALLOWED_HEADERS,
  'Access-Control-Max-Age',
  PREFLIGHT_MAX_AGE_SECONDS,
  'Allow',
  `${ALLOWED_METHODS}, OPTIONS`,
];

/** Sets name/value pairs one by one: for responses that set more headers later (errors). */
export function setHeaders(res: Response, headers: readonly string[]): void {
  for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i]!, headers[i + 1]!);
}

/** Any OPTIONS request (preflight or not) is answered 204 without a key. */
export function answerPreflight(res: Response): void {
  res.writeHead(204, PREFLIGHT_HEADERS as string[]).end();
}
