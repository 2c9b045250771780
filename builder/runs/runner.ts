// Runs builds, as a builder process does: the run queue (full-runs.ts: the schedule and catch-ups,
// which build what changed and verify a share of the rest, and requests), whose runs are divided
// among the live builders through the work list (divided-run.ts), with this builder taking part
// in the runs the others open; and, beside them, change builds of one organization
// (change-builds.ts), each recorded as a run and reported in the log (recorded-build.ts). Build
// locks keep any two builds of one organization apart, in this process and across builders; a
// build that failed for want of a backend is tried again once the backends answer
// (backend-retries.ts).
import { hostname } from 'node:os';
import type { RunCoordinator } from 'node-cron';
import { describeError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import type { BuildTrigger } from '../../snapshot/manifest.ts';
import type { BuildContext, OrganizationResult } from '../build.ts';
import { InProcessBuildLocks } from '../build-locks.ts';
import { BackendRetries } from './backend-retries.ts';
import { type BuildRun, BuildRuns, type RunScope } from './build-runs.ts';
import { ChangeBuilds, type ChangeClaims } from './change-builds.ts';
import { type DividedRunParts, joinRun, openRun } from './divided-run.ts';
import { FullRuns, scheduleSlotKey } from './full-runs.ts';
import { currentSlot } from './schedule-slot.ts';
import type { Verification } from '../platform/versions.ts';
import { SCHEDULE_CLAIM_MS } from './database-schedule-claims.ts';
import { recordedBuild, reportUnbuilt } from './recorded-build.ts';
import { DEFAULT_CLAIM_TIMEOUT_MS, InProcessWorkList, type OpenedRun, type RunResult, type WorkList } from './work-list.ts';

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
  /** BUILDER_NAME: names this builder's share of each run. Default: host name and process id. */
  builder?: string;
  /**
   * Where runs are divided among builders (Redis, shared by every builder; its claim timeout as
   * `claimTimeoutMs`); without one, an in-process list: this builder takes every organization.
   */
  workList?: WorkList;
  claimTimeoutMs?: number;
  /**
   * Where builders claim change builds (the platform database, shared by every builder), so that
   * each change is built by one; without, this builder builds every change it hears.
   */
  changeClaims?: ChangeClaims;
  /** How often this builder looks for runs other builders opened, and at a run it waits on. */
  pollMs?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_POLL_MS = 250;
/** A work list that cannot be reached is said once per this long, not at every attempt. */
const UNREACHABLE_WARNING_EVERY_MS = 30_000;

export class BuildRunner {
  /** Every build this runner ran or has queued, newest last (bounded). */
  readonly runs: BuildRuns;
  private readonly log: Log;
  private readonly fullRuns: FullRuns;
  private readonly changes: ChangeBuilds;
  /** Organizations whose last build failed for want of a backend, built again once the backends answer. */
  private readonly retries: BackendRetries;
  private readonly runParts: DividedRunParts;
  /** Runs this builder takes part in now, opened here or by another builder, and its shares of those. */
  private readonly sharing = new Map<string, Promise<unknown>>();
  private readonly joinTimer: NodeJS.Timeout;
  private lastUnreachableWarning = 0;
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
    const builder = options.builder ?? `${hostname()}:${process.pid}`;
    const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.runParts = {
      ...parts,
      workList: options.workList ?? new InProcessWorkList(),
      builder,
      claimTimeoutMs: options.claimTimeoutMs ?? DEFAULT_CLAIM_TIMEOUT_MS,
      pollMs,
      onBuilt: (result) => this.retryIfUnavailable(result),
      onUnreachable: (error) => this.workListUnreachable(error),
      // Those it left are exactly those changed since they were last built, whichever run lost them.
      onLost: () => this.fullRuns.soon('change'),
      stopping: () => this.stopped,
    };
    const runOver = (trigger: BuildTrigger, scope: RunScope, runId: string): Promise<RunResult[]> => {
      const verification = scope === 'changed' && trigger === 'schedule' ? this.verification(fullBuildEveryMs) : undefined;
      return this.sharingIn(runId, () => openRun(this.runParts, trigger, scope, runId, verification));
    };
    const changeBuild = async (organizationId: string) => {
      const results = await recordedBuild({ ...parts, builder }, 'change', [organizationId], this.runs.queued('change', [organizationId]).id);
      for (const result of results) this.retryIfUnavailable(result);
      return results;
    };
    this.retries = new BackendRetries({ rebuild: (organizationId) => this.organizationChanged(organizationId) });
    this.fullRuns = new FullRuns(this.runs, runOver, (trigger, error) => reportUnbuilt(this.log, trigger, error));
    this.changes = new ChangeBuilds({
      build: changeBuild,
      onUnbuilt: (organizationId, error) => {
        reportUnbuilt(this.log, 'change', error);
        // Not even listed (the database could not be reached): nothing was built, and no
        // notification will come again for this change, so it is tried again like a build that
        // failed for want of a backend.
        this.retries.unavailable(organizationId);
      },
      debounceMs: options.debounceMs ?? 150,
      concurrency: options.changeConcurrency ?? 4,
      // Looked at as often as a live builder keeps its claims: a dead one's is taken over soon after it lapses.
      ...(options.changeClaims ? { claims: options.changeClaims, lookAgainMs: this.runParts.claimTimeoutMs / 3 } : {}),
    });
    // One look at a time, as a share keeps its claims (run-share.ts): never a queue of them behind a slow work list.
    let looking = false;
    this.joinTimer = setInterval(() => {
      if (looking) return;
      looking = true;
      void this.joinOpenedRuns().finally(() => {
        looking = false;
      });
    }, pollMs);
    this.joinTimer.unref();
  }

  /** Queues a build of those named (every organization without) behind any running run; resolves with its results, whichever builder built them. */
  build(trigger: BuildTrigger, organizationIds?: string[]): Promise<RunResult[]> {
    return this.queue(trigger, organizationIds).results;
  }

  /** As build(), and the run as queued at once (the admin API answers with it before the build starts); `requestedBy` names who asked. */
  queue(trigger: BuildTrigger, organizationIds?: string[], requestedBy?: string): { run: BuildRun; results: Promise<RunResult[]> } {
    return this.fullRuns.queue(trigger, organizationIds ?? 'every', requestedBy);
  }

  /** Queues a run of the organizations changed since they were last built into the store (a process's first run). */
  buildChanged(trigger: BuildTrigger): Promise<RunResult[]> {
    return this.fullRuns.queue(trigger, 'changed').results;
  }

  /**
   * A builder's start-up run. With `claims` (several builders) it claims the slot of the period it
   * starts in, the claim node-cron makes for that period's scheduled run: the first builder to
   * claim it runs the period's `schedule` run. One starting in a period another builder ran (or
   * runs) while that one still runs (`othersRunning`) does not run the period again: it runs a
   * `start` run, which builds only what changed and is not built (source or projection version
   * ahead of the store). That run is not redundant: a builder killed between its manifest and its
   * pointer held its change's claim, so no other builder built it, and only this catch-up builds
   * it once the builder is back (the chaos campaign's kill-at-pointer showed the orphan otherwise
   * outlived the heal). With nothing left behind, it finds nothing in one statement.
   */
  async buildThisPeriod(expression: string, claims?: RunCoordinator, othersRunning: () => Promise<boolean> = async () => true): Promise<RunResult[]> {
    const slot = claims === undefined ? undefined : currentSlot(expression, new Date());
    if (claims === undefined || slot === undefined || (await claims.shouldRun(scheduleSlotKey(slot), SCHEDULE_CLAIM_MS))) return this.buildChanged('schedule');
    if (!(await othersRunning().catch(() => false))) return this.buildChanged('schedule');
    this.log.info(
      `start-up run: another builder runs the scheduled build of ${slot.toISOString()}, the period this builder starts in; this one builds only what changed and is not yet built`,
      {
        trigger: 'start',
        slot: slot.toISOString(),
      },
    );
    return this.buildChanged('start');
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
  schedule(expression: string, claims?: RunCoordinator): void {
    if (claims === undefined) {
      this.fullRuns.schedule(expression, this.log);
      return;
    }
    this.fullRuns.schedule(expression, this.log, {
      claims,
      claimMs: SCHEDULE_CLAIM_MS,
      // The claims answer yes when they cannot ask (database-schedule-claims.ts): a period skipped is run by another builder.
      onSkipped: (slot) => this.log.info(`scheduled build of ${slot.toISOString()}: another builder runs it`, { trigger: 'schedule', slot: slot.toISOString() }),
    });
  }

  /** Stops scheduling and forgets changes not yet being built; resolves once running builds are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.joinTimer);
    this.retries.stop();
    await Promise.all([this.fullRuns.stop(), this.changes.stop(), ...this.sharing.values()]);
    // Their ends written before the database closes.
    await this.runs.flush();
  }

  /** Takes part in the runs other builders opened that this one is not in yet. */
  private async joinOpenedRuns(): Promise<void> {
    let opened: OpenedRun[];
    try {
      opened = await this.runParts.workList.unfinished();
    } catch (error) {
      this.workListUnreachable(error);
      return;
    }
    for (const run of opened) {
      if (this.stopped || this.sharing.has(run.id)) continue;
      void this.sharingIn(run.id, () => joinRun(this.runParts, run)).catch((error: unknown) => this.workListUnreachable(error));
    }
  }

  /** Runs `share` as this builder's part in run `runId`, which it is then not asked to join again. */
  private sharingIn<T>(runId: string, share: () => Promise<T>): Promise<T> {
    const running = share().finally(() => this.sharing.delete(runId));
    this.sharing.set(
      runId,
      running.catch(() => undefined),
    );
    return running;
  }

  private workListUnreachable(error: unknown): void {
    const now = Date.now();
    if (now - this.lastUnreachableWarning < UNREACHABLE_WARNING_EVERY_MS) return;
    this.lastUnreachableWarning = now;
    this.log.warn(`the run work list in the platform database could not be reached; this builder asks again: ${describeError(error)}`, { backend: 'database' });
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
