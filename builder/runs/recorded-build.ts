// One build as operators see it: a run in the registry (builder/runs/build-runs.ts) going from
// queued to running, with its progress, to finished, and lines in the process's log — one per
// organization that changed or failed, and one summary for a run over the fleet (how many it
// skipped as unchanged, built, and verified). Here change builds, which one builder runs alone;
// runs over the fleet are divided among builders (divided-run.ts) and report the same way.
import { describeError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import type { BuildTrigger } from '../../snapshot/manifest.ts';
import { type BuildContext, buildOrganizations, type OrganizationResult } from '../build.ts';
import type { BuildRuns } from './build-runs.ts';
import { runResult } from './run-share.ts';
import type { RunResult } from './work-list.ts';

export interface RecordedBuildParts {
  context: BuildContext;
  runs: BuildRuns;
  log: Log;
  /** BUILDER_NAME, named in each result. */
  builder: string;
}

/** Builds the organizations named as the run `runId`, queued by the caller, in this process alone (a change build). */
export async function recordedBuild(
  { context, runs, log, builder }: RecordedBuildParts,
  trigger: BuildTrigger,
  organizationIds: readonly string[],
  runId: string,
): Promise<OrganizationResult[]> {
  runs.started(runId);
  let results: OrganizationResult[];
  try {
    results = await buildOrganizations(context, {
      trigger,
      organizationIds,
      onListed: (total) => runs.listed(runId, total),
      onProgress: (done, _total, last) => runs.progressed(runId, done, [runResult(last, builder)]),
    });
  } catch (error) {
    runs.finished(runId, { error: describeError(error) });
    throw error;
  }
  runs.finished(runId);
  for (const result of results) reportResult(log, trigger, result);
  return results;
}

/** A build that could not run at all (the organizations could not be listed): nothing was published. */
export function reportUnbuilt(log: Log, trigger: BuildTrigger, error: unknown): void {
  log.error(`${trigger} build failed`, { trigger, err: error });
}

/** A failure is a warning (the organization keeps its previous snapshot); a change is news; unchanged is neither. */
export function reportResult(log: Log, trigger: BuildTrigger, result: OrganizationResult): void {
  const fields = { trigger, organizationId: result.id, slug: result.slug };
  if (result.result === 'failed') {
    log.warn(`${result.slug}: build failed: ${result.error}`, { ...fields, stage: result.failure?.stage, resource: result.failure?.resource });
  } else if (result.warning !== undefined) {
    log.warn(`${result.slug}: ${result.result}, but ${result.warning}`, { ...fields, result: result.result, snapshotId: result.snapshotId });
  } else if (result.result !== 'unchanged') {
    log.info(`${result.slug}: ${result.result}${result.snapshotId ? ` ${result.snapshotId}` : ''}`, {
      ...fields,
      result: result.result,
      snapshotId: result.snapshotId,
      objectsWritten: result.objectsWritten,
    });
  }
}

/**
 * One line per run over the fleet, for an operator reading the log: how long it took, how many
 * organizations it skipped as unchanged, built and verified, and what came of those it built.
 */
export function reportRun(log: Log, trigger: BuildTrigger, results: readonly RunResult[], skipped: number, durationMs: number): void {
  const counts = { published: 0, unchanged: 0, suspended: 0, failed: 0 };
  let verified = 0;
  for (const result of results) {
    counts[result.result]++;
    if (result.verified) verified++;
  }
  const seconds = (durationMs / 1000).toFixed(1);
  const outcomes = Object.entries(counts)
    .filter(([, count]) => count > 0)
    .map(([result, count]) => `${count} ${result}`)
    .join(', ');
  const built = results.length - verified;
  const organizations = results.length + skipped;
  const selection = skipped > 0 || verified > 0 ? `${skipped} skipped as unchanged, ${built} built, ${verified} verified` : `${built} built`;
  const byBuilder: Record<string, number> = {};
  for (const result of results) byBuilder[result.builder] = (byBuilder[result.builder] ?? 0) + 1;
  const builders = Object.entries(byBuilder);
  const shares = builders.length > 1 ? `; by builder: ${builders.map(([builder, count]) => `${builder} ${count}`).join(', ')}` : '';
  log.info(`${trigger} run over ${organizations} organization${organizations === 1 ? '' : 's'} in ${seconds} s: ${selection}${outcomes ? ` (${outcomes})` : ''}${shares}`, {
    trigger,
    organizations,
    skipped,
    built,
    verified,
    byBuilder,
    durationMs: Math.round(durationMs),
    ...counts,
  });
}
