// Serialize stage: each resource to canonical bytes and its SHA-256 (the object name and ETag).
import { contentObject } from '../snapshot/hash.ts';

export interface SerializedResource {
  path: string;
  bytes: Buffer;
  hash: string;
}

export function serializeResources(resources: ReadonlyArray<{ path: string; value: unknown }>): SerializedResource[] {
  return resources.map(({ path, value }) => ({ path, ...contentObject(value) }));
}
