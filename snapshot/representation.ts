// What a 200 carries: the exact JSON bytes, the entity tag that names them, and the same JSON in
// each content coding (snapshot/codings.ts), obtained once and kept with it. Shared: the gateway
// answers with it, and the builder's webhook messages name the tag the gateway will answer.
import { type Coding, compress, worthCoding } from './codings.ts';
import { sha256Hex } from './hash.ts';

/** One coding's bytes and the headers describing them on a 200, as writeHead takes them: built once. */
export interface CodedForm {
  readonly coding: Coding;
  readonly bytes: Buffer;
  readonly headers: readonly string[];
}

/**
 * How a representation's coded form is obtained the first time it is asked for: read from the
 * store where the builder stored it (undefined: there is none), or compressed once (a rendering).
 */
export type CodedSource = (coding: Coding) => Promise<Buffer | undefined>;

/** A coded form held, none (null), or one being obtained. */
type CodedSlot = CodedForm | null | Promise<CodedForm | null>;

export class Representation {
  /** The ETag header value, built once rather than per response. */
  readonly quotedEtag: string;
  /** The headers describing the JSON on a 200 (docs/api.md §8), as writeHead takes them: built once. */
  readonly headers: readonly string[];
  private br: CodedSlot | undefined;
  private gzip: CodedSlot | undefined;

  constructor(
    /** The JSON, exactly. */
    readonly bytes: Buffer,
    /**
     * The opaque tag, unquoted: names the JSON content, whichever coding carries it (docs/api-decisions.md).
     * Strong: equal tag ⇔ equal JSON bytes.
     */
    readonly etag: string,
    private readonly source: CodedSource,
    /** Told after a coded form is kept: a cache weighs the representation again. */
    private readonly onKept?: (representation: Representation) => void,
    /** What describes the body besides its tag, length and coding: the API's JSON unless said (the docs pages). */
    private readonly described: readonly string[] = JSON_HEADERS,
  ) {
    this.quotedEtag = `"${etag}"`;
    this.headers = [...this.describing(), 'Content-Length', String(bytes.length)];
  }

  /** Whether coded forms are offered by default: a short body goes as it is (MIN_CODED_BYTES). */
  get worthCoding(): boolean {
    return worthCoding(this.bytes.length);
  }

  /** The form in `coding` when it is known (null: there is none), undefined until it has been obtained. */
  held(coding: Coding): CodedForm | null | undefined {
    const slot = coding === 'br' ? this.br : this.gzip;
    return slot instanceof Promise ? undefined : slot;
  }

  /** The form in `coding`, obtained from its source the first time (one attempt at a time); null when there is none. */
  coded(coding: Coding): CodedForm | null | Promise<CodedForm | null> {
    const slot = coding === 'br' ? this.br : this.gzip;
    if (slot !== undefined) return slot;
    const obtaining = this.source(coding).then(
      (bytes) => {
        const form = this.keep(coding, bytes === undefined ? null : this.form(coding, bytes));
        this.onKept?.(this);
        return form;
      },
      (error: unknown) => {
        // Not kept: the next request tries the source again.
        this.keep(coding, undefined);
        throw error;
      },
    );
    this.keep(coding, obtaining);
    return obtaining;
  }

  /** Bytes held beside the JSON in coded forms, for the caches' weights. */
  get codedBytes(): number {
    let bytes = 0;
    for (const slot of [this.br, this.gzip]) if (slot !== undefined && slot !== null && !(slot instanceof Promise)) bytes += slot.bytes.length;
    return bytes;
  }

  private keep<S extends CodedSlot | undefined>(coding: Coding, slot: S): S {
    if (coding === 'br') this.br = slot;
    else this.gzip = slot;
    return slot;
  }

  private form(coding: Coding, bytes: Buffer): CodedForm {
    return { coding, bytes, headers: [...this.describing(), 'Content-Encoding', coding, 'Content-Length', String(bytes.length)] };
  }

  private describing(): string[] {
    return ['ETag', this.quotedEtag, ...this.described];
  }
}

/** docs/api.md §8 "Response freshness", docs/design.md "caching headers": on every 200 and 304. */
export const CACHE_CONTROL = 'private, max-age=60';
const JSON_HEADERS: readonly string[] = ['Cache-Control', CACHE_CONTROL, 'Content-Type', 'application/json; charset=utf-8'];

/** A stored resource is served as stored: its content hash is its entity tag; its coded forms are the builder's (`stored`). */
export function storedRepresentation(bytes: Buffer, hash: string, stored: CodedSource, onKept?: (representation: Representation) => void): Representation {
  return new Representation(bytes, hash, stored, onKept);
}

/**
 * A clock-dependent response (docs/design.md "Clock-dependent fields"): tagged by its source object's
 * hash plus the computed state that, with the source, determines every byte. Stable while the
 * state holds; changes exactly when it changes. The version prefix changes the tags if the
 * gateway ever renders the same state differently. Its coded forms are compressed once, when first
 * asked for, and kept with it for as long as the rendering is.
 */
export function computedRepresentation(body: string | Buffer, sourceHash: string, state: string, onKept?: (representation: Representation) => void): Representation {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return new Representation(bytes, computedTag(sourceHash, state), (coding) => compress(coding, bytes), onKept);
}

/** Heap bytes a representation holds beyond its object (its JSON and coded forms), for the caches' weights. */
export const heldBytes = (representation: Representation): number => representation.bytes.length + representation.codedBytes;

/** The tag of a clock-dependent response, unquoted; for who needs it without the body (webhook messages). */
export function computedTag(sourceHash: string, state: string): string {
  return sha256Hex(`computed-v1\n${sourceHash}\n${state}`);
}
