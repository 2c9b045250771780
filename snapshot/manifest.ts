// The manifest (one per published change) and the pointer (mutable, swapped last).
import type { ContentObject } from './hash.ts';
import { contentObject } from './hash.ts';
import type { Manifest, Pointer } from './schema-types.ts';

export const SNAPSHOT_FORMAT = 1;

/**
 * An organization's state, as the platform stores it (organizations.status, docs/platform.md), as
 * its pointer records it, and as the gateway enforces it (403 unless active).
 */
export type OrganizationState = Pointer['state'];
export const ORGANIZATION_STATES: readonly OrganizationState[] = ['active', 'suspended', 'closed'];
export type BuildTrigger = Manifest['trigger'];

// Their shapes are the schemas' (schemas/manifest.schema.json, pointer.schema.json).
export type { Manifest, Pointer };

export function contentHashOf(resources: Record<string, string>, slugs: Record<string, string>): string {
  return contentObject({ resources, slugs }).hash;
}

export function serializeManifest(manifest: Manifest): ContentObject {
  return contentObject(manifest);
}

export function serializePointer(pointer: Pointer): ContentObject {
  return contentObject(pointer);
}
