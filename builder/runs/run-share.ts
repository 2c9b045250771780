// One builder's share of a divided run (docs/design.md "Runs divided among builders"): it takes the
// run's organizations from the work list one at a time, a few at once, builds each and records
// its result, until the list has none left to take; then it waits for the other builders' last
// organizations, taking over those of a builder that dies meanwhile, until the run is finished.
// While it builds, it keeps its claims fresh, so that no other builder takes them over.
import { setTimeout as sleep } from 'node:timers/promises';
import type { OrganizationResult, Target } from '../build.ts';
import type { Claim, RunProgress, RunResult, WorkList } from './work-list.ts';

export interface ShareParts {
  workList: WorkList;
  /** BUILDER_NAME: names this builder's claims and results. */
  builder: string;
  /** Builds one organization; never throws (build.ts organizationBuilder). */
  build(target: Target): Promise<OrganizationResult>;
  /** Organizations built at once. */
  concurrency: number;
  /** The work list's claim timeout: claims are kept at a third of it. */
  claimTimeoutMs: number;
  /** Between looks at the run while others finish theirs, and between refreshes of its progress. */
  pollMs: number;
  /** Each organization this builder built, with its full result (the log, retries). */
  onBuilt(result: OrganizationResult): void;
  /** The run's results recorded since the last call, by any builder (the run's record). */
  onProgress(progress: RunProgress): void;
  /** The work list could not be reached; the share pauses and asks again. */
  onUnreachable(error: unknown): void;
  /** True once this builder stops: it takes no more organizations. */
  stopping(): boolean;
}

/**
 * Takes part in run `runId` until it is finished (resolves with its last progress) or this builder
 * stops (undefined). What this builder built is also returned, for the CDN invalidation.
 */
export async function takeShare(parts: ShareParts, runId: string): Promise<{ progress: RunProgress | undefined; built: OrganizationResult[] }> {
  const { workList, builder } = parts;
  const building = new Set<string>();
  const built: OrganizationResult[] = [];
  let seen = 0;
  // One refresh at a time (the timer's and the loop's), so each result is passed on once.
  let refreshing: Promise<unknown> = Promise.resolve();
  const refresh = (): Promise<RunProgress | undefined> => {
    const next = refreshing.then(async () => {
      const progress = await workList.progress(runId, seen);
      if (progress) {
        seen += progress.results.length;
        parts.onProgress(progress);
      }
      return progress;
    });
    refreshing = next.catch(() => undefined);
    return next;
  };
  // One look at a time: a tick while the last one still waits for the work list is skipped, so
  // a slow database is not handed a queue of looks that would hold the connections builds need.
  let looking = false;
  const keeper = setInterval(
    () => {
      if (looking) return;
      looking = true;
      const keeping = building.size > 0 ? workList.keep(runId, builder, [...building]).catch((error: unknown) => parts.onUnreachable(error)) : undefined;
      void Promise.all([keeping, refresh().catch(() => undefined)]).finally(() => {
        looking = false;
      });
    },
    Math.min(parts.pollMs, parts.claimTimeoutMs / 3),
  );
  keeper.unref();

  /** Builds what it can take; returns when there is nothing left to take or this builder stops. */
  const worker = async (): Promise<void> => {
    while (!parts.stopping()) {
      let claim: Claim | undefined;
      try {
        [claim] = await workList.take(runId, builder, 1);
      } catch (error) {
        parts.onUnreachable(error);
        await sleep(parts.pollMs);
        continue;
      }
      if (!claim) {
        // Nothing to take now. While a sibling still builds, this worker keeps looking: a claim a
        // dead builder left expires meanwhile, and waiting for the sibling (which may itself wait
        // for the dead builder's build lock) would leave it untaken for as long.
        if (building.size === 0) return;
        await sleep(parts.pollMs);
        continue;
      }
      building.add(claim.entry);
      const result = await parts.build(claim.organization);
      built.push(result);
      try {
        await workList.complete(runId, claim.entry, runResult(result, builder));
      } catch (error) {
        // Unkept from now on: whoever takes the claim over builds it again and records that.
        parts.onUnreachable(error);
      } finally {
        building.delete(claim.entry);
      }
      parts.onBuilt(result);
    }
  };

  try {
    for (;;) {
      await Promise.all(Array.from({ length: parts.concurrency }, worker));
      try {
        // Also when stopping: the organizations this builder just finished may have been the last.
        const progress = await refresh();
        if (progress === undefined || progress.finishedAt !== null) return { progress, built };
      } catch (error) {
        parts.onUnreachable(error);
      }
      if (parts.stopping()) return { progress: undefined, built };
      // The others are building their last ones; one of them may die and leave its claims to take over.
      await sleep(parts.pollMs);
    }
  } finally {
    clearInterval(keeper);
  }
}

/** An organization's result as the run records it: `build --json`'s fields and who built it. */
export function runResult(result: OrganizationResult, builder: string): RunResult {
  return {
    id: result.id,
    slug: result.slug,
    result: result.result,
    ...(result.snapshotId ? { snapshotId: result.snapshotId } : {}),
    ...(result.error ? { error: result.error } : {}),
    ...(result.verified ? { verified: true as const } : {}),
    builder,
  };
}
