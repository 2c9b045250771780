// One build as operators see it: a run in the registry (builder/runs/build-runs.ts) going from
// queued to running, with its progress, to finished, and lines in the process's log — one per
// organization that changed or failed, and one summary for a build of every organization.
import { describeError } from '../../snapshot/errors.ts';
import type { Log } from '../../snapshot/log.ts';
import type { BuildTrigger } from '../../snapshot/manifest.ts';
import { type BuildContext, buildOrganizations, type OrganizationResult } from '../build.ts';
import type { BuildRuns } from './build-runs.ts';

export interface RecordedBuildParts {
  context: BuildContext;
  runs: BuildRuns;
  log: Log;
}

/** Builds `organizationIds` (every organization when undefined) as the run `runId`, queued by the caller. */
export async function recordedBuild(
  { context, runs, log }: RecordedBuildParts,
  trigger: BuildTrigger,
  organizationIds: readonly string[] | undefined,
  runId: string,
): Promise<OrganizationResult[]> {
  runs.started(runId);
  const started = performance.now();
  let results: OrganizationResult[];
  try {
    results = await buildOrganizations(context, {
      trigger,
      ...(organizationIds ? { organizationIds: [...organizationIds] } : {}),
      onListed: (total) => runs.listed(runId, total),
      onProgress: (done, total, last) => runs.progressed(runId, done, total, last),
    });
  } catch (error) {
    runs.finished(runId, { error: describeError(error) });
    throw error;
  }
  runs.finished(runId, { results });
  for (const result of results) reportResult(log, trigger, result);
  if (organizationIds === undefined) reportFullBuild(log, trigger, results, performance.now() - started);
  return results;
}

/** A build that could not run at all (the organizations could not be listed): nothing was published. */
export function reportUnbuilt(log: Log, trigger: BuildTrigger, error: unknown): void {
  log.error(`${trigger} build failed`, { trigger, err: error });
}

/** A failure is a warning (the organization keeps its previous snapshot); a change is news; unchanged is neither. */
function reportResult(log: Log, trigger: BuildTrigger, result: OrganizationResult): void {
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

/** One line per build of every organization: how long it took and what came of it, for an operator reading the log. */
function reportFullBuild(log: Log, trigger: BuildTrigger, results: readonly OrganizationResult[], durationMs: number): void {
  const counts = { published: 0, unchanged: 0, suspended: 0, failed: 0 };
  for (const result of results) counts[result.result]++;
  const seconds = (durationMs / 1000).toFixed(1);
  const summary = Object.entries(counts)
    .filter(([, count]) => count > 0)
    .map(([result, count]) => `${count} ${result}`)
    .join(', ');
  log.info(`${trigger} build of ${results.length} organization${results.length === 1 ? '' : 's'} in ${seconds} s: ${summary || 'nothing to build'}`, {
    trigger,
    organizations: results.length,
    durationMs: Math.round(durationMs),
    ...counts,
  });
}
