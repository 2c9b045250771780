// Sending a 200: every header in one writeHead batch — the standing ones (CORS, nosniff), the key's rate-limit
// state, the entity tag and caching headers — because each setHeader before writeHead would be
// validated, stored and copied again one by one. A request carrying If-None-Match that matches
// the representation's tag gets a 304 without a body, whatever its Cache-Control says
// (routes/conditional.ts) and whatever coding it accepts: the tag names the JSON, in every coding.
// Otherwise the body goes in the coding Accept-Encoding prefers (routes/accept-encoding.ts), as the
// builder stored it or as the gateway compressed a rendering once; HEAD gets GET's headers only. The
// request id goes in the same batch (gateway/observed-request.ts), and the snapshot the answer came from.
import type { Request, Response } from 'express';
import { STANDING_HEADERS } from '../standing-headers.ts';
import { countApiResponse, observationOf } from '../observed-request.ts';
import { CACHE_CONTROL, type CodedForm, type Representation } from '../../snapshot/representation.ts';
import { REQUEST_ID_HEADER } from '../request-id.ts';
import { notAcceptable, SNAPSHOT_ID_HEADER } from '../errors.ts';
import { ifNoneMatchMatches } from './conditional.ts';
import { acceptedCodings, type AcceptedCodings } from './accept-encoding.ts';
import type { Awaitable } from '../../runtime/awaitable.ts';

/** What goes as the body of a 200: the JSON as it is, or one of its coded forms. */
type Body = Pick<CodedForm, 'bytes' | 'headers'>;

/**
 * `snapshotId`: the snapshot the answer came from (Marquee-Snapshot-Id, docs/api.md §10).
 * Synchronous when the form to send is held; a promise when a coded form is obtained first (read
 * from the store, or compressed once), which rejects with the gateway's error for the client.
 */
export function sendRepresentation(req: Request, res: Response, representation: Representation, rateLimitHeaders: readonly string[], snapshotId: string): void | Promise<void> {
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
  const body = bodyFor(representation, acceptedCodings(req.headers['accept-encoding']));
  if (body instanceof Promise) return body.then((obtained) => send200(req, res, obtained, requestId, rateLimitHeaders, snapshotId));
  send200(req, res, body, requestId, rateLimitHeaders, snapshotId);
}

function send200(req: Request, res: Response, body: Body, requestId: string, rateLimitHeaders: readonly string[], snapshotId: string): void {
  res.writeHead(200, [...STANDING_HEADERS, REQUEST_ID_HEADER, requestId, ...rateLimitHeaders, SNAPSHOT_ID_HEADER, snapshotId, ...body.headers]);
  if (req.method === 'HEAD') res.end();
  else res.end(body.bytes);
  countApiResponse(req, 200);
}

/**
 * The first form in the request's order that the representation has: identity for a short body
 * when identity is acceptable (MIN_CODED_BYTES), a coded form otherwise. A coded form that cannot be
 * obtained (the store failing) gives way to the next choice; with none left, its error stands.
 */
export function bodyFor(representation: Representation, accepted: AcceptedCodings): Awaitable<Body> {
  if (accepted.identity && !representation.worthCoding) return representation;
  return firstOf(representation, accepted.order, 0, undefined);
}

function firstOf(representation: Representation, order: AcceptedCodings['order'], from: number, failure: unknown): Awaitable<Body> {
  for (let at = from; at < order.length; at++) {
    const choice = order[at]!;
    if (choice === 'identity') return representation;
    const held = representation.held(choice);
    if (held === null) continue;
    if (held !== undefined) return held;
    return Promise.resolve(representation.coded(choice)).then(
      (form) => form ?? firstOf(representation, order, at + 1, failure),
      (error: unknown) => firstOf(representation, order, at + 1, error),
    );
  }
  throw failure ?? notAcceptable();
}
