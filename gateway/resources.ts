// What the API serves for one organization, read from its current snapshot only: the key's
// organization decides which manifest is consulted, so no input can reach another organization.
import { resourcePath } from '../snapshot/layout.ts';
import { ApiError, eventNotFound, notFound, organizationSuspended } from './errors.ts';
import { resolveEventId } from './events/resolve.ts';
import type { EventsQuery } from './events/query.ts';
import type { EventViews } from './events/views.ts';
import { storedRepresentation, type Representation } from './representation.ts';
import type { CurrentSnapshots } from './snapshots/current-snapshots.ts';
import type { ManifestView } from './snapshots/manifest-view.ts';
import type { ObjectCache } from './snapshots/object-cache.ts';

/** Resources served byte for byte as the builder stored them. */
export type StoredPath = '/organization' | '/team' | '/speakers' | '/sponsors';
export type EventPart = 'sessions' | 'speakers' | 'sponsors';

const PART_PATH: Record<EventPart, (eventId: string) => string> = {
  sessions: resourcePath.eventSessions,
  speakers: resourcePath.eventSpeakers,
  sponsors: resourcePath.eventSponsors,
};

/**
 * A valid key of an organization that has never published (no pointer, or a pointer naming no
 * snapshot). Not 401 (the key is fine) nor 403 (nothing is suspended): there is simply nothing
 * at this path yet, and the organization's first build makes it appear.
 */
const nothingPublished = () =>
  new ApiError(404, 'NOT_FOUND', 'Not found', 'Nothing has been published for this organization yet.');

export class OrganizationResources {
  constructor(
    private readonly snapshots: CurrentSnapshots,
    private readonly objects: ObjectCache,
    private readonly views: EventViews,
  ) {}

  async stored(orgId: string, path: StoredPath): Promise<Representation> {
    const hash = (await this.manifest(orgId)).resources.get(path);
    if (hash === undefined) throw notFound();
    return storedRepresentation(await this.objects.bytes(orgId, hash), hash);
  }

  async eventList(orgId: string, query: EventsQuery, now: number): Promise<Representation> {
    const hash = (await this.manifest(orgId)).resources.get(resourcePath.eventIndex);
    if (hash === undefined) throw notFound();
    return (await this.views.index(orgId, hash)).page(now, query);
  }

  async event(orgId: string, idOrSlug: string, now: number): Promise<Representation> {
    const manifest = await this.manifest(orgId);
    const hash = manifest.resources.get(resourcePath.event(this.eventId(manifest, idOrSlug)))!;
    return (await this.views.detail(orgId, hash)).at(now);
  }

  async eventPart(orgId: string, idOrSlug: string, part: EventPart): Promise<Representation> {
    const manifest = await this.manifest(orgId);
    const hash = manifest.resources.get(PART_PATH[part](this.eventId(manifest, idOrSlug)));
    // The builder publishes every part of every event it publishes; a gap is a broken snapshot.
    if (hash === undefined) throw new Error(`manifest ${manifest.snapshotId} of organization ${orgId} lacks the ${part} of ${idOrSlug}`);
    return storedRepresentation(await this.objects.bytes(orgId, hash), hash);
  }

  /** Organization state checked again here: the pointer may have changed since authentication. */
  private async manifest(orgId: string): Promise<ManifestView> {
    const snapshot = await this.snapshots.get(orgId);
    if (!snapshot) throw nothingPublished();
    if (snapshot.state !== 'active') throw organizationSuspended();
    if (!snapshot.manifest) throw nothingPublished();
    return snapshot.manifest;
  }

  private eventId(manifest: ManifestView, idOrSlug: string): string {
    const id = resolveEventId(manifest, idOrSlug);
    if (id === undefined) throw eventNotFound();
    return id;
  }
}
