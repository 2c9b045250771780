// What a 200 carries: the exact body bytes and the entity tag that names them. Shared: the gateway
// answers with it, and the builder's webhook messages name the tag the gateway will answer.
import { sha256Hex } from './hash.ts';

export interface Representation {
  readonly bytes: Buffer;
  /** The opaque tag, unquoted. Strong: equal tag ⇔ equal bytes. */
  readonly etag: string;
  /** The ETag header value, built once rather than per response. */
  readonly quotedEtag: string;
  /** The headers describing it on a 200 (docs/api.md §8), as writeHead takes them: built once. */
  readonly headers: readonly string[];
}

/** docs/api.md §8 "Response freshness", docs/design.md "caching headers": on every 200 and 304. */
export const CACHE_CONTROL = 'private, max-age=60';
const JSON_TYPE = 'application/json; charset=utf-8';

function representation(bytes: Buffer, etag: string): Representation {
  const quotedEtag = `"${etag}"`;
  const headers = ['ETag', quotedEtag, 'Cache-Control', CACHE_CONTROL, 'Content-Type', JSON_TYPE, 'Content-Length', String(bytes.length)];
  return { bytes, etag, quotedEtag, headers };
}

/** A stored resource is served as stored: its content hash is its entity tag. */
export function storedRepresentation(bytes: Buffer, hash: string): Representation {
  return representation(bytes, hash);
}

/**
 * A clock-dependent response (docs/design.md "Clock-dependent fields"): tagged by its source object's
 * hash plus the computed state that, with the source, determines every byte. Stable while the
 * state holds; changes exactly when it changes. The version prefix changes the tags if the
 * gateway ever renders the same state differently.
 */
export function computedRepresentation(body: string | Buffer, sourceHash: string, state: string): Representation {
  return representation(typeof body === 'string' ? Buffer.from(body, 'utf8') : body, computedTag(sourceHash, state));
}

/** The tag of a clock-dependent response, unquoted; for who needs it without the body (webhook messages). */
export function computedTag(sourceHash: string, state: string): string {
  return sha256Hex(`computed-v1\n${sourceHash}\n${state}`);
}
