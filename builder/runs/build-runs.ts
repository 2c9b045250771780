// The build runs an operator watches (docs/design.md "Admin API and console"): every build the
// runner starts, whatever asked for it, from queued through running (done of total) to finished
// with each organization's result, or failed, saying why and how many were left without one (a run
// is never finished short: docs/design.md "A run never lies"). This process's runs are kept live in
// memory, bounded; with a record (run-record.ts: the platform database), each is also written
// there as it goes, with who or what asked for it, and the runs listed are the record's: every
// builder's, and `marquee build`'s, across restarts.
import { randomUUID } from 'node:crypto';
import type { BuildTrigger } from '../../snapshot/manifest.ts';
import { mergeRuns, type RunRecord, RunRecordWriter } from '../../records/runs/run-record.ts';
import type { OpenedRun, RunResult } from './work-list.ts';

type BuildRunState = 'queued' | 'running' | 'finished' | 'failed';

/** What a run builds: the organizations named, every organization, or those changed since they were last built. */
export type RunScope = readonly string[] | 'every' | 'changed';

export interface BuildRun {
  id: string;
  trigger: BuildTrigger;
  /**
   * Who or what asked for it: the actor for a build requested through the admin API, the console
   * or the CLI (`root`, a credential's name, `cli:<user>@<host>`); `schedule`, `changes` or `start`
   * for those the builders start themselves.
   */
  requestedBy: string;
  /** What it builds: those named, every organization, or those changed since they were last built (and a verified share). */
  scope: 'named' | 'every' | 'changed';
  state: BuildRunState;
  /** Organizations built so far, and how many the run builds (known once it has listed them). */
  done: number;
  total: number;
  /** Organizations a run of changed ones left out, unread: built from their current versions. */
  skipped: number;
  /** ISO instants; null until the run starts or finishes. */
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** In the order they finished, each naming the builder that built it. */
  organizations: RunResult[];
  /** Why a failed run ended without a result for every organization (it could not list them, or lost its work list). */
  error?: string;
}

/** Runs kept unless told otherwise: enough for an operator's screen, bounded whatever the schedule. */
const DEFAULT_RUNS_KEPT = 100;

/** Who asked for a run the builders start themselves, by its trigger. */
const REQUESTED_BY: Record<BuildTrigger, string> = { schedule: 'schedule', change: 'changes', start: 'start', manual: 'manual' };

export class BuildRuns {
  /** Oldest first; runs are appended when queued. */
  private readonly runs: BuildRun[] = [];
  private readonly byId = new Map<string, BuildRun>();
  /** Runs another builder opened and this one takes part in: their finish is counted where they were opened. */
  private readonly joinedIds = new Set<string>();
  private readonly finishedListeners: Array<(run: BuildRun, durationSeconds: number) => void> = [];
  private readonly writer: RunRecordWriter<BuildRun> | undefined;

  constructor(
    private readonly options: {
      kept?: number;
      now?: () => Date;
      /** Where runs are also written, and listed from (the platform database). */
      record?: RunRecord<BuildRun>;
      /** A write to the record failed; the run goes on, and its next change is written again. */
      onRecordError?: (error: unknown) => void;
    } = {},
  ) {
    this.writer = options.record ? new RunRecordWriter(options.record, options.onRecordError ?? (() => {})) : undefined;
  }

  /**
   * A run asked for, as it is now (a copy); organizations named are its total until it lists what
   * it builds. `requestedBy`: the actor who asked; by default what the trigger says.
   */
  queued(trigger: BuildTrigger, scope: RunScope, requestedBy: string = REQUESTED_BY[trigger]): BuildRun {
    const run: BuildRun = {
      id: randomUUID(),
      trigger,
      requestedBy,
      scope: typeof scope === 'string' ? scope : 'named',
      state: 'queued',
      done: 0,
      total: typeof scope === 'string' ? 0 : scope.length,
      skipped: 0,
      queuedAt: this.now(),
      startedAt: null,
      finishedAt: null,
      organizations: [],
    };
    this.runs.push(run);
    this.byId.set(run.id, run);
    this.forgetOldRuns();
    this.write(run);
    return copyRun(run);
  }

  started(runId: string): void {
    const run = this.byId.get(runId);
    if (!run) return;
    run.state = 'running';
    run.startedAt = this.now();
    this.write(run);
  }

