import { describe, expect, it } from 'vitest';
import { StoreBackoff } from '../../../../gateway/snapshot-cache/store-backoff.ts';

function setup() {
  const time = { now: 0 };
  const backoff = new StoreBackoff({ firstPauseMs: 1000, longestPauseMs: 4000, now: () => time.now });
  return { time, backoff };
}

describe('StoreBackoff', () => {
  it('lets every re-read through while the store answers', () => {
    const { backoff } = setup();
    expect([backoff.mayReread(), backoff.mayReread(), backoff.mayReread()]).toEqual([true, true, true]);
  });

  it('after a failure, holds re-reads back for the pause, then lets one probe through until it is answered', () => {
    const { time, backoff } = setup();
    backoff.unreachable();
    time.now = 999;
    expect(backoff.mayReread()).toBe(false);
    time.now = 1000;
    expect(backoff.mayReread()).toBe(true);
    expect(backoff.mayReread()).toBe(false);
    time.now = 60_000;
    expect(backoff.mayReread()).toBe(false);
    backoff.answered();
    expect([backoff.mayReread(), backoff.mayReread()]).toEqual([true, true]);
  });

  it('doubles the pause with each failure up to the longest, and starts again from the first once answered', () => {
    const { time, backoff } = setup();
    const pauses: number[] = [];
    for (let failure = 0; failure < 5; failure++) {
      const failedAt = time.now;
      backoff.unreachable();
      while (!backoff.mayReread()) time.now += 100;
      pauses.push(time.now - failedAt);
    }
    expect(pauses).toEqual([1000, 2000, 4000, 4000, 4000]);
    backoff.answered();
    const failedAt = time.now;
    backoff.unreachable();
    while (!backoff.mayReread()) time.now += 100;
    expect(time.now - failedAt).toBe(1000);
  });
});
