// Build runs as operators ask for and watch them (docs/design.md "Build runs"): the runs this
// process keeps, and a requested build queued in its runner. Only a running builder (or start)
// has a runner: `marquee build` builds in its own process and has no runs to list.
import type { BuildRun, BuildRuns } from '../builder/runs/build-runs.ts';
import type { OrganizationDirectory } from './organization-admin.ts';

/** What a build request needs of the runner: queue now, run in its turn. */
export interface BuildQueue {
  queue(trigger: 'manual', organizationIds?: string[]): { run: BuildRun; results: Promise<unknown> };
}

export interface BuildOperations {
  /** Newest first; the last runs only (builder/runs/build-runs.ts). */
  list(): BuildRun[];
  get(runId: string): BuildRun | undefined;
  /** Queues a build of these organizations (ids or slugs; none: all) and returns at once with the queued run. */
  start(organizations?: readonly string[]): Promise<BuildRun>;
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
    list: () => runs.list(),
    get: (runId) => runs.get(runId),
    start: async (names = []) => {
      // Every name is checked before anything is queued: an unknown one queues nothing.
      const ids: string[] = [];
      for (const name of names) ids.push((await organizations.find(name)).id);
      const queued = queue.queue('manual', ids.length > 0 ? ids : undefined);
      queued.results.catch(onBuildError);
      return queued.run;
    },
  };
}
