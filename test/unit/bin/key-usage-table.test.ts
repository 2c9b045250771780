// How `keys usage` prints a report for a person and for a spreadsheet (bin/commands/key-usage-table.ts):
// the buckets with requests, an outcome a column in status order, a total, then routes, keys and
// refused origins; CSV a row per bucket and outcome under its header, quoted where RFC 4180 says.
import { describe, expect, it } from 'vitest';
import { USAGE_CSV_HEADER, usageCsv, usageTable } from '../../../bin/commands/key-usage-table.ts';
import { HOUR_MS } from '../../../records/usage/usage-batch.ts';
import { type UsageRow, usageReport } from '../../../records/usage/usage-report.ts';

const SINCE = Date.parse('2026-11-22T10:00:00Z');
const range = { since: new Date(SINCE), until: new Date(SINCE + 4 * HOUR_MS), by: 'hour' as const };
const row = (hour: number, status: number, requests: number, { errorCode = '', route = '/api/integration/v1/events', keyId = 'key_a' } = {}): UsageRow => ({
  hour: SINCE + hour * HOUR_MS,
  keyId,
  route,
  status,
  errorCode,
  requests,
});

const ROWS = [
  row(0, 200, 12),
  row(0, 429, 3),
  row(2, 403, 1, { errorCode: 'API_KEY_ORIGIN_NOT_ALLOWED', route: '/api/integration/v1/organization' }),
  row(2, 304, 5),
  row(2, 200, 1, { route: '/api/integration/v1/organization' }),
];

describe('usageTable', () => {
  it('lists the hours with requests, the outcomes in status order as columns, the totals, then routes and refused origins', () => {
    const report = usageReport({ keyId: 'key_a' }, range, ROWS, [
      { origin: 'https://elsewhere.example', requests: 1 },
      { origin: '', requests: 2 },
    ]);
    expect(usageTable(report, 'key_a')).toEqual([
      'key_a: 22 requests from 2026-11-22T10:00:00.000Z to 2026-11-22T14:00:00.000Z',
      'start (UTC, by hour)  requests  200  304  403 API_KEY_ORIGIN_NOT_ALLOWED  429',
      '2026-11-22 10:00            15   12    0                               0    3',
      '2026-11-22 12:00             7    1    5                               1    0',
      'total                       22   13    5                               1    3',
      '(2 hours without requests not shown)',
      '',
      'routes:',
      '  /api/integration/v1/events        20',
      '  /api/integration/v1/organization   2',
      '',
      'refused origins (403 API_KEY_ORIGIN_NOT_ALLOWED):',
      '  (others)                   2',
      '  https://elsewhere.example  1',
    ]);
  });

  it("lists an organization's keys, and days as dates", () => {
    const days = { since: new Date(Date.parse('2026-11-20T00:00:00Z')), until: new Date(Date.parse('2026-11-23T00:00:00Z')), by: 'day' as const };
    const report = usageReport({ organizationId: 'org' }, days, [row(0, 200, 2, { keyId: 'key_b' }), row(1, 200, 1)], []);
    const table = usageTable(report, 'organization nordic-dev');
    expect(table.slice(0, 4)).toEqual([
      'organization nordic-dev: 3 requests from 2026-11-20T00:00:00.000Z to 2026-11-23T00:00:00.000Z',
      'start (UTC, by day)  requests  200',
      '2026-11-22                  3    3',
      'total                       3    3',
    ]);
    expect(table.slice(-4)).toEqual(['', 'keys:', '  key_b  2', '  key_a  1']);
  });

  it('says so in one line when there were no requests', () => {
    expect(usageTable(usageReport({ keyId: 'key_a' }, range, [], []), 'key_a')).toEqual(['key_a: no requests from 2026-11-22T10:00:00.000Z to 2026-11-22T14:00:00.000Z']);
  });

  it('says "1 request", not "1 requests"', () => {
    expect(usageTable(usageReport({ keyId: 'key_a' }, range, [row(1, 200, 1)], []), 'key_a')[0]).toBe('key_a: 1 request from 2026-11-22T10:00:00.000Z to 2026-11-22T14:00:00.000Z');
  });
});

describe('usageCsv', () => {
  it('has its header, then a row per bucket and outcome that had requests, in time and status order', () => {
    expect(usageCsv(usageReport({ keyId: 'key_a' }, range, ROWS, []))).toEqual([
      USAGE_CSV_HEADER,
      '2026-11-22T10:00:00.000Z,200,12',
      '2026-11-22T10:00:00.000Z,429,3',
      '2026-11-22T12:00:00.000Z,200,1',
      '2026-11-22T12:00:00.000Z,304,5',
      '2026-11-22T12:00:00.000Z,403 API_KEY_ORIGIN_NOT_ALLOWED,1',
    ]);
    expect(USAGE_CSV_HEADER).toBe('start,outcome,requests');
  });

  it('is the header alone without requests, and quotes a field with a comma or a quote', () => {
    expect(usageCsv(usageReport({ keyId: 'key_a' }, range, [], []))).toEqual([USAGE_CSV_HEADER]);
    const odd = usageReport({ keyId: 'key_a' }, range, [row(0, 403, 1, { errorCode: 'A,"B"' })], []);
    expect(usageCsv(odd)[1]).toBe('2026-11-22T10:00:00.000Z,"403 A,""B""",1');
  });
});