  /** The run has listed what it builds (buildOrganizations' onListed): its total, before the first is done, and what it skipped. */
  listed(runId: string, total: number, skipped = 0): void {
    const run = this.byId.get(runId);
    if (!run) return;
    run.total = total;
    run.skipped = skipped;
    this.write(run);
  }

  /** A run another builder opened, which this one takes part in: recorded here under the same id. */
  joined(opened: OpenedRun): void {
    if (this.byId.has(opened.id)) return;
    const run: BuildRun = {
      id: opened.id,
      trigger: opened.trigger,
      // A work list opened by an earlier release names no requester.
      requestedBy: opened.requestedBy ?? REQUESTED_BY[opened.trigger],
      scope: opened.scope,
      state: 'running',
      done: 0,
      total: opened.total,
      skipped: opened.skipped,
      queuedAt: opened.queuedAt,
      startedAt: opened.startedAt,
      finishedAt: null,
      organizations: [],
    };
    this.runs.push(run);
    this.byId.set(run.id, run);
    this.joinedIds.add(run.id);
    this.forgetOldRuns();
  }

  /** More organizations built, by this builder or another one of the run: `done` of the run's organizations in all. */
  progressed(runId: string, done: number, results: readonly RunResult[]): void {
    const run = this.byId.get(runId);
    if (!run) return;
    run.organizations.push(...results.map((result) => ({ ...result })));
    run.done = Math.max(done, run.organizations.length);
    if (!this.joinedIds.has(runId)) this.write(run, { progress: true });
  }

  /**
   * The run is over: finished when every organization it listed has its result (recorded by
   * progressed); failed, saying why, when it ends without (it could not list them, or its work
   * list was lost). A run whose results fall short is failed whatever its caller says.
   */
  finished(runId: string, outcome: { error?: string } = {}): void {
    const run = this.byId.get(runId);
    if (!run) return;
    run.finishedAt = this.now();
    const short = run.done < run.total ? `${run.total - run.done} of ${run.total} organizations have no result` : undefined;
    const error = [outcome.error, short].filter((text) => text !== undefined).join('; ');
    run.state = error ? 'failed' : 'finished';
    if (error) run.error = error;
    // A run another builder opened is that builder's to write, but for its end: it may have died.
    if (!this.joinedIds.has(runId) || run.state === 'finished') this.write(run);
    if (this.joinedIds.has(runId)) return;
    const startedMs = Date.parse(run.startedAt ?? run.queuedAt);
    const durationSeconds = Math.max(0, (Date.parse(run.finishedAt) - startedMs) / 1000);
    for (const listener of this.finishedListeners) listener(run, durationSeconds);
  }

  /** Told of each run opened here as it finishes (metrics): a divided run is counted once, by the builder that opened it. */
  onFinished(listener: (run: BuildRun, durationSeconds: number) => void): void {
    this.finishedListeners.push(listener);
  }

  /** This process's runs, newest first. Copies: a caller cannot change the record. */
  list(): BuildRun[] {
    return this.runs.map(copyRun).reverse();
  }

  get(runId: string): BuildRun | undefined {
    const run = this.byId.get(runId);
    return run ? copyRun(run) : undefined;
  }

  /** The newest runs of the record (every builder's, the CLI's), this process's live ones as they are now; without a record, this process's. */
  async recent(limit = this.options.kept ?? DEFAULT_RUNS_KEPT): Promise<BuildRun[]> {
    if (!this.options.record) return this.list().slice(0, limit);
    return mergeRuns(await this.options.record.list(limit), this.list(), limit);
  }

  /** One run, live here or from the record. */
  async find(runId: string): Promise<BuildRun | undefined> {
    const live = this.get(runId);
    const written = this.options.record ? await this.options.record.get(runId) : undefined;
    if (live === undefined || written === undefined) return live ?? written;
    return mergeRuns([written], [live], 1)[0];
  }

  /** Resolves once what was changed has been written to the record (before the database closes). */
  flush(): Promise<void> {
    return this.writer?.flush() ?? Promise.resolve();
  }

  private forgetOldRuns(): void {
    const kept = this.options.kept ?? DEFAULT_RUNS_KEPT;
    while (this.runs.length > kept) {
      const oldest = this.runs.shift()!;
      this.byId.delete(oldest.id);
      this.joinedIds.delete(oldest.id);
    }
  }

  private write(run: BuildRun, options?: { progress?: boolean }): void {
    this.writer?.write(copyRun(run), options);
  }

  private now(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }
}

function copyRun(run: BuildRun): BuildRun {
  return { ...run, organizations: run.organizations.map((result) => ({ ...result })) };
}
