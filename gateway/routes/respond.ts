// Sending a 200 (STYLE.md §8): the entity tag and caching headers are set first, so Express's own
// freshness check (req.fresh: If-None-Match lists, `*`, weak comparison, `Cache-Control:
// no-cache`) decides for a 304 without a body; HEAD gets GET's headers only. What res.send did for
// a Buffer, without its generic work (type sniffing, ETag generation, header reads).
import type { Request, Response } from 'express';
import type { Representation } from '../representation.ts';

/** spec §8 "Response freshness", DESIGN.md "caching headers": on every 200 and 304. */
const CACHE_CONTROL = 'private, max-age=60';
const JSON_TYPE = 'application/json; charset=utf-8';

export function sendRepresentation(req: Request, res: Response, representation: Representation): void {
  res.setHeader('ETag', representation.quotedEtag);
  res.setHeader('Cache-Control', CACHE_CONTROL);
  if (req.fresh) {
    // A 304 carries no body, so none of the headers that describe one.
    res.statusCode = 304;
    res.end();
    return;
  }
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', representation.bytes.length);
  if (req.method === 'HEAD') res.end();
  else res.end(representation.bytes);
}
