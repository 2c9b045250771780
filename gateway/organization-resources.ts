// What the API serves for one organization, read from its current snapshot only: the key's
// organization decides which manifest is consulted, so no input can reach another organization.
// Synchronous while the pointer, manifest and objects are in memory (runtime/awaitable.ts).
import { type ClockDependentKind, type EventResourceKind, resourcePath } from '../snapshot/resource-catalog.ts';
import { after, type Awaitable } from '../runtime/awaitable.ts';
import { ApiError, eventNotFound, notFound, organizationSuspended, sinceExpired, snapshotNotCurrent } from './errors.ts';
import type { ChangeAnswers } from './changes.ts';
import { resolveEventId } from './events/resolve.ts';
import type { EventsQuery } from '../snapshot/clock-rendering/events-query.ts';
import type { EventViews } from './events/views.ts';
import type { Representation } from '../snapshot/representation.ts';
import type { CurrentSnapshots } from './snapshot-cache/current-snapshots.ts';
import type { ManifestView } from './snapshot-cache/manifest-view.ts';
import type { ObjectCache } from './snapshot-cache/object-cache.ts';
import type { PinnedSnapshots } from './snapshot-cache/pinned-snapshots.ts';
import type { RetainedSnapshots } from './snapshot-cache/retained-snapshots.ts';
import { instantOfName } from '../snapshot/layout.ts';

/** An event's resources served byte for byte as the builder stored them. */
type EventPartKind = Exclude<EventResourceKind, ClockDependentKind>;

/**
 * A valid key of an organization that has never published (no pointer, or a pointer naming no
 * snapshot). Not 401 (the key is fine) nor 403 (nothing is suspended): there is simply nothing
 * at this path yet, and the organization's first build makes it appear.
 */
const nothingPublished = () => new ApiError(404, 'NOT_FOUND', 'Not found', 'Nothing has been published for this organization yet.');

/** One request's reading of its organization's data; `snapshotId` is filled in by the reading. */
export interface Reading {
  readonly organizationId: string;
  /** The snapshot the request pins (Marquee-Snapshot-Id), when it names one. */
  readonly pin: string | undefined;
  /** Milliseconds since the epoch: decides timing, registration and a pin's window. */
  readonly now: number;
  /** The snapshot whose manifest decided the answer (a 200, a 304, or a 404 EVENT_NOT_FOUND): Marquee-Snapshot-Id. */
  snapshotId: string | undefined;
}

/** How far ahead of this gateway's clock a builder's may be: a pin dated later names no snapshot yet. */
const CLOCK_SKEW_MS = 5_000;

export class OrganizationResources {
  constructor(
    /** The current snapshots, or one fixed historical snapshot (gateway/as-of.ts), which has no newer one to read. */
    private readonly snapshots: Pick<CurrentSnapshots, 'get'> & Partial<Pick<CurrentSnapshots, 'reread'>>,
    private readonly objects: ObjectCache,
    private readonly views: EventViews,
    /** Snapshots a request may pin, and earlier manifests by id (GET /changes). */
    private readonly pinned: PinnedSnapshots,
    private readonly changeAnswers: ChangeAnswers,
    /** Which earlier snapshots the store still keeps (GET /changes?since=). */
    private readonly retained: RetainedSnapshots,
  ) {}

  /** `path`: the manifest path (resourcePath) of one of the organization's resources served byte for byte as stored. */
  stored(reading: Reading, path: string): Awaitable<Representation> {
    return after(this.manifest(reading), (manifest) => {
      const hash = manifest.resources.get(path);
      if (hash === undefined) throw notFound();
      return this.objects.representation(reading.organizationId, hash);
    });
  }

  eventList(reading: Reading, query: EventsQuery): Awaitable<Representation> {
    return after(this.manifest(reading), (manifest) => {
      const hash = manifest.resources.get(resourcePath.eventIndex);
      if (hash === undefined) throw notFound();
      return this.views.page(reading.organizationId, hash, reading.now, query);
    });
  }

  event(reading: Reading, idOrSlug: string): Awaitable<Representation> {
    return after(this.manifest(reading), (manifest) => {
      const hash = manifest.resources.get(resourcePath.event(this.eventId(manifest, idOrSlug)))!;
      return this.views.detail(reading.organizationId, hash, reading.now);
    });
  }

