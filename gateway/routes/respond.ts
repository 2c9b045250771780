// Sending a 200 (STYLE.md §8): the entity tag and caching headers are set before res.send, so
// Express's own freshness check (the `fresh` package: If-None-Match lists, `*`, weak comparison)
// turns the answer into a 304 without a body, and HEAD into headers only.
import type { Response } from 'express';
import type { Representation } from '../representation.ts';

/** spec §8 "Response freshness", DESIGN.md "caching headers": on every 200 and 304. */
const CACHE_CONTROL = 'private, max-age=60';

export function sendRepresentation(res: Response, representation: Representation): void {
  res.setHeader('ETag', `"${representation.etag}"`);
  res.setHeader('Cache-Control', CACHE_CONTROL);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(representation.bytes);
}
