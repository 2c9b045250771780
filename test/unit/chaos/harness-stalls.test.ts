import { describe, expect, it } from 'vitest';
import { STALL_MS, stallFaults, stallsOf } from '../../../scripts/chaos/harness-stalls.ts';

describe("the campaign's own stalls", () => {
  it('finds a gap over the threshold beyond a tick, and nothing in a steady run', () => {
    expect(stallsOf([0, 50, 100, 150, 200], 50)).toEqual([]);
    // A gap of a tick plus just under the threshold is jitter, not a stall.
    expect(stallsOf([0, 50, 50 + 50 + STALL_MS - 1], 50)).toEqual([]);
    expect(stallsOf([0, 50, 8_100, 8_150, 9_000], 50)).toEqual([
      { from: 50, until: 8_100 },
      { from: 8_150, until: 9_000 },
    ]);
  });

  it('records each stall as a healed fault of every process and backend, numbered apart from the schedule', () => {
    const [fault, second] = stallFaults(
      [
        { from: 50, until: 8_100 },
        { from: 9_000, until: 9_400 },
      ],
      ['gateway-1', 'builder-1'],
    );
    expect(fault).toMatchObject({ id: 900_000, kind: 'harness-stall', startedAt: 50, healedAt: 8_100 });
    expect(second!.id).toBe(900_001);
    expect(fault!.affects).toHaveLength(10);
    expect(fault!.affects).toContainEqual({ process: 'gateway-1', backend: 'redis' });
    expect(fault!.affects).toContainEqual({ process: 'builder-1', backend: 'itself' });
  });
});
