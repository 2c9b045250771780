// Sending a 200: every header in one writeHead batch — the standing ones (CORS, nosniff), the key's rate-limit
// state, the entity tag and caching headers — because each setHeader before writeHead would be
// validated, stored and copied again one by one. A request carrying If-None-Match that matches
// the representation's tag gets a 304 without a body, whatever its Cache-Control says
// (routes/conditional.ts); HEAD gets GET's headers only. The request id goes in the same batch
// (gateway/observed-request.ts), and the snapshot the answer came from.
import type { Request, Response } from 'express';
import { STANDING_HEADERS } from '../standing-headers.ts';
import { countApiResponse, observationOf } from '../observed-request.ts';
import { CACHE_CONTROL, type Representation } from '../../snapshot/representation.ts';
import { REQUEST_ID_HEADER } from '../request-id.ts';
import { SNAPSHOT_ID_HEADER } from '../errors.ts';
import { ifNoneMatchMatches } from './conditional.ts';

/** `snapshotId`: the snapshot the answer came from (Marquee-Snapshot-Id, docs/api.md §10). */
export function sendRepresentation(req: Request, res: Response, representation: Representation, rateLimitHeaders: readonly string[], snapshotId: string): void {
  const requestId = observationOf(req)?.id ?? '';
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, representation.etag)) {
    // A 304 carries no body, so none of the headers that describe one (RFC 9110 §15.4.5).
    res.writeHead(304, [
      ...STANDING_HEADERS,
      REQUEST_ID_HEADER,
      requestId,
      ...rateLimitHeaders,
      SNAPSHOT_ID_HEADER,
      snapshotId,
      'ETag',
      representation.quotedEtag,
      'Cache-Control',
      CACHE_CONTROL,
    ]);
    res.end();
    countApiResponse(req, 304);
    return;
  }
  res.writeHead(200, [...STANDING_HEADERS, REQUEST_ID_HEADER, requestId, ...rateLimitHeaders, SNAPSHOT_ID_HEADER, snapshotId, ...representation.headers]);
  if (req.method === 'HEAD') res.end();
  else res.end(representation.bytes);
  countApiResponse(req, 200);
}
