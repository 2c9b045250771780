// What the console's usage pages show of a UsageReport (a key's or an organization's): the range
// form read from the page's query and written back, totals by outcome with their share and
// colour, routes, refused origins ("others" for those a key's hourly bound counted together), and
// every bucket with requests as a table row, the numbers the chart draws. Pure.
import { parseZonedInstant, ZONED_INSTANT_EXAMPLE } from '../../runtime/instant.ts';
import { HOUR_MS } from '../../records/usage/usage-batch.ts';
import type { UsageReport } from '../../records/usage/usage-report.ts';
import type { UsageGranularity, UsageRangeRequest } from '../usage-admin.ts';
import { bucketRequests, bucketText, countText, instantText, type OutcomeFamily, outcomeStyles } from './usage-chart.ts';

/** The range form's fields as the page writes them back. */
export interface RangeFields {
  since: string;
  until: string;
  by: UsageGranularity | '';
}

/** The range a page's query asks for, or what is wrong with it (said on the form, with what was typed). */
export type RangeQuery = { fields: RangeFields; request: UsageRangeRequest } | { fields: RangeFields; error: string };

const queryText = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** The range in `?since=&until=&by=`; each left out is the services' default (usageRange: the last 7 days, by hour). */
export function rangeQuery(query: Record<string, unknown>): RangeQuery {
  const fields = { since: queryText(query.since), until: queryText(query.until), by: queryText(query.by) };
  const request: UsageRangeRequest = {};
  for (const name of ['since', 'until'] as const) {
    if (fields[name] === '') continue;
    const at = parseZonedInstant(fields[name]);
    if (at === undefined)
      return { fields: { ...fields, by: granularity(fields.by) }, error: `${name} ${fields[name]} is not an ISO 8601 instant with a zone (${ZONED_INSTANT_EXAMPLE})` };
    request[name] = at;
  }
  if (fields.by !== '') {
    const by = granularity(fields.by);
    if (by === '') return { fields: { ...fields, by }, error: `by is hour or day, not ${fields.by}` };
    request.by = by;
  }
  return { fields: { ...fields, by: granularity(fields.by) }, request };
}

const granularity = (text: string): UsageGranularity | '' => (text === 'hour' || text === 'day' ? text : '');

/** An instant as the form shows it: ISO 8601 in UTC, without milliseconds that a range never has. */
const fieldInstant = (iso: string) => iso.replace(/\.000Z$/, 'Z');

/** The form's fields for the range a report covers: what the defaults came to, to edit from. */
export const reportFields = (report: Pick<UsageReport, 'since' | 'until' | 'by'>): RangeFields => ({
  since: fieldInstant(report.since),
  until: fieldInstant(report.until),
  by: report.by,
});

/** The fields as a query (`since=…&until=…&by=…`, encoded), for links that keep the range. */
export const rangeSearch = (fields: RangeFields): string => new URLSearchParams({ ...fields }).toString();

export interface RangePreset {
  label: string;
  /** The page's query for it: `since=…&until=…&by=…`, already encoded. */
  query: string;
}

const DAY_MS = 24 * HOUR_MS;

/** Ranges one click away, each ending with the current hour (the services' default end). */
export function rangePresets(now: Date): RangePreset[] {
  const until = now.getTime() - (now.getTime() % HOUR_MS) + HOUR_MS;
  const preset = (label: string, days: number, by: UsageGranularity): RangePreset => ({
    label,
    query: rangeSearch({ since: fieldInstant(new Date(until - days * DAY_MS).toISOString()), until: fieldInstant(new Date(until).toISOString()), by }),
  });
  return [preset('Last 24 hours', 1, 'hour'), preset('Last 7 days', 7, 'hour'), preset('Last 30 days', 30, 'day'), preset('Last 90 days', 90, 'day')];
}

/** An outcome's family in words, beside its colour: the kind must not be told by colour alone. */
const KIND_TEXT: Readonly<Record<OutcomeFamily, string>> = { success: 'answered', refusal: 'refused', other: 'other' };

/** A report as the usage templates print it: every count written out, outcomes in the chart's order and colours. */
export function usageView(report: UsageReport) {
  const byOutcome = new Map(report.outcomes.map(({ outcome, requests }) => [outcome, requests]));
  const outcomes = outcomeStyles([...byOutcome.keys()]).map((style) => {
    const requests = byOutcome.get(style.outcome) ?? 0;
    return { ...style, kind: KIND_TEXT[style.family], requests: countText(requests), share: shareText(requests, report.requests) };
  });
  return {
    requests: countText(report.requests),
    since: { iso: report.since, text: instantText(report.since) },
    until: { iso: report.until, text: instantText(report.until) },
    by: report.by,
    outcomes,
    routes: report.routes.map(({ route, requests }) => ({ route, requests: countText(requests) })),
    refusedOrigins: report.refusedOrigins.map(({ origin, requests }) => ({ origin, requests: countText(requests) })),
    // The buckets without requests are left out: a week by hour is 168 rows, most of them empty.
    buckets: report.series
      .filter((bucket) => bucket.requests > 0)
      .map((bucket) => ({
        start: bucket.start,
        text: bucketText(bucket.start, report.by),
        requests: countText(bucket.requests),
        outcomes: outcomes.map(({ outcome }) => countText(bucketRequests(bucket, outcome))),
      })),
  };
}

/** "12.5 %", "< 0.1 %", "> 99.9 %": a share a reader compares at a glance, never "0 %" for some nor "100 %" for not all. */
function shareText(part: number, whole: number): string {
  if (whole === 0) return '—';
  const percent = (part / whole) * 100;
  if (percent > 0 && percent < 0.1) return '< 0.1 %';
  if (percent < 100 && percent > 99.9) return '> 99.9 %';
  return `${percent.toFixed(1).replace(/\.0$/, '')} %`;
}
