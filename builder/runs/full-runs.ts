// The queue of builds that are not change builds, one at a time in order: runs over the fleet on a
// schedule or to catch up after the change listener lost its connection — which build the
// organizations that changed since they were last built (docs/design.md "Runs divided among builders") — and builds on request, of every organization or of some. A run asked for while one is
// already waiting to start is that one: it will read after anything that happened until it starts.
// A run that could not even list the organizations is tried again with a growing pause.
import cron, { type RunCoordinator, type ScheduledTask, type SkipReason } from 'node-cron';
import type { Log } from '../../runtime/log.ts';
import type { BuildTrigger } from '../../snapshot/manifest.ts';
import type { RunResult } from './work-list.ts';
import type { BuildRun, BuildRuns, RunScope } from './build-runs.ts';

/** First pause before a run that could not list is tried again; it doubles up to the longest. */
const RETRY_FIRST_MS = 1_000;
const RETRY_LONGEST_MS = 60_000;

/** The schedule's task name: node-cron names each period it asks the claims about `<name>:<the period's instant>`. */
const SCHEDULE_TASK_NAME = 'marquee-full-build';

/** The claim's key of the period beginning at `slot`, as node-cron makes it for the scheduled run: a start-up run claims the same. */
export const scheduleSlotKey = (slot: Date): string => `${SCHEDULE_TASK_NAME}:${slot.toISOString()}`;

/** Runs one build, already queued in the registry as `runId`. */
export type RunBuild = (trigger: BuildTrigger, scope: RunScope, runId: string) => Promise<RunResult[]>;

export class FullRuns {
  private tail: Promise<unknown> = Promise.resolve();
  /** A run of changed organizations is queued and has not started. */
  private runWaiting = false;
  /** A run that could not build at all (no listing), and its next attempt. */
  private retry: { attempts: number; timer: NodeJS.Timeout } | undefined;
  private task: ScheduledTask | undefined;
  private stopped = false;

  constructor(
    private readonly runs: BuildRuns,
    private readonly runBuild: RunBuild,
    /** A run of the schedule or a catch-up failed before it built anything (its caller is not waiting). */
    private readonly onUnbuilt: (trigger: BuildTrigger, error: unknown) => void,
  ) {}

  /** Queues a build behind those queued before; the run as queued at once, and its results when built. `requestedBy`: the actor who asked. */
  queue(trigger: BuildTrigger, scope: RunScope, requestedBy?: string): { run: BuildRun; results: Promise<RunResult[]> } {
    const run = this.runs.queued(trigger, scope, requestedBy);
    const results = this.tail.then(() => this.runBuild(trigger, scope, run.id));
    this.tail = results.catch(() => undefined);
    return { run, results };
  }

  /** Queues a run of the changed organizations unless one is already waiting to start (it covers this request too). */
  soon(trigger: BuildTrigger): void {
    if (this.stopped || this.runWaiting) return;
    this.runWaiting = true;
    const queued = this.runs.queued(trigger, 'changed');
    const run = this.tail.then(() => {
      this.runWaiting = false;
      return this.runBuild(trigger, 'changed', queued.id);
    });
    this.tail = run.then(
      () => {
        clearTimeout(this.retry?.timer);
        this.retry = undefined;
      },
      (error: unknown) => {
        this.onUnbuilt(trigger, error);
        this.retryLater(trigger);
      },
    );
  }

  /**
   * Runs over the changed organizations at each time `expression` matches. With `shared`, only when its
   * coordinator elects this builder for that time (one run per period for the fleet); a time
   * skipped is reported to `onSkipped`. node-cron's own warnings (a missed time under load, a
   * coordinator that failed) go to `log`, not to the console.
   */
  schedule(expression: string, log: Log, shared?: { claims: RunCoordinator; claimMs: number; onSkipped(slot: Date, reason: SkipReason): void }): void {
    const logger = {
      debug: () => {},
      info: () => {},
      warn: (message: string) => log.warn(`schedule: ${message}`),
      error: (message: string | Error) => log.warn(`schedule: ${String(message)}`),
    };
    this.task = cron.schedule(
      expression,
      () => this.soon('schedule'),
      shared ? { logger, name: SCHEDULE_TASK_NAME, distributed: true, runCoordinator: shared.claims, distributedLease: shared.claimMs } : { logger },
    );
    if (shared) this.task.on('execution:skipped', (context) => shared.onSkipped(context.date, context.reason ?? 'not-elected'));
  }

  /** The schedule's next time, after the present; undefined without a schedule. */
  nextScheduled(): Date | undefined {
    return this.task?.getNextRun() ?? undefined;
  }

  /** Stops the schedule and the retries; resolves once the queued builds are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry?.timer);
    await this.task?.stop();
    await this.tail;
  }

  /**
   * Tried again like an organization's build: a catch-up after a reconnect must not wait for the
   * schedule, since the changes it stands for will not be notified again.
   */
  private retryLater(trigger: BuildTrigger): void {
    if (this.stopped) return;
    clearTimeout(this.retry?.timer);
    const attempts = (this.retry?.attempts ?? 0) + 1;
    const timer = setTimeout(() => this.soon(trigger), Math.min(RETRY_FIRST_MS * 2 ** (attempts - 1), RETRY_LONGEST_MS));
    timer.unref();
    this.retry = { attempts, timer };
  }
}
