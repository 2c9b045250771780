// The usage chart (admin/console/usage-chart.ts): bars as tall as their requests, stacked by
// outcome in the legend's order and colours by family, a few UTC time labels and the busiest
// bucket's count, an empty range drawn empty with a note, every client's text escaped, and the same
// drawing for the same report.
import { describe, expect, it } from 'vitest';
import { outcomeStyles, usageChart } from '../../../../admin/console/usage-chart.ts';
import { HOUR_MS } from '../../../../records/usage/usage-batch.ts';
import { type UsageRow, usageReport } from '../../../../records/usage/usage-report.ts';

const SINCE = Date.UTC(2026, 10, 21, 10);
const OPTIONS = { id: 'chart', subject: 'Key key_1 (Website)' };

/** A day by hour of one key, with `rows` as [hours after SINCE, status, errorCode, requests]. */
function report(rows: [offset: number, status: number, errorCode: string, requests: number][], by: 'hour' | 'day' = 'hour', hours = 24) {
  const usage: UsageRow[] = rows.map(([offset, status, errorCode, requests]) => ({
    hour: SINCE + offset * HOUR_MS,
    keyId: 'key_1',
    route: '/events',
    status,
    errorCode,
    requests,
  }));
  return usageReport({ keyId: 'key_1' }, { since: new Date(SINCE), until: new Date(SINCE + hours * HOUR_MS), by }, usage, []);
}

