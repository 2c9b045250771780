// Keys' last use: noted in memory per request, reported to the store as instants, at most once per
// interval and at close, and kept for the next report when the store fails.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeyUseRecorder } from '../../../../gateway/access/key-uses.ts';
import { RecordingLog } from '../../../support/recording-log.ts';

const T0 = Date.UTC(2026, 4, 1, 9, 0, 0);

/** A store that records each report as id → ISO instant. */
function reports(fail = () => false) {
  const seen: Array<Record<string, string>> = [];
  return {
    seen,
    async recordUse(lastUsed: ReadonlyMap<string, Date>) {
      if (fail()) throw new Error('store down');
      seen.push(Object.fromEntries([...lastUsed].map(([id, at]) => [id, at.toISOString()])));
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('KeyUseRecorder', () => {
  it('reports the instant of the latest use per key, unrounded, once per interval, nothing when nothing was used', async () => {
    vi.useFakeTimers();
    const store = reports();
    const recorder = new KeyUseRecorder(store, { log: new RecordingLog(), intervalMs: 60_000 });
    recorder.note('key_a', T0 + 5_000);
    recorder.note('key_b', T0 + 30_000);
    recorder.note('key_a', T0 + 61_000);
    expect(store.seen).toEqual([]);
    await vi.advanceTimersByTimeAsync(60_000);
    // Never rounded down: a key created at 09:00:20 and used at 09:00:30 must not read as used at 09:00.
    expect(store.seen).toEqual([{ key_a: '2026-05-01T09:01:01.000Z', key_b: '2026-05-01T09:00:30.000Z' }]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(store.seen).toHaveLength(1);
    recorder.note('key_b', T0 + 120_250);
    await recorder.close();
    expect(store.seen).toEqual([{ key_a: '2026-05-01T09:01:01.000Z', key_b: '2026-05-01T09:00:30.000Z' }, { key_b: '2026-05-01T09:02:00.250Z' }]);
    // Closed: no timer reports anymore.
    recorder.note('key_c', T0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(store.seen).toHaveLength(2);
  });

  it('keeps what a failed report carried for the next one, with a warning', async () => {
    let down = true;
    const store = reports(() => down);
    const log = new RecordingLog();
    const recorder = new KeyUseRecorder(store, { log, intervalMs: 60_000 });
    recorder.note('key_a', T0);
    await recorder.flush();
    expect(log.lines.map(({ level }) => level)).toEqual(['warn']);
    recorder.note('key_b', T0 + 60_000);
    down = false;
    await recorder.close();
    expect(store.seen).toEqual([{ key_a: '2026-05-01T09:00:00.000Z', key_b: '2026-05-01T09:01:00.000Z' }]);
  });

  it('reports at once when maxPending keys are noted, and keeps at most maxPending while the store refuses', async () => {
    let down = false;
    const store = reports(() => down);
    const log = new RecordingLog();
    const recorder = new KeyUseRecorder(store, { log, intervalMs: 60_000, maxPending: 3 });
    recorder.note('key_a', T0);
    recorder.note('key_b', T0);
    expect(store.seen).toEqual([]);
    recorder.note('key_c', T0);
    await expect.poll(() => store.seen).toEqual([{ key_a: '2026-05-01T09:00:00.000Z', key_b: '2026-05-01T09:00:00.000Z', key_c: '2026-05-01T09:00:00.000Z' }]);
    down = true;
    for (const id of ['key_d', 'key_e', 'key_f', 'key_g', 'key_h']) recorder.note(id, T0);
    await recorder.flush();
    expect(recorder.pending).toBeLessThanOrEqual(3);
    down = false;
    await recorder.close();
    expect(store.seen.length).toBeGreaterThan(1);
  });

  it('hands a report to the store a chunk at a time, and keeps the chunks not reported when one fails', async () => {
    let calls = 0;
    const store = reports(() => ++calls === 3);
    const log = new RecordingLog();
    const recorder = new KeyUseRecorder(store, { log, intervalMs: 60_000, chunkSize: 2 });
    for (const id of ['key_a', 'key_b', 'key_c', 'key_d', 'key_e', 'key_f']) recorder.note(id, T0);
    await recorder.flush();
    expect(store.seen.map((report) => Object.keys(report))).toEqual([
      ['key_a', 'key_b'],
      ['key_c', 'key_d'],
    ]);
    expect(recorder.pending).toBe(2);
    expect(log.lines).toMatchObject([{ level: 'warn', fields: { keys: 2 } }]);
    await recorder.close();
    expect(store.seen.map((report) => Object.keys(report))).toEqual([
      ['key_a', 'key_b'],
      ['key_c', 'key_d'],
      ['key_e', 'key_f'],
    ]);
  });
});
