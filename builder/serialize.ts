// Serialize stage: each resource to canonical bytes, members in its schema's order, and its
// SHA-256 (the object name and ETag).
import { memoizedCanonicalJson } from '../snapshot/canonical.ts';
import { sha256Hex } from '../snapshot/hash.ts';
import { KeyOrder, keyOrderOf } from '../snapshot/key-order.ts';
import { RESOURCE_CATALOG, type ResourceKind } from '../snapshot/resource-catalog.ts';

export interface SerializedResource {
  path: string;
  bytes: Buffer;
  hash: string;
}

/**
 * One organization's resources; values shared between resources are serialized once. A resource
 * without a kind has no schema to order it (tests' stand-in values): RFC 8785 order.
 */
export function serializeResources(resources: ReadonlyArray<{ path: string; kind?: ResourceKind; value: unknown }>): SerializedResource[] {
  const canonical = memoizedCanonicalJson();
  return resources.map(({ path, kind, value }) => {
    const order = kind === undefined ? KeyOrder.SORTED : keyOrderOf(RESOURCE_CATALOG[kind].storedSchema);
    const bytes = Buffer.from(canonical(value, order), 'utf8');
    return { path, bytes, hash: sha256Hex(bytes) };
  });
}
