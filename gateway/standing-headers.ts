// The headers every answer of the gateway carries, whoever writes it (a 200 or 304 in its one
// writeHead batch, a problem, the docs pages, the HTTP parser's errors): CORS (access/cors.ts) and
// `X-Content-Type-Options: nosniff` (docs/design.md "Gateway": every answer is nosniff), so
// that no browser reads a JSON or problem body as a script or a page whatever it guesses of it.
// One precomputed array, so that the hot path pays one spread of two more strings per answer.
import type { RequestHandler } from 'express';
import { answerPreflight, CORS_HEADERS, setHeaders } from './access/cors.ts';

/** As writeHead takes them: name, value, name, value. */
export const STANDING_HEADERS: readonly string[] = [...CORS_HEADERS, 'X-Content-Type-Options', 'nosniff'];

/** The standing headers on every response outside the API, which writes its own; answers OPTIONS (the preflight). */
export function standingHeaders(): RequestHandler {
  return function standingHeadersOf(req, res, next) {
    if (req.method === 'OPTIONS') return answerPreflight(res);
    setHeaders(res, STANDING_HEADERS);
    next();
  };
}