  eventPart(reading: Reading, idOrSlug: string, kind: EventPartKind): Awaitable<Representation> {
    return after(this.manifest(reading), (manifest) => {
      const path = resourcePath[kind](this.eventId(manifest, idOrSlug));
      const hash = manifest.resources.get(path);
      // The builder publishes every part of every event it publishes; a gap is a broken snapshot.
      if (hash === undefined) throw new Error(`manifest ${manifest.snapshotId} of organization ${reading.organizationId} lacks ${path} (asked as ${idOrSlug})`);
      return this.objects.representation(reading.organizationId, hash);
    });
  }

  /** GET /changes: what changed since the snapshot `since` (undefined: every path), as of the snapshot the request reads. */
  changes(reading: Reading, since: string | undefined): Awaitable<Representation> {
    return after(this.manifest(reading), (manifest) => {
      const earlier = since === undefined ? null : since === manifest.snapshotId ? manifest : this.keptManifest(reading.organizationId, since);
      return after(earlier, (compared) => {
        if (compared === undefined) throw sinceExpired(manifest.snapshotId);
        const indexHash = manifest.resources.get(resourcePath.eventIndex);
        if (indexHash === undefined) return this.changeAnswers.answer(manifest, compared, undefined, reading.now);
        return this.views.withIndex(reading.organizationId, indexHash, (index) => this.changeAnswers.answer(manifest, compared, index, reading.now));
      });
    });
  }

  /**
   * The snapshot `since` names, if the store still keeps it (undefined: 410): whether this gateway
   * still holds its manifest decides nothing, so every gateway answers alike (retained-snapshots.ts).
   */
  private keptManifest(orgId: string, since: string): Awaitable<ManifestView | undefined> {
    return after(this.retained.isKept(orgId, since), (kept) => (kept ? this.pinned.manifestOf(orgId, since) : undefined));
  }

  /**
   * The manifest the answer comes from: the current one, or the pinned one while it may be read.
   * Organization state checked again here, always the current one: the pointer may have changed
   * since authentication, and a pin never reads past a suspension.
   */
  private manifest(reading: Reading): Awaitable<ManifestView> {
    return after(this.snapshots.get(reading.organizationId), (snapshot) => {
      if (!snapshot) throw nothingPublished();
      if (snapshot.state !== 'active') throw organizationSuspended();
      const current = snapshot.manifest;
      if (!current) throw nothingPublished();
      const pin = reading.pin;
      if (pin === undefined || pin === current.snapshotId) {
        reading.snapshotId = current.snapshotId;
        return current;
      }
      return after(this.pinned.resolve(reading.organizationId, current, pin, reading.now), (manifest) => {
        if (manifest !== undefined) return this.answeredFrom(reading, manifest);
        if (!this.mayBeNewer(pin, current, reading.now)) throw snapshotNotCurrent(current.snapshotId);
        return this.fromReread(reading, pin);
      });
    });
  }

  private answeredFrom(reading: Reading, manifest: ManifestView): ManifestView {
    reading.snapshotId = manifest.snapshotId;
    return manifest;
  }

  /**
   * A pin newer than the snapshot held, and not from the future: another gateway may have served
   * it first, while this one's pointer is still less than a second old. Ids sort as their instants.
   */
  private mayBeNewer(pin: string, current: ManifestView, now: number): boolean {
    if (this.snapshots.reread === undefined || pin <= current.snapshotId) return false;
    const at = instantOfName(pin);
    return at !== undefined && at.getTime() <= now + CLOCK_SKEW_MS;
  }

  /** The pin resolved against the pointer read again: the organization's state is judged anew too. */
  private async fromReread(reading: Reading, pin: string): Promise<ManifestView> {
    const snapshot = await this.snapshots.reread!(reading.organizationId);
    if (!snapshot) throw nothingPublished();
    if (snapshot.state !== 'active') throw organizationSuspended();
    const current = snapshot.manifest;
    if (!current) throw nothingPublished();
    const manifest = await this.pinned.resolve(reading.organizationId, current, pin, reading.now);
    if (manifest === undefined) throw snapshotNotCurrent(current.snapshotId);
    return this.answeredFrom(reading, manifest);
  }

  private eventId(manifest: ManifestView, idOrSlug: string): string {
    const id = resolveEventId(manifest, idOrSlug);
    if (id === undefined) throw eventNotFound();
    return id;
  }
}
