// The builder's /metrics count, per finished run, the organizations it skipped as unchanged, built
// and verified (docs/operation.md "Metrics").
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../../builder/runs/work-list.ts';
import { registerBuilderMetrics } from '../../../builder/metrics.ts';
import { BuildRuns } from '../../../builder/runs/build-runs.ts';

const result = (id: string, verified = false): RunResult => ({
  id,
  slug: `org-${id}`,
  result: 'unchanged',
  builder: 'builder-1',
  ...(verified ? { verified: true as const } : {}),
});

describe('builder metrics', () => {
  it('count the organizations a run skipped, built and verified, by trigger', async () => {
    const registry = new Registry();
    const runs = new BuildRuns();
    registerBuilderMetrics(registry, { runs });
    const scheduled = runs.queued('schedule', 'changed');
    runs.started(scheduled.id);
    runs.listed(scheduled.id, 3, 97);
    runs.progressed(scheduled.id, 3, [result('a'), result('b', true), result('c', true)]);
    runs.finished(scheduled.id);
    const asked = runs.queued('manual', 'every');
    runs.progressed(asked.id, 2, [result('a'), result('b')]);
    runs.finished(asked.id);

    const counted = (await registry.getSingleMetric('marquee_build_organizations_total')!.get()).values;
    const value = (selection: string, trigger: string) => counted.find((v) => v.labels.selection === selection && v.labels.trigger === trigger)?.value;
    expect([value('skipped', 'schedule'), value('built', 'schedule'), value('verified', 'schedule')]).toEqual([97, 1, 2]);
    expect([value('skipped', 'manual'), value('built', 'manual'), value('verified', 'manual')]).toEqual([0, 2, 0]);
  });

  it('start every failure series at 0, so that the first failure is an increase the alerts see', async () => {
    const registry = new Registry();
    registerBuilderMetrics(registry, { runs: new BuildRuns() });
    const builds = (await registry.getSingleMetric('marquee_builds_total')!.get()).values;
    const runs = (await registry.getSingleMetric('marquee_build_runs_failed_total')!.get()).values;
    for (const trigger of ['manual', 'schedule', 'change', 'start']) {
      expect(builds).toContainEqual({ labels: { result: 'failed', trigger }, value: 0 });
      expect(runs).toContainEqual({ labels: { trigger }, value: 0 });
    }
  });
});
