// The pieces the admin operations' schemas are written with (operations/*.ts): text, lists and
// objects, the forms of what a client names in a path or a query, and the usage range's query.
// Each keeps its literal type (`as const`), which the operations' inputs and outputs are typed from.
import { SNAPSHOT_ID_FORM } from '../../snapshot/layout.ts';
import type { JsonSchema } from '../api-schemas.ts';
import { auditWindow } from '../trail/audit-since.ts';
import type { UsageGranularity, UsageRangeRequest } from '../usage-admin.ts';

/** Where the admin API is mounted; every operation's path is below it. */
export const ADMIN_API_BASE = '/admin/v1';

export const text = (description: string) => ({ type: 'string', minLength: 1, description }) as const;
export const optionalText = (description: string) => ({ type: ['string', 'null'], description }) as const;
export const texts = (description: string) => ({ type: 'array', items: { type: 'string' }, description }) as const;
export const body = <const Properties extends Record<string, JsonSchema>, const Required extends keyof Properties & string = never>(
  properties: Properties,
  required: readonly Required[] = [],
) => ({ type: 'object', required, properties }) as const;
/** A route's query is written as a body is: an object of named members, some required. */
export const query: typeof body = (properties, required) => body(properties, required);

export const ORGANIZATION = 'the organization, by id or slug';

/**
 * The forms of what a client names in a path or a query (docs/design.md "Admin API and console"):
 * checked before anything is looked up with it, so that a client's `../` never reaches the
 * snapshot store's keys and a bad form is the client's 400, not our 500. A well-formed name that
 * names nothing is the route's 404.
 */
export const form = (pattern: string, description: string) => ({ type: 'string', pattern, description }) as const;
export const params = <const Properties extends Record<string, JsonSchema>>(properties: Properties) => ({ type: 'object', required: Object.keys(properties), properties }) as const;
/** Any text but a path's separators and control characters, and not `.` or `..`: slugs are the platform's, without a stated form. */
export const ORGANIZATION_FORM = form(
  '^(?!\\.\\.?$)[^/\\\\\\u0000-\\u001f\\u007f]{1,200}$',
  'an organization id or slug: 1 to 200 characters, without /, \\ or control characters',
);
export const SNAPSHOT_FORM = form(`^${SNAPSHOT_ID_FORM}$`, 'a snapshot id such as 20261121T100000000Z-0123456789ab');
export const SNAPSHOT_OR_CURRENT = form(`^(current|${SNAPSHOT_ID_FORM})$`, 'a snapshot id such as 20261121T100000000Z-0123456789ab, or current');
const KEY_FORM = form('^key_[A-Za-z0-9]{1,64}$', 'a key id: key_ and letters or digits');
/** Build runs and verifications are UUIDs; webhook endpoints and messages ep_… and msg_… (base64url). */
export const ID_FORM = form('^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$', 'an id: letters, digits, _ and -, at most 128');
export const CREDENTIAL_NAME_FORM = form('^[a-z0-9][a-z0-9._@-]{0,63}$', 'a credential name: lower-case letters, digits, ., _, @ and -');
export const ORGANIZATION_PARAMS = params({ idOrSlug: ORGANIZATION_FORM });
export const ID_PARAMS = params({ id: ID_FORM });
export const KEY_PARAMS = params({ id: KEY_FORM });

/** The range of a usage route (`keys usage`'s --since, --until and --by): instants or durations back, as the audit log's. */
export const usageQuery = query({
  since: text('from this instant (ISO 8601 with a zone) or this duration back (30m, 24h, 7d), widened down to its hour or day; default a week before until'),
  until: text('before this instant (exclusive), written as `since` is, widened up to the end of its hour or day; default the end of the current hour'),
  by: { enum: ['hour', 'day'], description: 'buckets of UTC hours or days; default hour for a week or less, day beyond' },
});

export function usageRangeOf(query: { since?: string; until?: string; by?: UsageGranularity }): UsageRangeRequest {
  return { ...auditWindow({ since: query.since, until: query.until }, { since: 'since', until: 'until' }, new Date()), ...(query.by !== undefined ? { by: query.by } : {}) };
}
