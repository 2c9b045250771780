// The builder's Prometheus metrics (docs/design.md "Admin API and console", GET /metrics): builds
// by result and trigger, organizations skipped as unchanged, built and verified, and how long a
// build run takes. Registered on the process's own Registry, which bin/ serves on the admin port.
// No series per organization: how far the fleet's snapshots lag is two figures for the whole
// store (fleet-figures.ts), so the series stay as many at 100,000 organizations as at one.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { BuildRuns } from './runs/build-runs.ts';
import type { BuildTrigger } from '../snapshot/manifest.ts';

export interface BuilderMetricsSources {
  runs: BuildRuns;
}

/** Builds take from well under a second (one organization) to minutes (a full build of thousands). */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Every trigger (a record, so that a trigger the manifest's schema gains fails to compile here), for the failure series at 0 below. */
const TRIGGERS = Object.keys({ manual: true, schedule: true, change: true, start: true } satisfies Record<BuildTrigger, true>) as BuildTrigger[];

export function registerBuilderMetrics(registry: Registry, sources: BuilderMetricsSources): void {
  const builds = new Counter({
    name: 'marquee_builds_total',
    help: 'Organization builds by result (published, unchanged, suspended, failed) and by what triggered the run',
    labelNames: ['result', 'trigger'] as const,
    registers: [registry],
  });
  const selected = new Counter({
    name: 'marquee_build_organizations_total',
    help: 'Organizations per finished run: skipped (unchanged since last built, not read), built (changed or asked for), verified (built in full by the rolling verification), by trigger',
    labelNames: ['selection', 'trigger'] as const,
    registers: [registry],
  });
  const failedRuns = new Counter({
    name: 'marquee_build_runs_failed_total',
    help: 'Build runs that ended failed, without a result for every organization (they could not list them, or lost their work list), by trigger',
    labelNames: ['trigger'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'marquee_build_duration_seconds',
    help: 'How long a build run took from its start to its last organization, by trigger',
    labelNames: ['trigger'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  // A counter's first value is no increase to Prometheus: without its series at 0 from the start,
  // the first failed build or run would not raise the alerts on increase() (deploy/prometheus).
  for (const trigger of TRIGGERS) {
    builds.inc({ result: 'failed', trigger }, 0);
    failedRuns.inc({ trigger }, 0);
  }
  sources.runs.onFinished((run, seconds) => {
    if (run.state === 'failed') failedRuns.inc({ trigger: run.trigger });
    let verified = 0;
    for (const organization of run.organizations) {
      builds.inc({ result: organization.result, trigger: run.trigger });
      if (organization.verified) verified++;
    }
    selected.inc({ selection: 'skipped', trigger: run.trigger }, run.skipped);
    selected.inc({ selection: 'built', trigger: run.trigger }, run.organizations.length - verified);
    selected.inc({ selection: 'verified', trigger: run.trigger }, verified);
    duration.observe({ trigger: run.trigger }, seconds);
  });
}
