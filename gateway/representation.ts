// What a 200 carries: the exact body bytes and the entity tag that names them (STYLE.md §8).
import { sha256Hex } from '../snapshot/hash.ts';

export interface Representation {
  readonly bytes: Buffer;
  /** The opaque tag, unquoted. Strong: equal tag ⇔ equal bytes. */
  readonly etag: string;
  /** The ETag header value, built once rather than per response. */
  readonly quotedEtag: string;
}

function representation(bytes: Buffer, etag: string): Representation {
  return { bytes, etag, quotedEtag: `"${etag}"` };
}

/** A stored resource is served as stored: its content hash is its entity tag. */
export function storedRepresentation(bytes: Buffer, hash: string): Representation {
  return representation(bytes, hash);
}

/**
 * A clock-dependent response (DESIGN.md "Clock-dependent fields"): tagged by its source object's
 * hash plus the computed state that, with the source, determines every byte. Stable while the
 * state holds; changes exactly when it changes. The version prefix changes the tags if the
 * gateway ever renders the same state differently.
 */
export function computedRepresentation(body: string, sourceHash: string, state: string): Representation {
  return representation(Buffer.from(body, 'utf8'), sha256Hex(`computed-v1\n${sourceHash}\n${state}`));
}
