// Content hashing: the SHA-256 of an object's canonical bytes is its name and its ETag.
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical.ts';

export function sha256Hex(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A resource serialized once: the exact bytes that are stored and served, and their hash. */
export interface ContentObject {
  readonly bytes: Buffer;
  readonly hash: string;
}

export function contentObject(value: unknown): ContentObject {
  const bytes = Buffer.from(canonicalJson(value), 'utf8');
  return { bytes, hash: sha256Hex(bytes) };
}
