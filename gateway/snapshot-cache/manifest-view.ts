// A manifest as the gateway looks things up in it: Maps, so that request input such as a slug
// named "__proto__" or "constructor" can never hit an inherited property.
import type { Manifest } from '../../snapshot/manifest.ts';

export interface ManifestView {
  readonly snapshotId: string;
  /** The manifest's own hash, as named by the pointer. */
  readonly hash: string;
  /** Resource path (below /api/integration/v1) → object hash. */
  readonly resources: ReadonlyMap<string, string>;
  /** Event slug → event id. */
  readonly slugs: ReadonlyMap<string, string>;
}

export function manifestView(manifest: Manifest, hash: string): ManifestView {
  return {
    snapshotId: manifest.snapshotId,
    hash,
    resources: new Map(Object.entries(manifest.resources)),
    slugs: new Map(Object.entries(manifest.slugs)),
  };
}

/**
 * A view's heap bytes, estimated: each resource and slug costs its two strings' characters (one
 * byte each: paths, ids, slugs and hashes are ASCII) plus a fixed share for the two string headers
 * and the Map's slot. Measured with bench/cache-weights.ts; see the constants.
 */
export function weighManifestView(view: ManifestView): number {
  let bytes = VIEW_BYTES + view.snapshotId.length + view.hash.length;
  for (const [path, hash] of view.resources) bytes += MAPPED_PAIR_BYTES + path.length + hash.length;
  for (const [slug, id] of view.slugs) bytes += MAPPED_PAIR_BYTES + slug.length + id.length;
  return bytes;
}

const VIEW_BYTES = 400;
const MAPPED_PAIR_BYTES = 50;
