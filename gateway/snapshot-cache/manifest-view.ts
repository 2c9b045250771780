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
  /** The snapshot this one replaced, and its manifest's hash when the chain names it: how far back a pin may read (pinned-snapshots.ts). */
  readonly previousSnapshotId: string | null;
  readonly previousHash: string | null;
  /** Milliseconds since the epoch: when this snapshot became current, so when the one before stopped being current. */
  readonly publishedAt: number;
}

export function manifestView(manifest: Manifest, hash: string): ManifestView {
  return {
    snapshotId: manifest.snapshotId,
    hash,
    resources: new Map(Object.entries(manifest.resources)),
    slugs: new Map(Object.entries(manifest.slugs)),
    previousSnapshotId: manifest.previousSnapshotId,
    previousHash: manifest.previous ?? null,
    publishedAt: Date.parse(manifest.publishedAt),
  };
}

/**
 * A view's heap bytes, estimated: each resource and slug costs its two strings' characters (one
 * byte each: paths, ids, slugs and hashes are ASCII) plus a fixed share for the two string headers
 * and the Map's slot. Measured with bench/cache-weights.ts; see the constants.
 */
export function weighManifestView(view: ManifestView): number {
  let bytes = VIEW_BYTES + view.snapshotId.length + view.hash.length + (view.previousSnapshotId?.length ?? 0) + (view.previousHash?.length ?? 0);
  for (const [path, hash] of view.resources) bytes += MAPPED_PAIR_BYTES + path.length + hash.length;
  for (const [slug, id] of view.slugs) bytes += MAPPED_PAIR_BYTES + slug.length + id.length;
  return bytes;
}

const VIEW_BYTES = 400;
const MAPPED_PAIR_BYTES = 50;
