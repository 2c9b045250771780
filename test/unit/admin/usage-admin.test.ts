// The range of a usage report as every door completes it (admin/usage-admin.ts usageRange): the
// defaults (the week up to the end of this hour; by hour up to a week, by day beyond), both ends
// widened to whole buckets, and the ranges refused as the operator's mistake (400 at the API, exit
// status 2 at the CLI).
import { describe, expect, it } from 'vitest';
import { UsageRangeError, usageRange } from '../../../admin/usage-admin.ts';
import { HOUR_MS } from '../../../records/usage/usage-batch.ts';
import { OperatorError } from '../../../runtime/errors.ts';

const NOW = Date.parse('2026-11-22T10:17:42.123Z');
const at = (iso: string) => new Date(iso);
const iso = ({ since, until, by }: { since: Date; until: Date; by: string }) => ({ since: since.toISOString(), until: until.toISOString(), by });

describe('usageRange', () => {
  it('asked nothing: the week up to the end of the current hour, by hour (168 buckets)', () => {
    expect(iso(usageRange({}, NOW))).toEqual({ since: '2026-11-15T11:00:00.000Z', until: '2026-11-22T11:00:00.000Z', by: 'hour' });
  });

  it('a week or less is by hour, more by day; a given `by` is kept', () => {
    expect(usageRange({ since: at('2026-11-15T11:00:00Z') }, NOW).by).toBe('hour');
    expect(usageRange({ since: at('2026-11-15T10:00:00Z') }, NOW).by).toBe('day');
    expect(usageRange({ since: at('2026-11-22T08:00:00Z'), by: 'day' }, NOW).by).toBe('day');
    expect(usageRange({ since: at('2026-10-01T00:00:00Z'), by: 'hour' }, NOW).by).toBe('hour');
  });

  it('widens both ends to whole buckets: since down, until up, so the first bucket is whole', () => {
    expect(iso(usageRange({ since: at('2026-11-22T08:30:00Z'), until: at('2026-11-22T09:10:00Z') }, NOW))).toEqual({
      since: '2026-11-22T08:00:00.000Z',
      until: '2026-11-22T10:00:00.000Z',
      by: 'hour',
    });
    expect(iso(usageRange({ since: at('2026-11-20T08:30:00Z'), by: 'day' }, NOW))).toEqual({
      since: '2026-11-20T00:00:00.000Z',
      until: '2026-11-23T00:00:00.000Z',
      by: 'day',
    });
    // An end on the boundary stays; a completed range completes to itself.
    const completed = usageRange({ since: at('2026-11-21T00:00:00Z'), until: at('2026-11-22T00:00:00Z') }, NOW);
    expect(iso(completed)).toEqual({ since: '2026-11-21T00:00:00.000Z', until: '2026-11-22T00:00:00.000Z', by: 'hour' });
    expect(usageRange(completed, NOW + 5 * HOUR_MS)).toEqual(completed);
    expect(usageRange({ until: at('1969-12-31T12:30:00Z'), since: at('1969-12-31T10:30:00Z') }, NOW).since.toISOString()).toBe('1969-12-31T10:00:00.000Z');
  });

  it('refuses a range that ends before it starts, or holds more than 2,400 buckets, as an operator error', () => {
    const refusal = (request: Parameters<typeof usageRange>[0]) => {
      try {
        usageRange(request, NOW);
      } catch (error) {
        return error;
      }
      throw new Error('not refused');
    };
    const backwards = refusal({ since: at('2026-11-22T12:00:00Z') });
    expect(backwards).toBeInstanceOf(UsageRangeError);
    expect(backwards).toBeInstanceOf(OperatorError);
    expect((backwards as Error).message).toBe('since (2026-11-22T12:00:00.000Z) must be before until (2026-11-22T11:00:00.000Z)');
    expect(refusal({ since: at('2026-11-22T10:00:00Z'), until: at('2026-11-22T10:00:00Z') })).toBeInstanceOf(UsageRangeError);
    expect((refusal({ since: at('2026-07-01T00:00:00Z'), by: 'hour' }) as Error).message).toBe(
      'a usage range by hour holds at most 2400 hours; this one holds 3467 (ask by day, or for a shorter range)',
    );
    // 100 days by hour is the most; by day, the same span is 100 buckets.
    expect(usageRange({ since: at('2026-08-14T11:00:00Z'), by: 'hour' }, NOW).by).toBe('hour');
    expect(usageRange({ since: at('2026-07-01T00:00:00Z') }, NOW).by).toBe('day');
  });
});
