// Runs over the fleet, divided among the live builders (docs/design.md "Runs divided among builders"): the builder whose queue a run reaches (the one elected for a scheduled period, the one
// asked through its admin API, a catch-up) lists what the run builds and opens it in the work
// list; every builder, this one included, takes its share (run-share.ts) until every organization
// has its result. Each records the run under the same id, so any builder's admin API and console
// show its progress and who built what; the one that opened it reports it in the log and metrics.
import { describeError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import type { BuildTrigger } from '../../snapshot/manifest.ts';
import { type BuildContext, type OrganizationResult, organizationBuilder, pointersChanged, selectTargets, type Target } from '../build.ts';
import type { Verification } from '../platform/versions.ts';
import type { BuildRuns, RunScope } from './build-runs.ts';
import { reportResult, reportRun } from './recorded-build.ts';
import { type ShareParts, takeShare } from './run-share.ts';
import type { OpenedRun, RunResult, WorkList } from './work-list.ts';

export interface DividedRunParts {
  context: BuildContext;
  runs: BuildRuns;
  log: Log;
  workList: WorkList;
  builder: string;
  claimTimeoutMs: number;
  pollMs: number;
  /** Each organization this builder built, whatever run (retries of those that failed for want of a backend). */
  onBuilt(result: OrganizationResult): void;
  onUnreachable(error: unknown): void;
  /** A run the work list no longer knows, with organizations left without a result: the caller opens a run for them. */
  onLost(run: OpenedRun): void;
  stopping(): boolean;
}

/** What this builder tells the run's record when it stops before the run is finished. */
const STOPPED = 'this builder stopped before the run finished; the other builders finish it';
/** What it tells when the run is gone from the work list before it finished. */
const LOST = 'its work list no longer knows it';

/** Opens the run `runId` (queued by the caller) over what `scope` says, takes part in it, and resolves with every organization's result once all are built. */
export async function openRun(parts: DividedRunParts, trigger: BuildTrigger, scope: RunScope, runId: string, verification?: Verification): Promise<RunResult[]> {
  const { context, runs, log, workList } = parts;
  runs.started(runId);
  const started = performance.now();
  if (parts.stopping()) {
    // Queued before the stop: opened now, it would wait for builders that may never come.
    runs.finished(runId, { error: 'not run: this builder stopped first' });
    return [];
  }
  let opened: OpenedRun;
  try {
    const selection = await selectTargets(context, {
      ...(typeof scope === 'string' ? {} : { organizationIds: scope }),
      ...(scope === 'changed' ? { changed: verification ? { verification } : {} } : {}),
    });
    const { targets, skipped } = scope === 'changed' ? await leaveToOtherRuns(workList, selection) : selection;
    const queued = runs.get(runId);
    opened = {
      id: runId,
      trigger,
      scope: typeof scope === 'string' ? scope : 'named',
      ...(queued ? { requestedBy: queued.requestedBy } : {}),
      openedBy: parts.builder,
      queuedAt: queued?.queuedAt ?? new Date().toISOString(),
      startedAt: queued?.startedAt ?? new Date().toISOString(),
      total: targets.length,
      skipped,
    };
    runs.listed(runId, targets.length, skipped);
    await workList.open(opened, targets);
  } catch (error) {
    runs.finished(runId, { error: describeError(error) });
    throw error;
  }
  const finished = await share(parts, opened);
  const results = runs.get(runId)?.organizations ?? [];
  if (finished && typeof scope === 'string') reportRun(log, trigger, results, opened.skipped, performance.now() - started);
  return results;
}

/**
 * A run of the changed organizations leaves out those another unfinished run still has to build:
 * that run reads them when it builds them, after whatever changed them. Without this, builders
 * starting together each listed every changed organization, and each was built once per builder.
 * Those left out count as skipped. Two runs listed at the same instant may still both list one:
 * built twice, never not at all.
 */
async function leaveToOtherRuns(workList: WorkList, selection: { targets: Target[]; skipped: number }): Promise<{ targets: Target[]; skipped: number }> {
  const waiting = await workList.waiting();
  if (waiting.size === 0) return selection;
  const targets = selection.targets.filter((target) => !waiting.has(target.id));
  return { targets, skipped: selection.skipped + selection.targets.length - targets.length };
}

/** Takes part in a run another builder opened, recording it here under the same id. */
export async function joinRun(parts: DividedRunParts, opened: OpenedRun): Promise<void> {
  parts.runs.joined(opened);
  await share(parts, opened);
}

/** This builder's share of the run, with the run's record kept up to date; false when it stopped first. */
async function share(parts: DividedRunParts, opened: OpenedRun): Promise<boolean> {
  const { context, runs, log } = parts;
  const shareParts: ShareParts = {
    workList: parts.workList,
    builder: parts.builder,
    build: organizationBuilder(context, opened.trigger),
    concurrency: context.concurrency ?? 4,
    claimTimeoutMs: parts.claimTimeoutMs,
    pollMs: parts.pollMs,
    onBuilt: (result) => {
      reportResult(log, opened.trigger, result);
      parts.onBuilt(result);
    },
    onProgress: (progress) => runs.progressed(opened.id, progress.done, progress.results),
    onUnreachable: parts.onUnreachable,
    stopping: parts.stopping,
  };
  const { progress, built } = await takeShare(shareParts, opened.id);
  await pointersChanged(context, built);
  if (progress) {
    runs.finished(opened.id);
    return true;
  }
  if (parts.stopping()) {
    runs.finished(opened.id, { error: STOPPED });
    return false;
  }
  // Gone from the work list before every organization had its result: failed, never finished
  // short, and what it left is built by a new run (docs/design.md "A run never lies").
  runs.finished(opened.id, { error: LOST });
  log.error(`${opened.trigger} run ${opened.id} failed: ${LOST}; a run of the organizations changed since they were last built replaces it`, {
    trigger: opened.trigger,
    runId: opened.id,
  });
  parts.onLost(opened);
  return false;
}
