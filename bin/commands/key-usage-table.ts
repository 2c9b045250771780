// How `keys usage` prints a usage report (admin/usage-admin.ts, records/usage/usage-report.ts) for a
// person and for a spreadsheet: a table of the buckets that had requests, one column per outcome
// that occurs, then the routes, keys and refused origins; or CSV, one row per bucket and outcome.
// `--json` prints the report itself. Pure: lines in, lines out.
import type { UsageReport } from '../../records/usage/usage-report.ts';

/** The CSV's header line: one row per bucket and outcome follows. */
export const USAGE_CSV_HEADER = 'start,outcome,requests';

/** `subject`: what the operator asked about, as they named it (a key id, `--org nordic-dev`). */
export function usageTable(report: UsageReport, subject: string): string[] {
  const span = `from ${report.since} to ${report.until}`;
  if (report.requests === 0) return [`${subject}: no requests ${span}`];
  const outcomes = inStatusOrder(report.outcomes.map(({ outcome }) => outcome));
  const used = report.series.filter((bucket) => bucket.requests > 0);
  const rows = [
    [`start (UTC, by ${report.by})`, 'requests', ...outcomes],
    ...used.map((bucket) => [bucketStart(bucket.start, report.by), String(bucket.requests), ...outcomes.map((outcome) => String(bucket.outcomes[outcome] ?? 0))]),
    ['total', String(report.requests), ...outcomes.map((outcome) => String(report.outcomes.find((total) => total.outcome === outcome)?.requests ?? 0))],
  ];
  const empty = report.series.length - used.length;
  return [
    `${subject}: ${requestsText(report.requests)} ${span}`,
    ...aligned(rows),
    ...(empty > 0 ? [`(${empty} ${report.by === 'hour' ? 'hours' : 'days'} without requests not shown)`] : []),
    ...section(
      'routes',
      report.routes.map(({ route, requests }) => [route, requests]),
    ),
    // One key's report names one key: the list says something only for an organization's.
    ...(report.keys.length > 1 || 'organizationId' in report.subject
      ? section(
          'keys',
          report.keys.map(({ keyId, requests }) => [keyId, requests]),
        )
      : []),
    ...section(
      'refused origins (403 API_KEY_ORIGIN_NOT_ALLOWED)',
      report.refusedOrigins.map(({ origin, requests }) => [origin ?? '(others)', requests]),
    ),
  ];
}

/** `start,outcome,requests`, then a row for each outcome of each bucket that had any, in time order. */
export function usageCsv(report: UsageReport): string[] {
  const rows = report.series.flatMap((bucket) =>
    inStatusOrder(Object.keys(bucket.outcomes)).map((outcome) => [bucket.start, outcome, String(bucket.outcomes[outcome])].map(csvField).join(',')),
  );
  return [USAGE_CSV_HEADER, ...rows];
}

/** By status, then by label: 200, 304, 401, 403 API_KEY_ORIGIN_NOT_ALLOWED, 403 ORGANIZATION_SUSPENDED, 404, 429. */
function inStatusOrder(outcomes: readonly string[]): string[] {
  return [...outcomes].sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10) || (a < b ? -1 : a > b ? 1 : 0));
}

/** `2026-11-22 10:00` for an hour, `2026-11-22` for a day: the table's column, read by a person. */
function bucketStart(start: string, by: UsageReport['by']): string {
  return by === 'hour' ? `${start.slice(0, 10)} ${start.slice(11, 16)}` : start.slice(0, 10);
}

const requestsText = (n: number): string => `${n} ${n === 1 ? 'request' : 'requests'}`;

/** The first column left-aligned, the counts right-aligned under their headings, two spaces apart. */
function aligned(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_heading, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  '));
}

/** A heading and its named counts, most first as the report orders them; nothing when there are none. */
function section(heading: string, entries: readonly (readonly [string, number])[]): string[] {
  if (entries.length === 0) return [];
  const width = Math.max(...entries.map(([name]) => name.length));
  const count = Math.max(...entries.map(([, n]) => String(n).length));
  return ['', `${heading}:`, ...entries.map(([name, n]) => `  ${name.padEnd(width)}  ${String(n).padStart(count)}`)];
}

/** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
