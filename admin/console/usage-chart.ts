// The console's usage chart (docs/design.md "Usage per key"): a UsageReport's series drawn on the
// server as inline SVG, bars of requests per hour or day stacked by outcome (successes in blues,
// the gateway's refusals in warning colours, anything else grey), with a few UTC time labels, the
// largest bucket's count and a legend. No script, no font, no image: the page's policy allows
// none from elsewhere, and none is needed. Every text it writes is escaped here, since outcomes and
// the subject's name come from clients and operators. Pure.
import { HOUR_MS } from '../../records/usage/usage-batch.ts';
import type { UsageBucket, UsageReport } from '../../records/usage/usage-report.ts';

export type OutcomeFamily = 'success' | 'refusal' | 'other';

export interface OutcomeStyle {
  readonly outcome: string;
  readonly family: OutcomeFamily;
  /** A fill colour, as an SVG presentation attribute takes it (a style attribute would break the page's policy). */
  readonly colour: string;
}

export interface ChartOptions {
  /** Prefix of the ids the chart's title and description carry (unique on the page). */
  readonly id: string;
  /** What the usage is of, as the title names it: "Key key_1 (Website)", an organization's name. */
  readonly subject: string;
}

/** The report's members the chart draws. */
export type ChartedReport = Pick<UsageReport, 'since' | 'until' | 'by' | 'requests' | 'outcomes' | 'series'>;

const DAY_MS = 24 * HOUR_MS;

/** The colours people learn: the usual answers, and the gateway's refusals each its own. */
const KNOWN_COLOURS: Readonly<Record<string, string>> = {
  '200': '#1f5fbf',
  '304': '#8fb3e6',
  '401': '#e8710a',
  '403 API_KEY_ORIGIN_NOT_ALLOWED': '#c5221f',
  '403 ORGANIZATION_SUSPENDED': '#8e2443',
  '429': '#b58100',
};

/** Colours for outcomes not named above, taken in order within their family. */
const FAMILY_COLOURS: Readonly<Record<OutcomeFamily, readonly string[]>> = {
  success: ['#0b3d7a', '#4a86d4', '#2a9d8f', '#6c8ebf'],
  refusal: ['#d9480f', '#a61e4d', '#e67700', '#7f1d1d'],
  other: ['#8a8f98', '#5f6670', '#b4b9c2', '#3f444c'],
};

const FAMILY_ORDER: readonly OutcomeFamily[] = ['success', 'refusal', 'other'];

/** A success is a 2xx or a 304 (an answer the client already had); a refusal is the gateway saying no to the key: 401, 403, 429. */
function outcomeFamily(outcome: string): OutcomeFamily {
  const status = Number.parseInt(outcome, 10);
  if ((status >= 200 && status < 300) || status === 304) return 'success';
  if (status === 401 || status === 403 || status === 429) return 'refusal';
  return 'other';
}

/**
 * The outcomes in the order the bars stack them and the legend lists them (successes at the
 * bottom, then refusals, then the rest; by status within each), each with its colour.
 */
export function outcomeStyles(outcomes: readonly string[]): OutcomeStyle[] {
  const sorted = [...new Set(outcomes)].sort(
    (a, b) => FAMILY_ORDER.indexOf(outcomeFamily(a)) - FAMILY_ORDER.indexOf(outcomeFamily(b)) || Number.parseInt(a, 10) - Number.parseInt(b, 10) || (a < b ? -1 : a > b ? 1 : 0),
  );
  const taken: Record<OutcomeFamily, number> = { success: 0, refusal: 0, other: 0 };
  return sorted.map((outcome) => {
    const family = outcomeFamily(outcome);
    const palette = FAMILY_COLOURS[family];
    const colour = KNOWN_COLOURS[outcome] ?? palette[taken[family]++ % palette.length]!;
    return { outcome, family, colour };
  });
}

const COUNT = new Intl.NumberFormat('en-US');

/** A count as the chart and the console's tables write it: 12,345 (fixed to English, so a page reads the same on every server). */
export const countText = (n: number): string => COUNT.format(n);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const twoDigits = (n: number) => String(n).padStart(2, '0');
const dayText = (at: Date) => `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]}`;
const clockText = (at: Date) => `${twoDigits(at.getUTCHours())}:${twoDigits(at.getUTCMinutes())}`;

const dateText = (at: Date) => `${dayText(at)} ${at.getUTCFullYear()}`;

/** An instant as the chart and its page write it, in UTC: "22 Nov 2026 06:00". */
export const instantText = (iso: string): string => `${dateText(new Date(iso))} ${clockText(new Date(iso))}`;

