// What a resource of the integration API is, written once (docs/api.md §4, docs/design.md "Layout"):
// its kind, its operation's name, its path below the API base, the schema its stored object
// satisfies and the one its 200 body satisfies, and whether the clock changes what it answers.
// The gateway's route table, the manifest paths the projection publishes under, the validation
// and serialization schemas, the webhook messages and the audit all read it, so adding a resource
// is its schema, its projection, one entry here and its docs.
import { SNAPSHOT_ID_FORM } from './layout.ts';
import type { SchemaName } from './schema-catalog.ts';

/** Every API path begins here; the catalog's patterns and the manifests' paths are below it. */
export const API_BASE = '/api/integration/v1';

/**
 * One path segment in a pattern: an event's id or slug in a request, its id in a manifest (an
 * event's resources are stored under its id only; slugs resolve through the manifest's map).
 */
const EVENT_PARAMETER = '{idOrSlug}';

interface CatalogEntry {
  /** The route's name and OpenAPI operationId. */
  readonly operationId: string;
  /** Below API_BASE; EVENT_PARAMETER marks a resource of one event. */
  readonly pattern: string;
  /** The schema the stored object satisfies (validated and ordered by it at build). */
  readonly storedSchema: SchemaName;
  /** The schema a 200's body satisfies. */
  readonly apiSchema: SchemaName;
  /**
   * The gateway computes the answer from the stored object and the instant of the request
   * (docs/design.md "Clock-dependent fields"), so its ETag is not the stored hash.
   */
  readonly clockDependent: boolean;
}

/** In the order the projection publishes and the API lists them: the organization's, then one event's. */
export const RESOURCE_CATALOG = {
  organization: { operationId: 'getOrganization', pattern: '/organization', storedSchema: 'organization', apiSchema: 'organization', clockDependent: false },
  team: { operationId: 'listTeamMembers', pattern: '/team', storedSchema: 'team', apiSchema: 'team', clockDependent: false },
  speakers: { operationId: 'listSpeakers', pattern: '/speakers', storedSchema: 'speaker-list', apiSchema: 'speaker-list', clockDependent: false },
  sponsors: { operationId: 'listSponsors', pattern: '/sponsors', storedSchema: 'sponsor-list', apiSchema: 'sponsor-list', clockDependent: false },
  eventIndex: { operationId: 'listEvents', pattern: '/events', storedSchema: 'event-index', apiSchema: 'paged-event-summaries', clockDependent: true },
  event: { operationId: 'getEvent', pattern: '/events/{idOrSlug}', storedSchema: 'stored-event-detail', apiSchema: 'event-detail', clockDependent: true },
  eventSessions: { operationId: 'listEventSessions', pattern: '/events/{idOrSlug}/sessions', storedSchema: 'session-list', apiSchema: 'session-list', clockDependent: false },
  eventSpeakers: { operationId: 'listEventSpeakers', pattern: '/events/{idOrSlug}/speakers', storedSchema: 'speaker-list', apiSchema: 'speaker-list', clockDependent: false },
  eventSponsors: { operationId: 'listEventSponsors', pattern: '/events/{idOrSlug}/sponsors', storedSchema: 'sponsor-list', apiSchema: 'sponsor-list', clockDependent: false },
} as const satisfies Record<string, CatalogEntry>;

/**
 * The public queries (docs/api.md §4.1, §10), each declared once as the JSON Schema of the query
 * once parsed: its members, with their defaults filled in. The gateway's parser is compiled from it
 * (gateway/events/query.ts), snapshot/schema-types.ts types it (npm run schema:types), the OpenAPI
 * parameters are written from it, docs/api.md §4.1 is checked against it, and the page cache keys
 * by its members (snapshot/clock-rendering/index-view.ts). A parameter it does not name is ignored.
 * A member's `description` is its OpenAPI text; `title` is its rule in words where the schema
 * keywords do not make one (a 400's detail: "<name> must be <rule>.").
 */
