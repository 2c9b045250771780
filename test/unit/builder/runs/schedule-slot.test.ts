// The slot a builder's start-up run claims (builder/runs/schedule-slot.ts): the instant the schedule's
// current period began, as node-cron's own matcher reads the expression, in local time.
import { describe, expect, it } from 'vitest';
import { currentSlot } from '../../../../builder/runs/schedule-slot.ts';

const local = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0) => new Date(year, month - 1, day, hour, minute, second);

describe('currentSlot', () => {
  it('is the latest instant at or before now that the expression matches', () => {
    expect(currentSlot('*/5 * * * *', local(2026, 12, 2, 10, 7, 30))).toEqual(local(2026, 12, 2, 10, 5));
    // At the slot itself, the period it begins.
    expect(currentSlot('*/5 * * * *', local(2026, 12, 2, 10, 5))).toEqual(local(2026, 12, 2, 10, 5));
    expect(currentSlot('*/3 * * * * *', local(2026, 12, 2, 10, 5, 5))).toEqual(local(2026, 12, 2, 10, 5, 3));
  });

  it('goes back to an earlier day when today’s first slot is still to come, whatever the month', () => {
    expect(currentSlot('30 3 * * *', local(2026, 12, 2, 1, 0))).toEqual(local(2026, 12, 1, 3, 30));
    expect(currentSlot('0 9,17 * * *', local(2026, 12, 1, 8, 59))).toEqual(local(2026, 11, 30, 17, 0));
    // Mondays only: 2026-11-30 is one.
    expect(currentSlot('0 6 * * 1', local(2026, 12, 5, 12, 0))).toEqual(local(2026, 11, 30, 6, 0));
  });

  it('has none for a period longer than it looks back (a yearly schedule)', () => {
    expect(currentSlot('0 0 1 1 *', local(2026, 12, 2, 10, 0))).toBeUndefined();
  });
});
