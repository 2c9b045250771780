// What the API serves for one organization, read from its current snapshot only: the key's
// organization decides which manifest is consulted, so no input can reach another organization.
// Synchronous while the pointer, manifest and objects are in memory (runtime/awaitable.ts).
import { type ClockDependentKind, type EventResourceKind, resourcePath } from '../snapshot/resource-catalog.ts';
import { after, type Awaitable } from '../runtime/awaitable.ts';
import { ApiError, eventNotFound, notFound, organizationSuspended } from './errors.ts';
import { resolveEventId } from './events/resolve.ts';
import type { EventsQuery } from '../snapshot/clock-rendering/events-query.ts';
import type { EventViews } from './events/views.ts';
import type { Representation } from '../snapshot/representation.ts';
import type { CurrentSnapshots } from './snapshot-cache/current-snapshots.ts';
import type { ManifestView } from './snapshot-cache/manifest-view.ts';
import type { ObjectCache } from './snapshot-cache/object-cache.ts';

/** An event's resources served byte for byte as the builder stored them. */
type EventPartKind = Exclude<EventResourceKind, ClockDependentKind>;

/**
 * A valid key of an organization that has never published (no pointer, or a pointer naming no
 * snapshot). Not 401 (the key is fine) nor 403 (nothing is suspended): there is simply nothing
 * at this path yet, and the organization's first build makes it appear.
 */
const nothingPublished = () => new ApiError(404, 'NOT_FOUND', 'Not found', 'Nothing has been published for this organization yet.');

export class OrganizationResources {
  constructor(
    /** The current snapshots, or one fixed historical snapshot (gateway/as-of.ts). */
    private readonly snapshots: Pick<CurrentSnapshots, 'get'>,
    private readonly objects: ObjectCache,
    private readonly views: EventViews,
  ) {}

  /** `path`: the manifest path (resourcePath) of one of the organization's resources served byte for byte as stored. */
  stored(orgId: string, path: string): Awaitable<Representation> {
    return after(this.manifest(orgId), (manifest) => {
      const hash = manifest.resources.get(path);
      if (hash === undefined) throw notFound();
      return this.objects.representation(orgId, hash);
    });
  }

  eventList(orgId: string, query: EventsQuery, now: number): Awaitable<Representation> {
    return after(this.manifest(orgId), (manifest) => {
      const hash = manifest.resources.get(resourcePath.eventIndex);
      if (hash === undefined) throw notFound();
      return this.views.page(orgId, hash, now, query);
    });
  }

  event(orgId: string, idOrSlug: string, now: number): Awaitable<Representation> {
    return after(this.manifest(orgId), (manifest) => {
      const hash = manifest.resources.get(resourcePath.event(this.eventId(manifest, idOrSlug)))!;
      return this.views.detail(orgId, hash, now);
    });
  }

  eventPart(orgId: string, idOrSlug: string, kind: EventPartKind): Awaitable<Representation> {
    return after(this.manifest(orgId), (manifest) => {
      const path = resourcePath[kind](this.eventId(manifest, idOrSlug));
      const hash = manifest.resources.get(path);
      // The builder publishes every part of every event it publishes; a gap is a broken snapshot.
      if (hash === undefined) throw new Error(`manifest ${manifest.snapshotId} of organization ${orgId} lacks ${path} (asked as ${idOrSlug})`);
      return this.objects.representation(orgId, hash);
    });
  }

  /** Organization state checked again here: the pointer may have changed since authentication. */
  private manifest(orgId: string): Awaitable<ManifestView> {
    return after(this.snapshots.get(orgId), (snapshot) => {
      if (!snapshot) throw nothingPublished();
      if (snapshot.state !== 'active') throw organizationSuspended();
      if (!snapshot.manifest) throw nothingPublished();
      return snapshot.manifest;
    });
  }

  private eventId(manifest: ManifestView, idOrSlug: string): string {
    const id = resolveEventId(manifest, idOrSlug);
    if (id === undefined) throw eventNotFound();
    return id;
  }
}
