// The builder's Prometheus metrics (docs/design.md "Admin API and console", GET /metrics): builds
// by result and trigger, organizations skipped as unchanged, built and verified, how long a build run takes, and how old each organization's current
// snapshot is. Registered on the process's own Registry, which bin/ serves on the admin port.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { readPointer } from '../snapshot/reader.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import type { BuildRuns } from './runs/build-runs.ts';

export interface BuilderMetricsSources {
  runs: BuildRuns;
  store: SnapshotStore;
  /** The organizations whose snapshot age is reported (the platform's, listed at scrape time). */
  organizationIds: () => Promise<string[]>;
  now?: () => Date;
}

/** Builds take from well under a second (one organization) to minutes (a full build of thousands). */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

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
  new Gauge({
    name: 'marquee_snapshot_age_seconds',
    help: "Seconds since each organization's current pointer was published (organizations never published are absent)",
    labelNames: ['organization'] as const,
    registers: [registry],
    // Computed at scrape time from the store, so it is right whoever published (another builder too).
    async collect() {
      this.reset();
      const now = (sources.now?.() ?? new Date()).getTime();
      const ids = await sources.organizationIds();
      const pointers = await Promise.all(ids.map((id) => readPointer(sources.store, id).catch(() => undefined)));
      ids.forEach((id, index) => {
        const pointer = pointers[index];
        if (pointer) this.set({ organization: id }, Math.max(0, (now - Date.parse(pointer.publishedAt)) / 1000));
      });
    },
  });
}
