import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../../builder/runs/work-list.ts';
import { BuildRuns } from '../../../builder/runs/build-runs.ts';

const result = (id: string, outcome: RunResult['result']): RunResult => ({
  id,
  slug: `org-${id}`,
  result: outcome,
  ...(outcome === 'failed' ? { error: `organization ${id}: read failed` } : { snapshotId: `snap-${id}` }),
  builder: 'builder-1',
});

describe('the registry of build runs', () => {
  it('follows a run from queued through running to finished, with build --json results', () => {
    let clock = Date.parse('2026-05-01T09:00:00Z');
    const runs = new BuildRuns({ now: () => new Date(clock) });
    const finished: Array<[string, number]> = [];
    runs.onFinished((run, seconds) => finished.push([run.id, seconds]));
    const queued = runs.queued('manual', ['a', 'b']);
    expect(queued).toMatchObject({ trigger: 'manual', scope: 'named', state: 'queued', done: 0, total: 2, startedAt: null, finishedAt: null, organizations: [] });
    clock += 1000;
    runs.started(queued.id);
    // A run of the changed organizations is queued with a total of 0, and has one once it has
    // selected them, with the number it skipped as unchanged.
    const changed = runs.queued('schedule', 'changed');
    expect(changed).toMatchObject({ scope: 'changed', total: 0, skipped: 0 });
    runs.started(changed.id);
    runs.listed(changed.id, 10, 990);
    expect(runs.get(changed.id)).toMatchObject({ state: 'running', done: 0, total: 10, skipped: 990 });
    runs.progressed(queued.id, 1, [result('a', 'published')]);
    // A copy: what was handed out before does not change.
    expect(queued.state).toBe('queued');
    expect(runs.get(queued.id)).toMatchObject({ state: 'running', done: 1, total: 2, organizations: [{ id: 'a', slug: 'org-a', result: 'published', snapshotId: 'snap-a' }] });
    clock += 2500;
    runs.progressed(queued.id, 2, [result('b', 'failed')]);
    runs.finished(queued.id);
    const run = runs.get(queued.id)!;
    expect(run).toMatchObject({ state: 'finished', done: 2, total: 2, startedAt: '2026-05-01T09:00:01.000Z', finishedAt: '2026-05-01T09:00:03.500Z' });
    expect(run.organizations[1]).toEqual({ id: 'b', slug: 'org-b', result: 'failed', error: 'organization b: read failed', builder: 'builder-1' });
    expect(finished).toEqual([[queued.id, 2.5]]);
  });

  it('records a run that could not build at all as failed, lists newest first, and keeps only the newest runs', () => {
    const runs = new BuildRuns({ kept: 3 });
    const ids = ['schedule', 'change', 'manual', 'start'].map((trigger) => runs.queued(trigger as 'manual', 'every').id);
    runs.started(ids[3]!);
    runs.finished(ids[3]!, { error: 'the database could not be reached' });
    expect(runs.list().map((run) => run.id)).toEqual([ids[3], ids[2], ids[1]]);
    expect(runs.get(ids[0]!)).toBeUndefined();
    expect(runs.get(ids[3]!)).toMatchObject({ state: 'failed', error: 'the database could not be reached', organizations: [] });
  });

  it('never calls a run finished while an organization it listed has no result: it is failed, saying how many, and counted as failed', () => {
    const runs = new BuildRuns();
    const ended: string[] = [];
    runs.onFinished((run) => ended.push(run.state));
    const run = runs.queued('manual', 'every');
    runs.started(run.id);
    runs.listed(run.id, 3000);
    runs.progressed(run.id, 304, [result('a', 'published')]);
    runs.finished(run.id);
    expect(runs.get(run.id)).toMatchObject({ state: 'failed', done: 304, total: 3000, error: '2696 of 3000 organizations have no result' });
    expect(ended).toEqual(['failed']);
  });
});
