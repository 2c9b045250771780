// Sending a 200 (STYLE.md §8): every header in one writeHead batch — CORS, the key's rate-limit
// state, the entity tag and caching headers — because each setHeader before writeHead would be
// validated, stored and copied again one by one. A conditional request sets the ETag first, so
// Express's own freshness check (req.fresh: If-None-Match lists, `*`, weak comparison,
// `Cache-Control: no-cache`) decides for a 304 without a body; HEAD gets GET's headers only.
import type { Request, Response } from 'express';
import { CORS_HEADERS } from '../access/middleware.ts';
import { CACHE_CONTROL, type Representation } from '../representation.ts';

export function sendRepresentation(req: Request, res: Response, representation: Representation, rateLimitHeaders: readonly string[]): void {
  // req.fresh is false at once without either validator; only a conditional request pays for it.
  if (req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined) {
    res.setHeader('ETag', representation.quotedEtag);
    if (req.fresh) {
      // A 304 carries no body, so none of the headers that describe one.
      res.writeHead(304, [...CORS_HEADERS, ...rateLimitHeaders, 'ETag', representation.quotedEtag, 'Cache-Control', CACHE_CONTROL]);
      res.end();
      return;
    }
  }
  res.writeHead(200, [...CORS_HEADERS, ...rateLimitHeaders, ...representation.headers]);
  if (req.method === 'HEAD') res.end();
  else res.end(representation.bytes);
}