export const QUERY_SCHEMAS = {
  /** GET /events (the eventIndex entry). */
  EventsQuery: {
    description: 'Which page of the events list is asked for (docs/api.md §4.1).',
    type: 'object',
    additionalProperties: false,
    required: ['timing', 'page', 'pageSize'],
    properties: {
      timing: {
        description: '`upcoming`: not yet started. `ongoing`: running now. `past`: ended, newest first. `all`: every published event.',
        type: 'string',
        enum: ['upcoming', 'ongoing', 'past', 'all'],
        default: 'upcoming',
      },
      // An int32, as the response schema's page is.
      page: { description: 'The 1-based page number.', type: 'integer', minimum: 1, maximum: 2_147_483_647, default: 1 },
      pageSize: { description: 'Events per page.', type: 'integer', minimum: 1, maximum: 100, default: 20 },
    },
  },
  /** GET /changes. */
  ChangesQuery: {
    description: 'Which snapshot GET /changes compares the current one with (docs/api.md §10); without `since`, none.',
    type: 'object',
    additionalProperties: false,
    required: [],
    properties: {
      since: {
        description: 'A snapshot id an earlier answer named (its `Marquee-Snapshot-Id`, or `snapshotId` of an earlier `/changes`). Without it, every path is listed.',
        title: 'a snapshot id, as Marquee-Snapshot-Id or an earlier answer of /changes named it',
        type: 'string',
        pattern: `^${SNAPSHOT_ID_FORM}$`,
      },
    },
  },
} as const;

type Catalog = typeof RESOURCE_CATALOG;
export type ResourceKind = keyof Catalog;
/** Kinds of one event, whose paths hold the event's id. */
export type EventResourceKind = { [K in ResourceKind]: Catalog[K]['pattern'] extends `${string}${typeof EVENT_PARAMETER}${string}` ? K : never }[ResourceKind];
/** Kinds of which an organization has one. */
export type OrganizationResourceKind = Exclude<ResourceKind, EventResourceKind>;
export type ClockDependentKind = { [K in ResourceKind]: Catalog[K]['clockDependent'] extends true ? K : never }[ResourceKind];

export const RESOURCE_KINDS = Object.keys(RESOURCE_CATALOG) as ResourceKind[];

/** The text before and after the event parameter of a pattern; undefined for a pattern without one. */
export function splitPattern(pattern: string): readonly [string, string] | undefined {
  const at = pattern.indexOf(EVENT_PARAMETER);
  return at < 0 ? undefined : [pattern.slice(0, at), pattern.slice(at + EVENT_PARAMETER.length)];
}

export const isEventResourceKind = (kind: ResourceKind): kind is EventResourceKind => splitPattern(RESOURCE_CATALOG[kind].pattern) !== undefined;
export const isClockDependent = (kind: ResourceKind): kind is ClockDependentKind => RESOURCE_CATALOG[kind].clockDependent;

export const ORGANIZATION_RESOURCE_KINDS = RESOURCE_KINDS.filter((kind): kind is OrganizationResourceKind => !isEventResourceKind(kind));
export const EVENT_RESOURCE_KINDS = RESOURCE_KINDS.filter(isEventResourceKind);

/** The manifest path of each kind: the API path, with the event's id for an event's resources. */
export const resourcePath = Object.fromEntries(
  RESOURCE_KINDS.map((kind) => {
    const { pattern } = RESOURCE_CATALOG[kind];
    const parts = splitPattern(pattern);
    return [kind, parts === undefined ? pattern : (eventId: string) => `${parts[0]}${eventId}${parts[1]}`];
  }),
) as { readonly [K in ResourceKind]: K extends EventResourceKind ? (eventId: string) => string : string };

const ORGANIZATION_PATHS = new Map(ORGANIZATION_RESOURCE_KINDS.map((kind): [string, ResourceKind] => [RESOURCE_CATALOG[kind].pattern, kind]));
const EVENT_PATHS = EVENT_RESOURCE_KINDS.map((kind) => {
  const [before, after] = splitPattern(RESOURCE_CATALOG[kind].pattern)!;
  return { kind, before, after };
});

/** The kind of a manifest path, with the event's id for an event's resource; undefined for a path no entry names. */
export function resourceAt(path: string): { kind: ResourceKind; eventId?: string } | undefined {
  const kind = ORGANIZATION_PATHS.get(path);
  if (kind !== undefined) return { kind };
  for (const { kind, before, after } of EVENT_PATHS) {
    if (path.length <= before.length + after.length || !path.startsWith(before) || !path.endsWith(after)) continue;
    const eventId = path.slice(before.length, path.length - after.length);
    if (!eventId.includes('/')) return { kind, eventId };
  }
  return undefined;
}
