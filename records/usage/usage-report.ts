// A key's or an organization's usage as every door shows it (`keys usage`, the admin API, the
// console's pages and chart): totals by outcome, by route and by key, a series of buckets (every
// hour or day of the range, empty ones included, so a chart's time axis is even) and the refused
// origins, most frequent first. Pure: usage-store.ts reads the rows.
import { HOUR_MS } from './usage-batch.ts';

export type UsageSubject = { readonly keyId: string } | { readonly organizationId: string };

/** Stored counts (marquee_key_usage) as read: summed to one bucket, `hour` its start. */
export interface UsageRow {
  readonly hour: number;
  readonly keyId: string;
  readonly route: string;
  readonly status: number;
  readonly errorCode: string;
  readonly requests: number;
}

export interface UsageBucket {
  /** The bucket's start (an hour, or a UTC day), ISO 8601. */
  readonly start: string;
  readonly requests: number;
  /** Requests by outcome (outcomeLabel), only those with any. */
  readonly outcomes: Readonly<Record<string, number>>;
}

/** Its lists are plain arrays, as the admin API's schema types them: a report is made afresh for each answer. */
export interface UsageReport {
  readonly subject: UsageSubject;
  readonly since: string;
  readonly until: string;
  readonly by: 'hour' | 'day';
  readonly requests: number;
  /** Most first. */
  readonly outcomes: { outcome: string; requests: number }[];
  readonly routes: { route: string; requests: number }[];
  readonly keys: { keyId: string; requests: number }[];
  readonly series: UsageBucket[];
  /** Most first, at most MAX_ORIGINS_SHOWN; `origin: null` counts the others a key's hourly bound folded together. */
  readonly refusedOrigins: { origin: string | null; requests: number }[];
}

export const DAY_MS = 24 * HOUR_MS;
const MAX_ORIGINS_SHOWN = 10;
/** The most buckets a report holds: 90 days by hour is 2,160. */
export const MAX_BUCKETS = 100 * 24;

/** '200', '304', '403 API_KEY_ORIGIN_NOT_ALLOWED': the status, with a 403's errorCode. */
const outcomeLabel = (status: number, errorCode: string): string => (errorCode === '' ? String(status) : `${status} ${errorCode}`);

export function usageReport(
  subject: UsageSubject,
  range: { since: Date; until: Date; by: 'hour' | 'day' },
  rows: readonly UsageRow[],
  origins: readonly { origin: string; requests: number }[],
): UsageReport {
  const step = bucketMs(range.by);
  const first = bucketStart(range.since.getTime(), step);
  const buckets: { start: number; requests: number; outcomes: Record<string, number> }[] = [];
  for (let start = first; start < range.until.getTime() && buckets.length < MAX_BUCKETS; start += step) buckets.push({ start, requests: 0, outcomes: {} });
  const outcomes = new Map<string, number>();
  const routes = new Map<string, number>();
  const keys = new Map<string, number>();
  let requests = 0;
  for (const row of rows) {
    const outcome = outcomeLabel(row.status, row.errorCode);
    requests += row.requests;
    add(outcomes, outcome, row.requests);
    add(routes, row.route, row.requests);
    add(keys, row.keyId, row.requests);
    const bucket = buckets[Math.floor((row.hour - first) / step)];
    if (bucket === undefined) continue;
    bucket.requests += row.requests;
    bucket.outcomes[outcome] = (bucket.outcomes[outcome] ?? 0) + row.requests;
  }
  return {
    subject,
    since: range.since.toISOString(),
    until: range.until.toISOString(),
    by: range.by,
    requests,
    outcomes: mostFirst(outcomes).map(([outcome, n]) => ({ outcome, requests: n })),
    routes: mostFirst(routes).map(([route, n]) => ({ route, requests: n })),
    keys: mostFirst(keys).map(([keyId, n]) => ({ keyId, requests: n })),
    series: buckets.map((bucket) => ({ start: new Date(bucket.start).toISOString(), requests: bucket.requests, outcomes: bucket.outcomes })),
    refusedOrigins: [...origins]
      .sort((a, b) => b.requests - a.requests || a.origin.localeCompare(b.origin))
      .slice(0, MAX_ORIGINS_SHOWN)
      .map(({ origin, requests: n }) => ({ origin: origin === '' ? null : origin, requests: n })),
  };
}

/** A bucket's length: a UTC hour or day. */
export const bucketMs = (by: 'hour' | 'day'): number => (by === 'hour' ? HOUR_MS : DAY_MS);

/** The start of the bucket of length `step` that `ms` falls in, negative instants too (UTC days and hours start at multiples of theirs). */
export const bucketStart = (ms: number, step: number): number => ms - (((ms % step) + step) % step);

function add(totals: Map<string, number>, name: string, n: number): void {
  totals.set(name, (totals.get(name) ?? 0) + n);
}

const mostFirst = (totals: Map<string, number>): [string, number][] => [...totals].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