/** A bucket's start as its page and tooltip name it: "22 Nov 2026 06:00" for an hour, "22 Nov 2026" for a day (UTC). */
export const bucketText = (iso: string, by: 'hour' | 'day'): string => (by === 'hour' ? instantText(iso) : dateText(new Date(iso)));

// The drawing's coordinates (a viewBox: the page scales it to its width).
const WIDTH = 960;
const LEFT = 64;
const RIGHT = WIDTH - 16;
const TOP = 16;
const PLOT_HEIGHT = 240;
const BOTTOM = TOP + PLOT_HEIGHT;
const LEGEND_TOP = BOTTOM + 48;
const LEGEND_ROW = 22;
const LEGEND_COLUMNS = 3;
/** A legend entry longer than this is cut (its whole text is its tooltip): an outcome is the client's to make long. */
const LEGEND_CHARACTERS = 38;
const AXIS = '#5a6272';
const GRID = '#d5d9e0';

/** Time labels at whole multiples of these spans (hours), the first that gives at most MAX_TIME_LABELS. */
const LABEL_SPANS_HOURS = [1, 2, 3, 6, 12, 24, 48, 7 * 24, 14 * 24, 28 * 24, 13 * 7 * 24, 52 * 7 * 24];
const MAX_TIME_LABELS = 8;

/** The chart of `report` as an SVG element, every text in it escaped. */
export function usageChart(report: ChartedReport, options: ChartOptions): string {
  // Every outcome a bucket names has its colour, even one the totals were not given.
  const styles = outcomeStyles([...report.outcomes.map(({ outcome }) => outcome), ...report.series.flatMap((bucket) => Object.keys(bucket.outcomes))]);
  const max = report.series.reduce((most, bucket) => Math.max(most, bucket.requests), 0);
  const legendRows = Math.ceil(styles.length / LEGEND_COLUMNS);
  const height = LEGEND_TOP + legendRows * LEGEND_ROW + (legendRows > 0 ? 0 : 8);
  const id = (name: string) => escaped(`${options.id}-${name}`);
  const step = report.by;
  const title = `${options.subject}: ${requestsText(report.requests)} by outcome per ${step}, ${instantText(report.since)} to ${instantText(report.until)} UTC`;
  const description =
    report.requests === 0
      ? 'No requests in this range.'
      : `${report.outcomes.map(({ outcome, requests }) => `${outcome}: ${countText(requests)}`).join('; ')}. The busiest ${step} had ${requestsText(max)}. The tables on this page hold every number.`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="usage-chart" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-labelledby="${id('title')}" aria-describedby="${id('desc')}" font-family="system-ui, sans-serif" font-size="12" fill="#1d2330">`,
    `<title id="${id('title')}">${escaped(title)}</title>`,
    `<desc id="${id('desc')}">${escaped(description)}</desc>`,
    axes(report.series, step, max),
    bars(report.series, styles, max, step),
    max === 0 ? `<text class="empty-note" x="${(LEFT + RIGHT) / 2}" y="${TOP + PLOT_HEIGHT / 2}" text-anchor="middle" fill="${AXIS}">No requests in this range</text>` : '',
    legend(styles),
    '</svg>',
  ]
    .filter((part) => part !== '')
    .join('\n');
}

function axes(series: readonly UsageBucket[], step: 'hour' | 'day', max: number): string {
  const slot = slotWidth(series);
  const labels = timeLabels(series, step === 'hour' ? HOUR_MS : DAY_MS).map(({ index, text }) => {
    const x = LEFT + index * slot;
    // Labels at the edges are anchored inward, so none runs past the drawing.
    const anchor = x < LEFT + 40 ? 'start' : x > RIGHT - 40 ? 'end' : 'middle';
    return `<line x1="${n(x)}" y1="${BOTTOM}" x2="${n(x)}" y2="${BOTTOM + 5}" stroke="${AXIS}"/><text class="time-label" x="${n(x)}" y="${BOTTOM + 19}" text-anchor="${anchor}">${escaped(text)}</text>`;
  });
  return [
    '<g class="axes">',
    max > 0 ? `<line class="max-line" x1="${LEFT}" y1="${TOP}" x2="${RIGHT}" y2="${TOP}" stroke="${GRID}" stroke-dasharray="4 4"/>` : '',
    max > 0 ? `<text class="max-label" x="${LEFT - 6}" y="${TOP + 4}" text-anchor="end">${escaped(countText(max))}</text>` : '',
    `<text class="zero-label" x="${LEFT - 6}" y="${BOTTOM + 4}" text-anchor="end">0</text>`,
    `<line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${BOTTOM}" stroke="${AXIS}"/>`,
    `<line x1="${LEFT}" y1="${BOTTOM}" x2="${RIGHT}" y2="${BOTTOM}" stroke="${AXIS}"/>`,
    ...labels,
    `<text class="zone-label" x="${RIGHT}" y="${BOTTOM + 36}" text-anchor="end" fill="${AXIS}">UTC</text>`,
    '</g>',
  ]
    .filter((part) => part !== '')
    .join('\n');
}

