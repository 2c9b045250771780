// Runs builds: full builds on a schedule, on request, or to catch up after the change listener lost
// its connection, one at a time and queued; and beside them, single-organization builds when the
// platform announces a change, debounced per organization (a burst of row changes is one build),
// coalesced while that organization's build runs, and a few at once. Build locks keep any two
// builds of one organization apart, in this process and across builders. What each build changed
// or could not do goes to the process's log, and every build is a run in the registry of build
// runs (builder/build-runs.ts) that operators watch: queued, running with its progress, finished.
// A change build is a run of its own (trigger 'change', one organization).
import cron, { type ScheduledTask } from 'node-cron';
import { describeError } from '../snapshot/errors.ts';
import type { Log } from '../snapshot/log.ts';
import type { BuildTrigger } from '../snapshot/manifest.ts';
import { BackendRetries } from './backend-retries.ts';
import { InProcessBuildLocks } from './build-locks.ts';
import { type BuildRun, BuildRuns } from './build-runs.ts';
import { buildOrganizations, type BuildContext, type OrganizationResult } from './build.ts';

/** First pause before a full build that could not list is tried again; it doubles up to the longest. */
const RETRY_FIRST_MS = 1_000;
const RETRY_LONGEST_MS = 60_000;

export interface RunnerOptions {
  log: Log;
  /** Quiet period after the last change notification of an organization before it is rebuilt. */
  debounceMs?: number;
  /** Change builds running at once, each of one organization, so memory stays bounded as in a full build. */
  changeConcurrency?: number;
  /** Where every run is recorded; the runner keeps its own when not given. */
  runs?: BuildRuns;
}

export class BuildRunner {
  private readonly context: BuildContext;
  private readonly log: Log;
  /** Every build this runner ran or has queued, newest last (bounded). */
  readonly runs: BuildRuns;
  private tail: Promise<unknown> = Promise.resolve();
  /** A full build is queued and has not started: it will read after anything that happens until it does. */
  private fullBuildWaiting = false;
  private readonly debouncing = new Map<string, NodeJS.Timeout>();
  /** Quiet long enough, waiting for a change build to be free. */
  private readonly due = new Set<string>();
  private readonly building = new Set<string>();
  /** Changed while its build ran, perhaps after its read: built once more afterwards. */
  private readonly changedWhileBuilding = new Set<string>();
  private readonly changeBuilds = new Set<Promise<void>>();
  private task: ScheduledTask | undefined;
  private stopped = false;
  /** A full build that could not run at all (no listing), and its next attempt. */
  private fullBuildRetry: { attempts: number; timer: NodeJS.Timeout } | undefined;
  /** Organizations whose last build failed for want of a backend, built again once the backends answer. */
  private readonly retries: BackendRetries;

  constructor(
    context: BuildContext,
    private readonly options: RunnerOptions,
  ) {
    // Change builds run beside full builds; without locks shared with other builders, this
    // process's own keep a change build and a full build of one organization apart.
    this.context = context.locks ? context : { ...context, locks: new InProcessBuildLocks() };
    this.log = options.log;
    this.runs = options.runs ?? new BuildRuns();
    this.retries = new BackendRetries({ rebuild: (organizationId) => this.organizationChanged(organizationId) });
  }

  /** Queues a build behind any running full build; resolves with its results. */
  build(trigger: BuildTrigger, organizationIds?: string[]): Promise<OrganizationResult[]> {
    return this.queue(trigger, organizationIds).results;
  }

  /** As build(), and the run as queued at once (the admin API answers with it before the build starts). */
  queue(trigger: BuildTrigger, organizationIds?: string[]): { run: BuildRun; results: Promise<OrganizationResult[]> } {
    const queued = this.runs.queued(trigger, organizationIds);
    const results = this.tail.then(() => this.run(trigger, organizationIds, queued.id));
    this.tail = results.catch(() => undefined);
    return { run: queued, results };
  }

  /** A change notification for one organization: rebuild it alone after a short quiet period. */
  organizationChanged(organizationId: string): void {
    if (this.stopped) return;
    if (this.building.has(organizationId)) {
      this.changedWhileBuilding.add(organizationId);
      return;
    }
    // Due but not started: its read comes after this change.
    if (this.due.has(organizationId)) return;
    clearTimeout(this.debouncing.get(organizationId));
    this.debouncing.set(
      organizationId,
      setTimeout(() => {
        this.debouncing.delete(organizationId);
        this.due.add(organizationId);
        this.startChangeBuilds();
      }, this.options.debounceMs ?? 150),
    );
  }

  /**
   * Changes may have gone unheard (the change listener lost its database connection and is back):
   * build every organization once. The trigger is 'change', because what it publishes is what
   * those changes' notifications would have published; a schedule did not ask for it.
   */
  catchUp(): void {
    if (this.stopped) return;
    this.log.info('listening for platform changes again: building every organization, for changes made while not listening', { trigger: 'change' });
    this.fullBuildSoon('change');
  }

  schedule(expression: string): void {
    this.task = cron.schedule(expression, () => this.fullBuildSoon('schedule'));
  }

