// Files the gateway serves as they are, outside the API base (/openapi.json, /docs, /elements):
// each read once, when its middleware is made, and tagged with the SHA-256 of its bytes, so a
// client revalidates with If-None-Match and gets a 304 while nothing changed; sent in the coding
// Accept-Encoding prefers, compressed once at the first request accepting one and kept (swagger-ui's
// bundle is 1.4 MB, 0.4 MB in brotli): the gateway's answers' rules, its negotiation.
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { compress } from '../../snapshot/codings.ts';
import { Representation } from '../../snapshot/representation.ts';
import { acceptedCodings } from './accept-encoding.ts';
import { ifNoneMatchMatches } from './conditional.ts';
import { bodyFor } from './respond.ts';

export interface StaticFile {
  readonly representation: Representation;
  /** Sent with its 304s too, so a cache keeps following it. */
  readonly cacheControl: string;
}

/** `bytes` with the headers every answer of it carries: Cache-Control, Content-Type, then `extraHeaders`. */
export function staticFile(bytes: Buffer, cacheControl: string, contentType: string, extraHeaders: readonly string[] = []): StaticFile {
  const etag = createHash('sha256').update(bytes).digest('hex');
  const headers = ['Cache-Control', cacheControl, 'Content-Type', contentType, ...extraHeaders];
  return { representation: new Representation(bytes, etag, (coding) => compress(coding, bytes), undefined, headers), cacheControl };
}

/** Answers a GET or HEAD of one of `files`' paths; anything else goes on to the next handler. */
export function serveStaticFiles(files: ReadonlyMap<string, StaticFile>): RequestHandler {
  return function serveStaticFile(req, res, next) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const file = files.get(req.path);
    if (file === undefined) return next();
    const { representation, cacheControl } = file;
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, representation.etag)) {
      res.writeHead(304, ['ETag', representation.quotedEtag, 'Cache-Control', cacheControl]);
      res.end();
      return;
    }
    const send = (body: Pick<Representation, 'bytes' | 'headers'>) => {
      res.writeHead(200, body.headers as string[]);
      if (req.method === 'HEAD') res.end();
      else res.end(body.bytes);
    };
    let body: ReturnType<typeof bodyFor>;
    try {
      body = bodyFor(representation, acceptedCodings(req.headers['accept-encoding']));
    } catch (error) {
      return next(error);
    }
    if (body instanceof Promise) body.then(send, next);
    else send(body);
  };
}
