// Serialize stage: each resource to canonical bytes and its SHA-256 (the object name and ETag).
import { memoizedCanonicalJson } from '../snapshot/canonical.ts';
import { sha256Hex } from '../snapshot/hash.ts';

export interface SerializedResource {
  path: string;
  bytes: Buffer;
  hash: string;
}

/** One organization's resources; values shared between resources are serialized once. */
export function serializeResources(resources: ReadonlyArray<{ path: string; value: unknown }>): SerializedResource[] {
  const canonical = memoizedCanonicalJson();
  return resources.map(({ path, value }) => {
    const bytes = Buffer.from(canonical(value), 'utf8');
    return { path, bytes, hash: sha256Hex(bytes) };
  });
}
