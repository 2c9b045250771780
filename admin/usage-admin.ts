// Usage per key through the control plane's doors (docs/design.md "Usage per key"): one key's or one
// organization's requests over a range, by hour or by day, with outcomes, routes and refused origins
// (`keys usage`, GET /admin/v1/keys/{id}/usage and /organizations/{org}/usage, the console's usage
// pages), and the last day's requests per key beside each key's last use (`keys list`, GET
// /admin/v1/keys, the key table). Read from the hourly rows the builders' intake writes (records/usage/).
import type { SqlQueries } from '../records/database/sql.ts';
import { HOUR_MS } from '../records/usage/usage-batch.ts';
import { bucketMs, bucketStart, DAY_MS, MAX_BUCKETS, type UsageReport } from '../records/usage/usage-report.ts';
import { readUsage, requestsSince } from '../records/usage/usage-store.ts';
import { OperatorError } from '../runtime/errors.ts';
import type { KeyOperations, KeyView } from './keys/key-admin.ts';
import type { OrganizationDirectory } from './organization-admin.ts';

export type UsageGranularity = 'hour' | 'day';

/** A range as a door takes it: every member optional (usageRange fills them in). */
export interface UsageRangeRequest {
  since?: Date;
  until?: Date;
  by?: UsageGranularity;
}

export interface UsageRange {
  since: Date;
  until: Date;
  by: UsageGranularity;
}

/** A key as `keys list` shows it: its view, and its requests in the last 24 hours beside its last use. */
export type ListedKey = KeyView & { requests24h: number };

export interface UsageOperations {
  /** One key's usage (KEY_NOT_FOUND when no key has the id: a deleted key's rows are kept, but no key is "deleted"). */
  key(keyId: string, range?: UsageRangeRequest): Promise<UsageReport>;
  /** Every key of one organization (id or slug), together and per key. */
  organization(idOrSlug: string, range?: UsageRangeRequest): Promise<UsageReport>;
  /** Keys as `keys list` lists them (oldest first, of one organization or all), each with `requests24h` (0 when none): one grouped query for all. */
  keyList(organizationIdOrSlug?: string): Promise<ListedKey[]>;
}

export interface UsageParts {
  db: SqlQueries;
  keys: Pick<KeyOperations, 'get' | 'list'>;
  organizations: OrganizationDirectory;
  /** Milliseconds since the epoch; injected so tests control time. */
  clock?: () => number;
}

/**
 * A range no report can be made of: the operator's mistake, answered 400 BAD_REQUEST by the admin
 * API (admin/problem.ts) and refused as a wrong command line by the CLI (bin/usage.ts).
 */
export class UsageRangeError extends OperatorError {
  override name = 'UsageRangeError';
}

/** Without `since`: the last week, by hour (168 buckets: a chart's worth). */
const DEFAULT_SPAN_MS = 7 * DAY_MS;

/**
 * The range a request names, completed: `until` defaults to the end of the current hour, `since`
 * to a week before `until`, `by` to hours for up to a week and days beyond. Counts are kept per
 * UTC hour, so both ends are then widened to whole buckets (`since` down, `until` up): the report
 * says exactly what it counts, and its first bucket is not short of the hour `since` fell in. A
 * range that ends before it starts, or that holds more than MAX_BUCKETS buckets, is a
 * UsageRangeError. Pure; completing a completed range gives it back.
 */
export function usageRange(request: UsageRangeRequest, now: number): UsageRange {
  const until = request.until ?? new Date(now - (now % HOUR_MS) + HOUR_MS);
  const since = request.since ?? new Date(until.getTime() - DEFAULT_SPAN_MS);
  if (since.getTime() >= until.getTime()) throw new UsageRangeError(`since (${since.toISOString()}) must be before until (${until.toISOString()})`);
  const by = request.by ?? (until.getTime() - since.getTime() > DEFAULT_SPAN_MS ? 'day' : 'hour');
  const step = bucketMs(by);
  const start = bucketStart(since.getTime(), step);
  const end = -bucketStart(-until.getTime(), step);
  const buckets = (end - start) / step;
  if (buckets > MAX_BUCKETS)
    throw new UsageRangeError(`a usage range by ${by} holds at most ${MAX_BUCKETS} ${by}s; this one holds ${buckets} (ask by day, or for a shorter range)`);
  return { since: new Date(start), until: new Date(end), by };
}

export function usageOperations({ db, keys, organizations, clock = Date.now }: UsageParts): UsageOperations {
  const lastDay = async (organization?: string) => {
    const id = organization === undefined ? undefined : (await organizations.find(organization)).id;
    return requestsSince(db, new Date(clock() - DAY_MS), id);
  };
  return {
    key: async (keyId, range = {}) => {
      await keys.get(keyId);
      return readUsage(db, { keyId }, usageRange(range, clock()));
    },
    organization: async (idOrSlug, range = {}) => {
      const { id } = await organizations.find(idOrSlug);
      return readUsage(db, { organizationId: id }, usageRange(range, clock()));
    },
    keyList: async (organization) => {
      // Side by side: each looks the organization up (an unknown one is refused by both alike).
      const [listed, requests] = await Promise.all([keys.list(organization), lastDay(organization)]);
      return listed.map((key) => ({ ...key, requests24h: requests.get(key.id) ?? 0 }));
    },
  };
}