/** One group per bucket with requests: its segments stacked from the bottom, and a tooltip with its numbers. */
function bars(series: readonly UsageBucket[], styles: readonly OutcomeStyle[], max: number, step: 'hour' | 'day'): string {
  if (max === 0) return '';
  const slot = slotWidth(series);
  // A gap between bars while they are wide enough to show one.
  const gap = slot >= 4 ? slot * 0.2 : 0;
  const groups = series.flatMap((bucket, index) => {
    if (bucket.requests === 0) return [];
    const x = LEFT + index * slot + gap / 2;
    let top = BOTTOM;
    const segments = styles.flatMap(({ outcome, colour }) => {
      const requests = bucketRequests(bucket, outcome);
      if (requests === 0) return [];
      const height = (requests / max) * PLOT_HEIGHT;
      top -= height;
      return [
        `<rect class="bar" data-outcome="${escaped(outcome)}" data-requests="${requests}" x="${n(x)}" y="${n(top)}" width="${n(slot - gap)}" height="${n(height)}" fill="${colour}"/>`,
      ];
    });
    const when = `${bucketText(bucket.start, step)} UTC`;
    const numbers = styles.flatMap(({ outcome }) => (bucketRequests(bucket, outcome) > 0 ? [`${outcome}: ${countText(bucketRequests(bucket, outcome))}`] : [])).join(', ');
    return [`<g class="bucket" data-start="${escaped(bucket.start)}"><title>${escaped(`${when}: ${requestsText(bucket.requests)} (${numbers})`)}</title>${segments.join('')}</g>`];
  });
  return ['<g class="bars">', ...groups, '</g>'].join('\n');
}

function legend(styles: readonly OutcomeStyle[]): string {
  if (styles.length === 0) return '';
  const column = (RIGHT - LEFT) / LEGEND_COLUMNS;
  const items = styles.map(({ outcome, family, colour }, index) => {
    const x = LEFT + (index % LEGEND_COLUMNS) * column;
    const y = LEGEND_TOP + Math.floor(index / LEGEND_COLUMNS) * LEGEND_ROW;
    const shown = outcome.length > LEGEND_CHARACTERS ? `${outcome.slice(0, LEGEND_CHARACTERS - 1)}…` : outcome;
    return `<g class="legend-item legend-${family}"><title>${escaped(outcome)}</title><rect x="${n(x)}" y="${y - 11}" width="14" height="14" fill="${colour}"/><text x="${n(x + 20)}" y="${y}">${escaped(shown)}</text></g>`;
  });
  return ['<g class="legend">', ...items, '</g>'].join('\n');
}

/** A bucket's requests with one outcome: its own member only, whatever text the outcome is. */
export const bucketRequests = (bucket: UsageBucket, outcome: string): number => (Object.hasOwn(bucket.outcomes, outcome) ? (bucket.outcomes[outcome] ?? 0) : 0);

const slotWidth = (series: readonly UsageBucket[]) => (RIGHT - LEFT) / Math.max(series.length, 1);

/** Where the time labels go (bucket indexes) and what they say: whole days, or hours with the day where one starts. */
function timeLabels(series: readonly UsageBucket[], step: number): { index: number; text: string }[] {
  const starts = series.map((bucket) => Date.parse(bucket.start));
  for (const hours of LABEL_SPANS_HOURS) {
    const span = hours * HOUR_MS;
    if (span < step) continue;
    const indexes = starts.flatMap((start, index) => (start % span === 0 ? [index] : []));
    if (indexes.length > MAX_TIME_LABELS) continue;
    return indexes.map((index, nth) => {
      const at = new Date(starts[index]!);
      if (span >= 13 * 7 * DAY_MS) return { index, text: `${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}` };
      if (span >= DAY_MS) return { index, text: dayText(at) };
      return { index, text: nth === 0 || at.getUTCHours() === 0 ? `${dayText(at)} ${clockText(at)}` : clockText(at) };
    });
  }
  return [];
}

const requestsText = (count: number) => `${countText(count)} request${count === 1 ? '' : 's'}`;

/** A coordinate with at most two decimals: the same input writes the same text. */
const n = (value: number) => String(Math.round(value * 100) / 100);

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as SVG (and HTML) reads it literally, in an element or in a quoted attribute. */
const escaped = (text: string) => text.replace(/[&<>"']/g, (character) => ENTITIES[character]!);
