// The manifest (one per published change) and the pointer (mutable, swapped last).
import type { ContentObject } from './hash.ts';
import { contentObject } from './hash.ts';

export const SNAPSHOT_FORMAT = 1;

/**
 * An organization's state, as the platform stores it (organizations.status, docs/platform.md), as
 * its pointer records it, and as the gateway enforces it (403 unless active).
 */
export type OrganizationState = 'active' | 'suspended' | 'closed';
export const ORGANIZATION_STATES: readonly OrganizationState[] = ['active', 'suspended', 'closed'];
export type BuildTrigger = 'manual' | 'schedule' | 'change' | 'start';

export interface Manifest {
  format: typeof SNAPSHOT_FORMAT;
  organizationId: string;
  organizationSlug: string;
  snapshotId: string;
  previousSnapshotId: string | null;
  publishedAt: string;
  trigger: BuildTrigger;
  /** SHA-256 of canonical {resources, slugs}: equal content ⇒ equal contentHash. */
  contentHash: string;
  /** Resource path (below /api/integration/v1) → object hash. */
  resources: Record<string, string>;
  /** Event slug → event id, for `/events/{idOrSlug}`. */
  slugs: Record<string, string>;
  build: { builderVersion: string; durationMs: number };
}

export interface Pointer {
  format: typeof SNAPSHOT_FORMAT;
  organizationId: string;
  state: OrganizationState;
  /** null while the organization is suspended or closed: no content is published then. */
  snapshotId: string | null;
  manifestHash: string | null;
  publishedAt: string;
}

export function contentHashOf(resources: Record<string, string>, slugs: Record<string, string>): string {
  return contentObject({ resources, slugs }).hash;
}

export function serializeManifest(manifest: Manifest): ContentObject {
  return contentObject(manifest);
}

export function serializePointer(pointer: Pointer): ContentObject {
  return contentObject(pointer);
}
