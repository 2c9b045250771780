import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BackendRetries } from '../../../../builder/runs/backend-retries.ts';

function setup() {
  const rebuilt: string[] = [];
  const retries = new BackendRetries({ rebuild: (id) => rebuilt.push(id), firstPauseMs: 1_000, longestPauseMs: 8_000 });
  return { rebuilt, retries };
}

describe('BackendRetries', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('builds one waiting organization as a probe after the pause, however many wait', () => {
    const { rebuilt, retries } = setup();
    for (let n = 0; n < 1_000; n++) retries.unavailable(`org-${n}`);
    vi.advanceTimersByTime(999);
    expect(rebuilt).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(rebuilt).toEqual(['org-0']);
    vi.advanceTimersByTime(60_000);
    expect(rebuilt).toEqual(['org-0']);
  });

  it('builds every waiting organization once the probe succeeds, and nothing after', () => {
    const { rebuilt, retries } = setup();
    for (const id of ['a', 'b', 'c']) retries.unavailable(id);
    vi.advanceTimersByTime(1_000);
    retries.built('a');
    expect(rebuilt).toEqual(['a', 'b', 'c']);
    vi.advanceTimersByTime(60_000);
    expect(rebuilt).toEqual(['a', 'b', 'c']);
  });

  it('doubles the pause after each failed probe up to the longest, and starts from the first again after a success', () => {
    const { rebuilt, retries } = setup();
    const probesAt: number[] = [];
    const started = Date.now();
    retries.unavailable('a');
    retries.unavailable('b');
    for (let probe = 0; probe < 5; probe++) {
      while (rebuilt.length === probe) vi.advanceTimersByTime(100);
      probesAt.push(Date.now() - started);
      retries.unavailable(rebuilt[probe]!);
    }
    expect(probesAt).toEqual([1_000, 3_000, 7_000, 15_000, 23_000]);
    retries.built('b');
    retries.unavailable('c');
    const failedAt = Date.now();
    while (rebuilt.at(-1) !== 'c') vi.advanceTimersByTime(100);
    expect(Date.now() - failedAt).toBe(1_000);
  });

  it('builds every waiting organization when any other build succeeds meanwhile', () => {
    const { rebuilt, retries } = setup();
    retries.unavailable('a');
    retries.unavailable('b');
    retries.built('unrelated');
    expect(rebuilt).toEqual(['a', 'b']);
    vi.advanceTimersByTime(60_000);
    expect(rebuilt).toEqual(['a', 'b']);
  });

  it('forgets an organization that another attempt cannot mend; when it was the probe, the next one probes after the same pause', () => {
    const { rebuilt, retries } = setup();
    retries.unavailable('a');
    retries.unavailable('b');
    vi.advanceTimersByTime(1_000);
    expect(rebuilt).toEqual(['a']);
    retries.abandoned('a');
    vi.advanceTimersByTime(1_000);
    expect(rebuilt).toEqual(['a', 'b']);
    retries.built('b');
    expect(rebuilt).toEqual(['a', 'b']);
  });

  it('after stop, neither probes nor remembers', () => {
    const { rebuilt, retries } = setup();
    retries.unavailable('a');
    retries.stop();
    retries.unavailable('b');
    vi.advanceTimersByTime(60_000);
    expect(rebuilt).toEqual([]);
  });
});
