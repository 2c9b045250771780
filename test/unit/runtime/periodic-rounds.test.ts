// PeriodicRounds: a round now, then one per interval after each ends; never two at once; none after stop.
import { describe, expect, it, vi } from 'vitest';
import { PeriodicRounds } from '../../../runtime/periodic-rounds.ts';

describe('PeriodicRounds', () => {
  it('runs a round at start and one per interval after each ends, one at a time, and none once stopped', async () => {
    vi.useFakeTimers();
    try {
      let active = 0;
      let most = 0;
      let count = 0;
      let release: (() => void) | undefined;
      const rounds = new PeriodicRounds(async () => {
        active++;
        most = Math.max(most, active);
        count++;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        active--;
        return count;
      }, 1000);
      rounds.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(count).toBe(1);
      // Asked for while the first runs: it waits for it.
      const asked = rounds.now();
      await vi.advanceTimersByTimeAsync(5000);
      expect(count).toBe(1);
      release!();
      await vi.advanceTimersByTimeAsync(0);
      expect(count).toBe(2);
      release!();
      expect(await asked).toBe(2);
      // The timer's next round comes an interval after the first ended, not before.
      await vi.advanceTimersByTimeAsync(999);
      expect(count).toBe(2);
      await vi.advanceTimersByTimeAsync(1);
      expect(count).toBe(3);
      // Stopped while a round runs: stop waits for it, and the timer never fires again.
      const stopping = rounds.stop();
      release!();
      await stopping;
      await vi.advanceTimersByTimeAsync(10_000);
      expect(count).toBe(3);
      expect(most).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
