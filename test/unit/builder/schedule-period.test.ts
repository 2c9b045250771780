// A schedule's period, from which SNAPSHOT_STALE_AFTER's default follows: the longest gap between its runs.
import { describe, expect, it } from 'vitest';
import { schedulePeriodMs } from '../../../builder/schedule-period.ts';

describe('schedulePeriodMs', () => {
  it('is the gap of an even schedule, and the longest gap of an uneven one', () => {
    expect(schedulePeriodMs('*/5 * * * *')).toBe(5 * 60_000);
    expect(schedulePeriodMs('0 * * * *')).toBe(3_600_000);
    // 09:00 and 17:00: 8 hours, then 16.
    expect(schedulePeriodMs('0 9,17 * * *')).toBe(16 * 3_600_000);
  });
});