/** The attributes of every element `tag` with class `className`, in document order. */
function elements(svg: string, tag: string, className: string): Record<string, string>[] {
  return [...svg.matchAll(new RegExp(`<${tag} class="${className}"([^>]*)>`, 'g'))].map(([, attributes]) =>
    Object.fromEntries([...attributes!.matchAll(/([\w-]+)="([^"]*)"/g)].map(([, name, value]) => [name!, value!])),
  );
}

const texts = (svg: string, className: string) => [...svg.matchAll(new RegExp(`<text class="${className}"[^>]*>([^<]*)</text>`, 'g'))].map(([, text]) => text!);

describe('the usage chart', () => {
  it('draws each bucket as tall as its requests, the busiest to the top, stacked by outcome', () => {
    const svg = usageChart(
      report([
        [2, 200, '', 30],
        [2, 429, '', 10],
        [5, 200, '', 20],
        [9, 403, 'API_KEY_ORIGIN_NOT_ALLOWED', 5],
      ]),
      OPTIONS,
    );
    const bars = elements(svg, 'rect', 'bar');
    const heightOf = (outcome: string, index = 0) => Number(bars.filter((bar) => bar['data-outcome'] === outcome)[index]!.height);
    // The busiest bucket (40) fills the plot; 20 is half of it, 5 an eighth; within a bucket 30 and 10 are 3 to 1.
    const full = heightOf('200') + heightOf('429');
    expect(heightOf('200', 1) / full).toBeCloseTo(0.5, 2);
    expect(heightOf('403 API_KEY_ORIGIN_NOT_ALLOWED') / full).toBeCloseTo(0.125, 2);
    expect(heightOf('200') / heightOf('429')).toBeCloseTo(3, 2);
    // Successes at the bottom: the 429 sits on top of the 200s of its bucket.
    const [ok, limited] = bars.slice(0, 2);
    expect(ok!['data-outcome']).toBe('200');
    expect(Number(limited!.y) + Number(limited!.height)).toBeCloseTo(Number(ok!.y), 1);
    // Three buckets with requests, in time order, each with its tooltip.
    expect(elements(svg, 'g', 'bucket').map((group) => group['data-start'])).toEqual([
      new Date(SINCE + 2 * HOUR_MS).toISOString(),
      new Date(SINCE + 5 * HOUR_MS).toISOString(),
      new Date(SINCE + 9 * HOUR_MS).toISOString(),
    ]);
    expect(svg).toContain('<title>21 Nov 2026 12:00 UTC: 40 requests (200: 30, 429: 10)</title>');
    expect(texts(svg, 'max-label')).toEqual(['40']);
    expect(texts(svg, 'zero-label')).toEqual(['0']);
  });

  it('labels the time axis with a few UTC instants, and days when a range is longer', () => {
    const day = texts(usageChart(report([[1, 200, '', 1]]), OPTIONS), 'time-label');
    expect(day.length).toBeGreaterThanOrEqual(3);
    expect(day.length).toBeLessThanOrEqual(8);
    expect(day[0]).toBe('21 Nov 12:00');
    expect(day).toContain('22 Nov 00:00');
    const week = texts(usageChart(report([[1, 200, '', 1]], 'hour', 7 * 24), OPTIONS), 'time-label');
    expect(week).toEqual(['22 Nov', '23 Nov', '24 Nov', '25 Nov', '26 Nov', '27 Nov', '28 Nov']);
    const quarter = texts(usageChart(report([[1, 200, '', 1]], 'day', 90 * 24), OPTIONS), 'time-label');
    expect(quarter.length).toBeGreaterThan(1);
    expect(quarter.length).toBeLessThanOrEqual(8);
    expect(quarter.every((label) => /^\d{1,2} [A-Z][a-z]{2}$/.test(label))).toBe(true);
  });

  it('colours successes in blues, refusals in warning colours and the rest in grey, in that order in the legend', () => {
    const styles = outcomeStyles(['404', '429', '304', '403 ORGANIZATION_SUSPENDED', '200', '401', '403 API_KEY_ORIGIN_NOT_ALLOWED', '500']);
    expect(styles.map(({ outcome, family }) => `${family} ${outcome}`)).toEqual([
      'success 200',
      'success 304',
      'refusal 401',
      'refusal 403 API_KEY_ORIGIN_NOT_ALLOWED',
      'refusal 403 ORGANIZATION_SUSPENDED',
      'refusal 429',
      'other 404',
      'other 500',
    ]);
    expect(new Set(styles.map(({ colour }) => colour)).size).toBe(styles.length);
    const hue = (hex: string) => {
      const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
      return { r: r!, g: g!, b: b! };
    };
    for (const { family, colour } of styles) {
      const { r, g, b } = hue(colour);
      if (family === 'success') expect(b, colour).toBeGreaterThan(r);
      if (family === 'refusal') expect(r, colour).toBeGreaterThan(b);
      if (family === 'other') expect(Math.max(r, g, b) - Math.min(r, g, b), colour).toBeLessThan(24);
    }
    const svg = usageChart(
      report([
        [0, 404, '', 1],
        [0, 200, '', 1],
        [0, 429, '', 1],
      ]),
      OPTIONS,
    );
    expect([...svg.matchAll(/<g class="legend-item legend-(\w+)"><title>([^<]*)<\/title>/g)].map(([, family, outcome]) => `${family} ${outcome}`)).toEqual([
      'success 200',
      'refusal 429',
      'other 404',
    ]);
  });

  it('is an image with a title and a description saying the range and the total', () => {
    const svg = usageChart(
      report([
        [3, 200, '', 1200],
        [4, 401, '', 34],
      ]),
      OPTIONS,
    );
    expect(svg).toMatch(/^<svg [^>]*role="img" aria-labelledby="chart-title" aria-describedby="chart-desc"/);
    expect(svg).toContain('<title id="chart-title">Key key_1 (Website): 1,234 requests by outcome per hour, 21 Nov 2026 10:00 to 22 Nov 2026 10:00 UTC</title>');
    expect(svg).toContain('<desc id="chart-desc">200: 1,200; 401: 34. The busiest hour had 1,200 requests.');
    // Nothing it draws is fetched or run.
    expect(svg).not.toMatch(/<script|<image|<use|href=|style=|@import|url\(/i);
  });

  it('draws an empty range empty: axes, no bars, and a note', () => {
    const svg = usageChart(report([]), OPTIONS);
    expect(elements(svg, 'rect', 'bar')).toEqual([]);
    expect(texts(svg, 'empty-note')).toEqual(['No requests in this range']);
    expect(texts(svg, 'max-label')).toEqual([]);
    expect(texts(svg, 'zero-label')).toEqual(['0']);
    expect(texts(svg, 'time-label').length).toBeGreaterThan(0);
    expect(svg).toContain('<desc id="chart-desc">No requests in this range.</desc>');
    expect(svg).toContain(': 0 requests by outcome per hour');
  });

  it("escapes every text it writes: a client's outcome, a subject that is markup", () => {
    const escapedHostile = '403 &quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;x a=&#39;';
    const svg = usageChart(report([[1, 403, `"><script>alert(1)</script><x a='`, 3]]), { id: 'a"b', subject: '<img src=x onerror=alert(1)> & Co' });
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('<img');
    expect(svg).not.toContain('<x ');
    expect(svg).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; Co');
    expect(svg).toContain('id="a&quot;b-title"');
    const [bar] = elements(svg, 'rect', 'bar');
    expect(bar!['data-outcome']).toBe(escapedHostile);
    // Every element is one the chart writes: nothing the outcome carried became one.
    expect(new Set([...svg.matchAll(/<([a-z]+)[\s>/]/g)].map(([, tag]) => tag))).toEqual(new Set(['svg', 'title', 'desc', 'g', 'line', 'text', 'rect']));
    expect(svg).toContain(`<title>${escapedHostile}</title><rect`);
    // An outcome too long for the legend is cut there, whole in its tooltip.
    const long = `403 ${'A'.repeat(60)}`;
    const cut = usageChart(report([[1, 403, 'A'.repeat(60), 1]]), OPTIONS);
    expect(cut).toContain(`<title>${long}</title>`);
    expect(cut).toContain(`>${long.slice(0, 37)}…</text>`);
  });

  it('draws the same report the same way, element for element', () => {
    const rows: [number, number, string, number][] = [
      [0, 200, '', 7],
      [0, 304, '', 3],
      [6, 429, '', 2],
      [13, 404, '', 1],
    ];
    const svg = usageChart(report(rows), OPTIONS);
    expect(usageChart(report(rows), OPTIONS)).toBe(svg);
    // Its structure: title, description, axes, one group of bars per bucket with requests, a legend of each outcome.
    expect(
      [...svg.matchAll(/<(title|desc|g|rect|text) class="([^"]+)"|<(title|desc) id="[^"]+"/g)].map(([, tag, className, plain]) => (plain ? plain : `${tag}.${className}`)),
    ).toEqual([
      'title',
      'desc',
      'g.axes',
      'text.max-label',
      'text.zero-label',
      ...Array(texts(svg, 'time-label').length).fill('text.time-label'),
      'text.zone-label',
      'g.bars',
      'g.bucket',
      'rect.bar',
      'rect.bar',
      'g.bucket',
      'rect.bar',
      'g.bucket',
      'rect.bar',
      'g.legend',
      'g.legend-item legend-success',
      'g.legend-item legend-success',
      'g.legend-item legend-refusal',
      'g.legend-item legend-other',
    ]);
  });
});
