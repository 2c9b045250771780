// Where things live in the snapshot store (docs/design.md "Store layout"), and the resource paths
// a manifest maps to object hashes. Resource paths are the API paths below /api/integration/v1.

export const pointerKey = (orgId: string): string => `orgs/${orgId}/current.json`;
/** The pointer is the one key whose object is ever replaced; everything else is written once. */
export const isPointerKey = (key: string): boolean => /^orgs\/[^/]+\/current\.json$/.test(key);
export const manifestKey = (orgId: string, snapshotId: string): string => `orgs/${orgId}/snapshots/${snapshotId}.json`;
export const manifestPrefix = (orgId: string): string => `orgs/${orgId}/snapshots/`;
export const objectKey = (orgId: string, hash: string): string => `orgs/${orgId}/objects/${hash}.json`;
export const objectPrefix = (orgId: string): string => `orgs/${orgId}/objects/`;
export const ORGS_PREFIX = 'orgs/';

export const resourcePath = {
  organization: '/organization',
  team: '/team',
  speakers: '/speakers',
  sponsors: '/sponsors',
  eventIndex: '/events',
  event: (eventId: string) => `/events/${eventId}`,
  eventSessions: (eventId: string) => `/events/${eventId}/sessions`,
  eventSpeakers: (eventId: string) => `/events/${eventId}/speakers`,
  eventSponsors: (eventId: string) => `/events/${eventId}/sponsors`,
} as const;

/** The kind of resource a manifest path holds; decides its schema. */
export type ResourceKind = 'organization' | 'team' | 'speakers' | 'sponsors' | 'eventIndex' | 'event' | 'eventSessions' | 'eventSpeakers' | 'eventSponsors';

/**
 * Snapshot ids sort by time: UTC basic format with milliseconds, then the first 12 hex digits of
 * the content hash so that two builds in the same millisecond cannot collide.
 */
export function newSnapshotId(at: Date, contentHash: string): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace('.', '');
  return `${stamp}-${contentHash.slice(0, 12)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (text: string): boolean => UUID.test(text);
