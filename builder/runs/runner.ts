// Runs builds, as a builder process does: the run queue (full-runs.ts: the schedule and catch-ups,
// which build what changed and verify a share of the rest, and requests) and, beside it, change
// builds of one organization (change-builds.ts), each recorded as a run and reported in the log
// (recorded-build.ts). Build locks keep any two builds of one organization apart, in this process
// and across builders; a build that failed for want of a backend is tried again once the backends
// answer (backend-retries.ts).
import type { Log } from '../../snapshot/log.ts';
import type { BuildTrigger } from '../../snapshot/manifest.ts';
import type { BuildContext, OrganizationResult } from '../build.ts';
import { InProcessBuildLocks } from '../build-locks.ts';
import { BackendRetries } from './backend-retries.ts';
import { type BuildRun, BuildRuns, type RunScope } from './build-runs.ts';
import { ChangeBuilds } from './change-builds.ts';
import { FullRuns } from './full-runs.ts';
import type { Verification } from '../platform/versions.ts';
import { recordedBuild, reportUnbuilt } from './recorded-build.ts';
import { SCHEDULE_CLAIM_MS, type ScheduleClaims } from './redis-schedule-claims.ts';

export interface RunnerOptions {
  log: Log;
  /** Quiet period after the last change notification of an organization before it is rebuilt. */
  debounceMs?: number;
  /** Change builds running at once, each of one organization, so memory stays bounded as in a full build. */
  changeConcurrency?: number;
  /** Where every run is recorded; the runner keeps its own when not given. */
  runs?: BuildRuns;
  /**
   * FULL_BUILD_EVERY: each organization is built in full at least this often, whatever its
   * versions say, a share per scheduled run (builder/platform/versions.ts). Default 24 h.
   */
  fullBuildEveryMs?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export class BuildRunner {
  /** Every build this runner ran or has queued, newest last (bounded). */
  readonly runs: BuildRuns;
  private readonly log: Log;
  private readonly fullRuns: FullRuns;
  private readonly changes: ChangeBuilds;
  /** Organizations whose last build failed for want of a backend, built again once the backends answer. */
  private readonly retries: BackendRetries;
  private stopped = false;

  constructor(context: BuildContext, options: RunnerOptions) {
    this.log = options.log;
    this.runs = options.runs ?? new BuildRuns();
    const parts = {
      // Change builds run beside full builds; without locks shared with other builders, this
      // process's own keep a change build and a full build of one organization apart.
      context: context.locks ? context : { ...context, locks: new InProcessBuildLocks() },
      runs: this.runs,
      log: this.log,
    };
    const fullBuildEveryMs = options.fullBuildEveryMs ?? DAY_MS;
    const build = async (trigger: BuildTrigger, scope: RunScope, runId: string) => {
      const verification = scope === 'changed' && trigger === 'schedule' ? this.verification(fullBuildEveryMs) : undefined;
      const results = await recordedBuild(parts, trigger, scope, runId, verification);
      for (const result of results) this.retryIfUnavailable(result);
      return results;
    };
    this.retries = new BackendRetries({ rebuild: (organizationId) => this.organizationChanged(organizationId) });
    this.fullRuns = new FullRuns(this.runs, build, (trigger, error) => reportUnbuilt(this.log, trigger, error));
    this.changes = new ChangeBuilds({
      build: (organizationId) => build('change', [organizationId], this.runs.queued('change', [organizationId]).id),
      onUnbuilt: (organizationId, error) => {
        reportUnbuilt(this.log, 'change', error);
        // Not even listed (the database could not be reached): nothing was built, and no
        // notification will come again for this change, so it is tried again like a build that
        // failed for want of a backend.
        this.retries.unavailable(organizationId);
      },
      debounceMs: options.debounceMs ?? 150,
      concurrency: options.changeConcurrency ?? 4,
    });
  }

  /** Queues a build of those named (every organization without) behind any running run; resolves with its results. */
  build(trigger: BuildTrigger, organizationIds?: string[]): Promise<OrganizationResult[]> {
    return this.queue(trigger, organizationIds).results;
  }

  /** As build(), and the run as queued at once (the admin API answers with it before the build starts). */
  queue(trigger: BuildTrigger, organizationIds?: string[]): { run: BuildRun; results: Promise<OrganizationResult[]> } {
    return this.fullRuns.queue(trigger, organizationIds ?? 'every');
  }

  /** Queues a run of the organizations changed since they were last built into the store (a process's first run). */
  buildChanged(trigger: BuildTrigger): Promise<OrganizationResult[]> {
    return this.fullRuns.queue(trigger, 'changed').results;
  }

  /** A change notification for one organization: rebuild it alone after a short quiet period. */
  organizationChanged(organizationId: string): void {
    this.changes.changed(organizationId);
  }

  /**
   * Changes may have gone unheard (the change listener lost its database connection and is back):
   * build the organizations changed since they were last built, which their source versions tell.
   * The trigger is 'change', because what it publishes is what those changes' notifications would
   * have published; a schedule did not ask for it.
   */
  catchUp(): void {
    if (this.stopped) return;
    this.log.info('listening for platform changes again: building the organizations changed while not listening', { trigger: 'change' });
    this.fullRuns.soon('change');
  }

  /** Runs at each time `expression` matches; with `claims` (several builders), only those this builder claims. */
  schedule(expression: string, claims?: ScheduleClaims): void {
    if (claims === undefined) {
      this.fullRuns.schedule(expression, this.log);
      return;
    }
    this.fullRuns.schedule(expression, this.log, {
      claims,
      claimMs: SCHEDULE_CLAIM_MS,
      onSkipped: (slot, reason) =>
        reason === 'not-elected'
          ? this.log.info(`scheduled build of ${slot.toISOString()}: another builder runs it`, { trigger: 'schedule', slot: slot.toISOString() })
          : this.log.warn(`scheduled build of ${slot.toISOString()} skipped: Redis could not say which builder runs it; the next period is tried`, {
              trigger: 'schedule',
              slot: slot.toISOString(),
            }),
    });
  }

  /** Stops scheduling and forgets changes not yet being built; resolves once running builds are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.retries.stop();
    await Promise.all([this.fullRuns.stop(), this.changes.stop()]);
  }

  /**
   * This scheduled run's share of the rolling verification: the time to the next run over
   * FULL_BUILD_EVERY of the fleet, and every organization that would otherwise go unbuilt longer
   * than FULL_BUILD_EVERY by then. None without a schedule (a process's first run).
   */
  private verification(fullBuildEveryMs: number): Verification | undefined {
    const next = this.fullRuns.nextScheduled();
    if (next === undefined) return undefined;
    const untilNextMs = Math.max(0, next.getTime() - Date.now());
    return { share: Math.min(1, untilNextMs / fullBuildEveryMs), dueBefore: new Date(next.getTime() - fullBuildEveryMs) };
  }

  /**
   * A build that failed because a backend could not be reached (the store, the database, Redis for
   * its lock) is tried again once the backends answer, so a change made during an outage is
   * published soon after it ends without anyone asking. A resource that fails its schema or cannot
   * be projected is not: the same rows would fail again, and the next change to them brings a
   * build of its own.
   */
  private retryIfUnavailable(result: OrganizationResult): void {
    if (result.result !== 'failed') this.retries.built(result.id);
    else if (result.failure?.backend) this.retries.unavailable(result.id);
    else this.retries.abandoned(result.id);
  }
}
