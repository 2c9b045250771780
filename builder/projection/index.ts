// Projection: one organization's platform rows → the API resources of its snapshot (docs/design.md
// "Data flow" step 2). Pure: no I/O, no clock, and no dependence on row order or locale, so the
// same data always gives the same bytes and hashes. The reader already filters what must never
// be published (docs/design.md step 1); every filter is applied again here as a second line.
import type { OrganizationData } from '../platform/rows.ts';
import {
  EVENT_RESOURCE_KINDS,
  ORGANIZATION_RESOURCE_KINDS,
  resourcePath,
  type EventResourceKind,
  type OrganizationResourceKind,
  type ResourceKind,
} from '../../snapshot/resource-catalog.ts';
import type { Organization, Speaker, Sponsor, StoredEventDetail, StoredEventSummary, TeamMember } from '../../snapshot/schema-types.ts';
import { inIndexOrder, isPublished, projectEvent } from './events.ts';
import { projectOrganizationProfile } from './organization.ts';
import { projectTeam, speakerList } from './people.ts';
import { relate } from './relations.ts';
import { sponsorPool } from './sponsors.ts';

export interface ProjectionOptions {
  /** PLATFORM_PUBLIC_URL, e.g. https://events.example.com (a trailing slash is tolerated). */
  publicBaseUrl: string;
}

export interface OrganizationProjection {
  organization: Organization;
  team: TeamMember[];
  speakers: Speaker[];
  sponsors: Sponsor[];
  /** Every published event, start ascending, ties by name then id. */
  eventIndex: StoredEventSummary[];
  /** The same events in full, in the same order as eventIndex. */
  events: StoredEventDetail[];
  /** Event slug → event id, for `/events/{idOrSlug}`. */
  slugs: Record<string, string>;
}

/** Throws a BuildError of the `project` stage (builder/errors.ts, naming the event) when an event's zone or times are invalid. */
export function projectOrganization(data: OrganizationData, options: ProjectionOptions): OrganizationProjection {
  const relations = relate(data);
  const setting = {
    organizationId: data.organization.id,
    organizationSlug: data.organization.slug,
    publicBaseUrl: options.publicBaseUrl,
    relations,
  };
  const events = inIndexOrder(data.events.filter(isPublished).map((row) => projectEvent(row, setting)));
  return {
    organization: projectOrganizationProfile(data.organization, options.publicBaseUrl),
    team: projectTeam(data.teamMembers),
    speakers: speakerList(relations.announcedSpeakers.values()),
    sponsors: sponsorPool(data.sponsors),
    eventIndex: events.map((event) => event.summary),
    events: events.map((event) => event.detail),
    slugs: slugIndex(events.map((event) => event.detail)),
  };
}

/**
 * Slugs are unique per organization (docs/platform.md); should a view ever break that, the first
 * event in index order keeps the slug, so the mapping is still the same on every build.
 * Object.fromEntries defines own properties, so even a slug like `__proto__` is just a key.
 */
function slugIndex(events: readonly StoredEventDetail[]): Record<string, string> {
  const slugs = new Map<string, string>();
  for (const event of events) if (!slugs.has(event.slug)) slugs.set(event.slug, event.id);
  return Object.fromEntries(slugs);
}

export interface ProjectedResource {
  /** The API path below /api/integration/v1 (snapshot/resource-catalog.ts resourcePath). */
  path: string;
  kind: ResourceKind;
  value: unknown;
}

/** What each kind of the resource catalog publishes: the organization's resources… */
const ORGANIZATION_VALUES: { readonly [K in OrganizationResourceKind]: (projection: OrganizationProjection) => unknown } = {
  organization: (projection) => projection.organization,
  team: (projection) => projection.team,
  speakers: (projection) => projection.speakers,
  sponsors: (projection) => projection.sponsors,
  eventIndex: (projection) => projection.eventIndex,
};

/** …and each event's: the three sub-resources equal the detail's arrays. */
const EVENT_VALUES: { readonly [K in EventResourceKind]: (event: StoredEventDetail) => unknown } = {
  event: (event) => event,
  eventSessions: (event) => event.sessions,
  eventSpeakers: (event) => event.speakers,
  eventSponsors: (event) => event.sponsors,
};

/**
 * Every resource to publish, in a deterministic order, the catalog's: the organization's
 * (/organization, /team, /speakers, /sponsors, /events), then per event its own (/events/{id},
 * /events/{id}/sessions, /events/{id}/speakers, /events/{id}/sponsors).
 */
export function resourcesOf(projection: OrganizationProjection): ProjectedResource[] {
  const resources: ProjectedResource[] = ORGANIZATION_RESOURCE_KINDS.map((kind) => ({ path: resourcePath[kind], kind, value: ORGANIZATION_VALUES[kind](projection) }));
  for (const event of projection.events) {
    for (const kind of EVENT_RESOURCE_KINDS) resources.push({ path: resourcePath[kind](event.id), kind, value: EVENT_VALUES[kind](event) });
  }
  return resources;
}