  /** Stops scheduling and forgets changes not yet being built; resolves once running builds are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.task?.stop();
    for (const timer of this.debouncing.values()) clearTimeout(timer);
    this.debouncing.clear();
    this.retries.stop();
    clearTimeout(this.fullBuildRetry?.timer);
    this.due.clear();
    this.changedWhileBuilding.clear();
    await Promise.all([this.tail, ...this.changeBuilds]);
  }

  /** Runs one build, recorded as the run `runId` (queued by the caller, or now). */
  private async run(trigger: BuildTrigger, organizationIds?: string[], runId = this.runs.queued(trigger, organizationIds).id): Promise<OrganizationResult[]> {
    this.runs.started(runId);
    const started = performance.now();
    let results: OrganizationResult[];
    try {
      results = await buildOrganizations(this.context, {
        trigger,
        ...(organizationIds ? { organizationIds } : {}),
        onListed: (total) => this.runs.listed(runId, total),
        onProgress: (done, total, last) => this.runs.progressed(runId, done, total, last),
      });
    } catch (error) {
      this.runs.finished(runId, { error: describeError(error) });
      throw error;
    }
    this.runs.finished(runId, { results });
    for (const result of results) {
      this.report(trigger, result);
      this.retryIfUnavailable(result);
    }
    if (organizationIds === undefined) this.reportFullBuild(trigger, results, performance.now() - started);
    return results;
  }

  /** One line per build of every organization: how long it took and what came of it, for an operator reading the log. */
  private reportFullBuild(trigger: BuildTrigger, results: readonly OrganizationResult[], durationMs: number): void {
    const counts = { published: 0, unchanged: 0, suspended: 0, failed: 0 };
    for (const result of results) counts[result.result]++;
    const seconds = (durationMs / 1000).toFixed(1);
    const summary = Object.entries(counts)
      .filter(([, count]) => count > 0)
      .map(([result, count]) => `${count} ${result}`)
      .join(', ');
    this.log.info(`${trigger} build of ${results.length} organization${results.length === 1 ? '' : 's'} in ${seconds} s: ${summary || 'nothing to build'}`, {
      trigger,
      organizations: results.length,
      durationMs: Math.round(durationMs),
      ...counts,
    });
  }

  /**
   * A build that failed because a backend could not be reached (the store, the database, Redis for
   * its lock) is tried again once the backends answer (builder/backend-retries.ts), so a change
   * made during an outage is published soon after it ends without anyone asking. A resource that
   * fails its schema or cannot be projected is not: the same rows would fail again, and the next
   * change to them brings a build of its own.
   */
  private retryIfUnavailable(result: OrganizationResult): void {
    if (result.result !== 'failed') this.retries.built(result.id);
    else if (result.failure?.backend) this.retries.unavailable(result.id);
    else this.retries.abandoned(result.id);
  }

  /** Queues a full build unless one is already waiting to start (it covers this request too). */
  private fullBuildSoon(trigger: BuildTrigger): void {
    if (this.stopped || this.fullBuildWaiting) return;
    this.fullBuildWaiting = true;
    const queued = this.runs.queued(trigger);
    const run = this.tail.then(() => {
      this.fullBuildWaiting = false;
      return this.run(trigger, undefined, queued.id);
    });
    this.tail = run.then(
      () => {
        clearTimeout(this.fullBuildRetry?.timer);
        this.fullBuildRetry = undefined;
      },
      (error: unknown) => {
        this.failed(trigger, error);
        this.retryFullBuild(trigger);
      },
    );
  }

  /**
   * A full build that could not even list the organizations (the database went away again) is
   * tried again like an organization's build: a catch-up after a reconnect must not wait for the
   * schedule, since the changes it stands for will not be notified again.
   */
  private retryFullBuild(trigger: BuildTrigger): void {
    if (this.stopped) return;
    clearTimeout(this.fullBuildRetry?.timer);
    const attempts = (this.fullBuildRetry?.attempts ?? 0) + 1;
    const timer = setTimeout(() => this.fullBuildSoon(trigger), Math.min(RETRY_FIRST_MS * 2 ** (attempts - 1), RETRY_LONGEST_MS));
    timer.unref();
    this.fullBuildRetry = { attempts, timer };
  }

  private startChangeBuilds(): void {
    const limit = this.options.changeConcurrency ?? 4;
    for (const organizationId of this.due) {
      if (this.building.size >= limit) return;
      this.due.delete(organizationId);
      this.building.add(organizationId);
      const build: Promise<void> = this.run('change', [organizationId])
        .then(
          () => undefined,
          (error: unknown) => {
            this.failed('change', error);
            // Not even listed (the database could not be reached): nothing was built, and no
            // notification will come again for this change, so it is tried again like a build
            // that failed for want of a backend.
            this.retries.unavailable(organizationId);
          },
        )
        .finally(() => {
          this.changeBuilds.delete(build);
          this.building.delete(organizationId);
          if (this.changedWhileBuilding.delete(organizationId)) this.organizationChanged(organizationId);
          this.startChangeBuilds();
        });
      this.changeBuilds.add(build);
    }
  }

  /** A failure is a warning (the organization keeps its previous snapshot); a change is news; unchanged is neither. */
  private report(trigger: BuildTrigger, result: OrganizationResult): void {
    const fields = { trigger, organizationId: result.id, slug: result.slug };
    if (result.result === 'failed') {
      this.log.warn(`${result.slug}: build failed: ${result.error}`, { ...fields, stage: result.failure?.stage, resource: result.failure?.resource });
    } else if (result.warning !== undefined) {
      this.log.warn(`${result.slug}: ${result.result}, but ${result.warning}`, { ...fields, result: result.result, snapshotId: result.snapshotId });
    } else if (result.result !== 'unchanged') {
      this.log.info(`${result.slug}: ${result.result}${result.snapshotId ? ` ${result.snapshotId}` : ''}`, {
        ...fields,
        result: result.result,
        snapshotId: result.snapshotId,
        objectsWritten: result.objectsWritten,
      });
    }
  }

  /** A build that could not run at all (the organizations could not be listed): nothing was published. */
  private failed(trigger: BuildTrigger, error: unknown): void {
    this.log.error(`${trigger} build failed`, { trigger, err: error });
  }
}
