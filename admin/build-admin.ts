// Build runs as operators ask for and watch them (docs/design.md "Build runs"): the runs recorded in
// the platform database (every builder's, `marquee build`'s: records/runs/run-record.ts), this
// process's live, and a requested build queued in its runner, naming who asked for it.
import type { BuildRun, BuildRuns } from '../builder/runs/build-runs.ts';
import { currentAttribution } from './acting.ts';
import type { OrganizationDirectory } from './organization-admin.ts';

/** What a build request needs of the runner: queue now, run in its turn. */
export interface BuildQueue {
  queue(trigger: 'manual', organizationIds: string[] | undefined, requestedBy: string): { run: BuildRun; results: Promise<unknown> };
}

export interface BuildOperations {
  /** Newest first; the last 100 runs (builder/runs/build-runs.ts). */
  list(): Promise<BuildRun[]>;
  get(runId: string): Promise<BuildRun | undefined>;
  /** Queues a build of these organizations (ids or slugs; none: all), asked for by whoever acts (admin/acting.ts), and returns at once with the queued run. */
  start(organizations: readonly string[]): Promise<BuildRun>;
}

interface BuildParts {
  runs: BuildRuns;
  queue: BuildQueue;
  organizations: OrganizationDirectory;
  /** Where a failed requested build's rejection goes (it has no caller waiting for it). */
  onBuildError: (error: unknown) => void;
}

export function buildOperations({ runs, queue, organizations, onBuildError }: BuildParts): BuildOperations {
  return {
    list: () => runs.recent(),
    get: (runId) => runs.find(runId),
    start: async (names) => {
      const requestedBy = currentAttribution().actor.name;
      // Every name is checked before anything is queued: an unknown one queues nothing.
      const ids: string[] = [];
      for (const name of names) ids.push((await organizations.find(name)).id);
      const queued = queue.queue('manual', ids.length > 0 ? ids : undefined, requestedBy);
      queued.results.catch(onBuildError);
      return queued.run;
    },
  };
}
