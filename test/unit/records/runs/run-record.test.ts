// The record of runs, its pure parts: which copy of a run is shown (a live one while the record has
// it under way, the record's once it has ended), and the writer that keeps one write in flight per
// run, writes progress at most once a period, and writes results only once a run has ended.
import { describe, expect, it, vi } from 'vitest';
import type { BuildRun } from '../../../../builder/runs/build-runs.ts';
import { BuildRuns } from '../../../../builder/runs/build-runs.ts';
import { mergeRuns, type RunRecord, RunRecordWriter } from '../../../../records/runs/run-record.ts';

const run = (id: string, fields: Partial<BuildRun> = {}): BuildRun => ({
  id,
  trigger: 'manual',
  requestedBy: 'root',
  scope: 'every',
  state: 'running',
  done: 0,
  total: 2,
  skipped: 0,
  queuedAt: `2026-05-01T09:00:0${id.length}.000Z`,
  startedAt: null,
  finishedAt: null,
  organizations: [],
  ...fields,
});

/** A record in memory, each save a copy, failing while `down`. */
function memoryRecord() {
  const saved: BuildRun[] = [];
  const state = { down: false };
  const record: RunRecord<BuildRun> = {
    save: async (value) => {
      if (state.down) throw new Error('database down');
      saved.push(structuredClone(value));
    },
    list: async (limit) => {
      const latest = new Map(saved.map((value) => [value.id, value]));
      return [...latest.values()].sort((a, b) => (a.queuedAt < b.queuedAt ? 1 : -1)).slice(0, limit);
    },
    get: async (id) => saved.filter((value) => value.id === id).at(-1),
  };
  return { record, saved, state };
}

describe('mergeRuns', () => {
  it("shows the live copy of a run the record has under way, the record's once it has ended, and both sides' other runs, newest first", () => {
    const recorded = [run('aaa', { done: 1 }), run('bb', { state: 'finished', done: 2, finishedAt: '2026-05-01T09:01:00.000Z' }), run('c', { state: 'finished' })];
    const live = [run('aaa', { done: 2 }), run('bb', { state: 'finished', done: 2, finishedAt: '2026-05-01T09:01:00.123Z' }), run('dddd')];
    const merged = mergeRuns(recorded, live, 10);
    expect(merged.map((value) => value.id)).toEqual(['dddd', 'aaa', 'bb', 'c']);
    expect(merged.find((value) => value.id === 'aaa')!.done).toBe(2);
    expect(merged.find((value) => value.id === 'bb')!.finishedAt).toBe('2026-05-01T09:01:00.000Z');
    expect(mergeRuns(recorded, live, 2).map((value) => value.id)).toEqual(['dddd', 'aaa']);
  });
});

describe('RunRecordWriter', () => {
  it('writes a change at once, progress at most once a period, one write in flight, and the latest state last', async () => {
    vi.useFakeTimers();
    try {
      const { record, saved } = memoryRecord();
      const writer = new RunRecordWriter(record, () => {}, 1_000);
      writer.write(run('a', { state: 'queued' }));
      writer.write(run('a', { done: 1 }), { progress: true });
      writer.write(run('a', { done: 2 }), { progress: true });
      await vi.advanceTimersByTimeAsync(0);
      // The first write, then the latest state after it: the progress in between is never written alone.
      expect(saved.map((value) => [value.state, value.done])).toEqual([
        ['queued', 0],
        ['running', 2],
      ]);
      writer.write(run('a', { done: 3 }), { progress: true });
      await vi.advanceTimersByTimeAsync(999);
      expect(saved).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(1);
      expect(saved.at(-1)!.done).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes every run under way again each keep-alive period, changed or not, and an ended one never again', async () => {
    vi.useFakeTimers();
    try {
      const { record, saved } = memoryRecord();
      const writer = new RunRecordWriter(record, () => {}, 1_000, 30_000);
      writer.write(run('a'));
      writer.write(run('b', { state: 'finished' }));
      await vi.advanceTimersByTimeAsync(0);
      expect(saved.map((value) => value.id)).toEqual(['a', 'b']);
      await vi.advanceTimersByTimeAsync(30_000);
      expect(saved.map((value) => value.id)).toEqual(['a', 'b', 'a']);
      writer.write(run('a', { state: 'finished', done: 2 }));
      await vi.advanceTimersByTimeAsync(60_000);
      expect(saved.map((value) => [value.id, value.state])).toEqual([
        ['a', 'running'],
        ['b', 'finished'],
        ['a', 'running'],
        ['a', 'finished'],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reports a failed write and writes again at the next change; flush writes what waits', async () => {
    const { record, saved, state } = memoryRecord();
    const errors: unknown[] = [];
    const writer = new RunRecordWriter(record, (error) => errors.push(error), 60_000);
    state.down = true;
    writer.write(run('a'));
    await writer.flush();
    expect(errors).toHaveLength(1);
    state.down = false;
    writer.write(run('a', { done: 1 }), { progress: true });
    await writer.flush();
    expect(saved.map((value) => value.done)).toEqual([1]);
  });
});

describe('BuildRuns with a record', () => {
  it('writes each run with who asked for it, its results only once it ended, and lists the record merged with the live runs', async () => {
    const { record, saved } = memoryRecord();
    let clock = Date.parse('2026-05-01T09:00:00Z');
    const runs = new BuildRuns({ record, now: () => new Date((clock += 1000)) });
    const asked = runs.queued('manual', ['o1'], 'cli:ada@host');
    const scheduled = runs.queued('schedule', 'changed');
    runs.started(asked.id);
    runs.listed(asked.id, 1);
    runs.progressed(asked.id, 1, [{ id: 'o1', slug: 'one', result: 'published', snapshotId: 's1', builder: 'b1' }]);
    await runs.flush();
    expect(saved.filter((value) => value.id === asked.id).every((value) => value.organizations.length === 0)).toBe(true);
    runs.finished(asked.id);
    await runs.flush();
    expect(saved.filter((value) => value.id === asked.id).at(-1)).toMatchObject({ state: 'finished', requestedBy: 'cli:ada@host', organizations: [{ id: 'o1' }] });
    expect(saved.find((value) => value.id === scheduled.id)!.requestedBy).toBe('schedule');
    // Another process's view: the record alone.
    const elsewhere = new BuildRuns({ record });
    expect((await elsewhere.recent()).map((value) => value.id)).toEqual([scheduled.id, asked.id]);
    expect(await elsewhere.find(asked.id)).toMatchObject({ requestedBy: 'cli:ada@host', state: 'finished' });
  });
});
