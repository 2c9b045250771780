// What the usage pages make of their query and of a report (admin/console/usage-view.ts): the range
// form's fields read and written back, the presets ending with the current hour, shares a reader
// can compare, and only the buckets with requests as table rows.
import { describe, expect, it } from 'vitest';
import { rangePresets, rangeQuery, reportFields, usageView } from '../../../../admin/console/usage-view.ts';
import { HOUR_MS } from '../../../../records/usage/usage-batch.ts';
import { usageReport } from '../../../../records/usage/usage-report.ts';

describe('the range form', () => {
  it('leaves every field left empty to the services, and reads instants with their zone', () => {
    expect(rangeQuery({})).toEqual({ fields: { since: '', until: '', by: '' }, request: {} });
    expect(rangeQuery({ since: ' 2026-11-20T12:00:00+02:00 ', by: 'day' })).toEqual({
      fields: { since: '2026-11-20T12:00:00+02:00', until: '', by: 'day' },
      request: { since: new Date('2026-11-20T10:00:00Z'), by: 'day' },
    });
  });

  it('refuses an instant without a zone, and a granularity it does not know, keeping what was typed', () => {
    expect(rangeQuery({ until: '2026-11-20T12:00' })).toEqual({
      fields: { since: '', until: '2026-11-20T12:00', by: '' },
      error: 'until 2026-11-20T12:00 is not an ISO 8601 instant with a zone (2026-03-01T12:00:00Z)',
    });
    expect(rangeQuery({ by: 'minute' })).toMatchObject({ error: 'by is hour or day, not minute' });
    // A repeated parameter is not text: as if left out.
    expect(rangeQuery({ since: ['a', 'b'] })).toEqual({ fields: { since: '', until: '', by: '' }, request: {} });
  });

  it("writes a report's range back without milliseconds, and offers ranges ending with the current hour", () => {
    expect(reportFields({ since: '2026-11-15T11:00:00.000Z', until: '2026-11-22T11:00:00.000Z', by: 'hour' })).toEqual({
      since: '2026-11-15T11:00:00Z',
      until: '2026-11-22T11:00:00Z',
      by: 'hour',
    });
    const presets = rangePresets(new Date('2026-11-22T10:59:59.999Z'));
    expect(presets.map(({ label }) => label)).toEqual(['Last 24 hours', 'Last 7 days', 'Last 30 days', 'Last 90 days']);
    expect(Object.fromEntries(new URLSearchParams(presets[2]!.query))).toEqual({ since: '2026-10-23T11:00:00Z', until: '2026-11-22T11:00:00Z', by: 'day' });
  });
});

describe('a report as the page shows it', () => {
  const since = Date.UTC(2026, 10, 22);
  const report = usageReport(
    { keyId: 'key_1' },
    { since: new Date(since), until: new Date(since + 24 * HOUR_MS), by: 'hour' },
    [
      { hour: since + HOUR_MS, keyId: 'key_1', route: '/events', status: 200, errorCode: '', requests: 2999 },
      { hour: since + 5 * HOUR_MS, keyId: 'key_1', route: '/events', status: 200, errorCode: '', requests: 1000 },
      { hour: since + 5 * HOUR_MS, keyId: 'key_1', route: '/team', status: 401, errorCode: '', requests: 1 },
    ],
    [{ origin: '', requests: 1 }],
  );

  it("writes counts with separators, shares to a tenth of a percent (never 0 % for some, nor 100 % for not all), outcomes in the chart's order", () => {
    const view = usageView(report);
    expect(view.requests).toBe('4,000');
    expect(view.outcomes.map(({ outcome, kind, requests, share }) => [outcome, kind, requests, share])).toEqual([
      ['200', 'answered', '3,999', '> 99.9 %'],
      ['401', 'refused', '1', '< 0.1 %'],
    ]);
    expect(view.refusedOrigins).toEqual([{ origin: null, requests: '1' }]);
  });

  it('makes a table row of each bucket with requests only', () => {
    expect(usageView(report).buckets).toEqual([
      { start: '2026-11-22T01:00:00.000Z', text: '22 Nov 2026 01:00', requests: '2,999', outcomes: ['2,999', '0'] },
      { start: '2026-11-22T05:00:00.000Z', text: '22 Nov 2026 05:00', requests: '1,001', outcomes: ['1,000', '1'] },
    ]);
  });
});
