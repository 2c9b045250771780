// The chaos campaign's schedule (scripts/chaos/schedule.ts): replayable from its seed, crowded
// enough that faults come together, and never two faults on one resource at once.
import { describe, expect, it } from 'vitest';
import { drawSchedule, drawSchedules, overlaps, POINTER_WAIT_MS, resourcesOf, type ScheduledFault } from '../../../scripts/chaos/schedule.ts';

const THIRTY_MINUTES = 30 * 60_000;

describe('the chaos schedule', () => {
  it('is the same for the same seed, and another for another seed', () => {
    expect(drawSchedule(42, THIRTY_MINUTES)).toEqual(drawSchedule(42, THIRTY_MINUTES));
    expect(drawSchedule(43, THIRTY_MINUTES)).not.toEqual(drawSchedule(42, THIRTY_MINUTES));
  });

  it('draws at least 200 faults in 30 minutes, of every kind, many of them overlapping', () => {
    const faults = drawSchedule(7, THIRTY_MINUTES);
    expect(faults.length).toBeGreaterThanOrEqual(200);
    expect(new Set(faults.map((fault) => fault.kind))).toEqual(
      new Set(['kill', 'kill-at-pointer', 'pause', 'redis-restart-empty', 'redis-flush', 'postgres-restart', 'halt', 'slow', 'latency', 'reset', 'blackhole']),
    );
    expect(overlaps(faults)).toBeGreaterThanOrEqual(50);
  });

  it('makes a short campaign overlap too', () => {
    for (const seed of [1, 2, 3]) expect(overlaps(drawSchedule(seed, 90_000))).toBeGreaterThan(0);
  });

  it('never holds one resource with two faults at once, a kill at the pointer for its whole wait too', () => {
    const faults = drawSchedule(11, THIRTY_MINUTES);
    const lasts = (fault: ScheduledFault) => (fault.kind === 'kill-at-pointer' ? POINTER_WAIT_MS : 0) + fault.durationMs;
    for (const [i, a] of faults.entries()) {
      for (const b of faults.slice(i + 1)) {
        const shared = resourcesOf(a).filter((resource) => resourcesOf(b).includes(resource));
        if (shared.length > 0) expect(b.at, `faults ${a.id} and ${b.id} share ${shared.join(', ')}`).toBeGreaterThanOrEqual(a.at + lasts(a));
      }
    }
  });

  it("opens every schedule with a builder killed at its pointer write, the seed's builder, holding its link to the store", () => {
    for (const seed of [20261126, 1354108289]) {
      const [first] = drawSchedule(seed, 22_500);
      expect(first).toMatchObject({ kind: 'kill-at-pointer', target: `builder-${(seed % 2) + 1}`, at: 0 });
      expect(resourcesOf(first!)).toEqual([first!.target, `${first!.target}→store`]);
    }
    const parts = drawSchedules([20261126, 1354108289], 45_000).filter((fault) => fault.kind === 'kill-at-pointer');
    expect(parts.map((fault) => fault.at)).toEqual(expect.arrayContaining([0, 22_500]));
  });

  it('gives each seed of a campaign its part of the window, each part drawn from its own seed', () => {
    const both = drawSchedules([5, 9], 120_000);
    const first = drawSchedule(5, 60_000);
    const second = drawSchedule(9, 60_000);
    expect(both).toEqual([...first, ...second.map((fault) => ({ ...fault, id: 1_000 + fault.id, at: 60_000 + fault.at }))]);
    expect(drawSchedules([5], 120_000)).toEqual(drawSchedule(5, 120_000));
  });
});
