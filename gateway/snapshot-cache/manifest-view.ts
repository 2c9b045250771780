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
