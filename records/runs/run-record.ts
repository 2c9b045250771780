// Runs are part of the record (docs/design.md "Runs are part of the record"): every run a builder,
// start or `marquee build` makes is written to the platform database as it goes, with who or what
// asked for it, so that every builder's admin API and console list the same runs, after a restart
// too, CLI builds among them. The process running a run keeps it live in memory (build-runs.ts)
// and writes it here: at once when it is queued, starts and ends, at most once a second while it
// progresses. While it runs, its counts are written; its results per organization once it ends
// (a run over 10,000 organizations would otherwise rewrite megabytes every second).
import { describeError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import type { SqlQueries } from '../database/sql.ts';

/** What the record reads of a run (build-runs.ts's BuildRun, which imports this). */
interface RecordedRun {
  id: string;
  state: string;
  queuedAt: string;
  organizations: readonly unknown[];
  error?: string;
}

/** Where runs are kept. */
export interface RunRecord<Run extends RecordedRun> {
  /** Writes the run as it is now; a run already recorded finished is never changed again. */
  save(run: Run): Promise<void>;
  /** The newest `limit` runs, newest first. */
  list(limit: number): Promise<Run[]>;
  get(id: string): Promise<Run | undefined>;
}

/** Runs are kept this long: the audit trail and the history of publishes refer to them. */
const KEPT_DAYS = 90;
/** Old runs are deleted at most this often, by a process queuing a run. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** A process writes each run it has under way at least this often, changed or not (RunRecordWriter). */
const KEEP_ALIVE_MS = 30_000;
/**
 * A run under way not written for this long was left by a process that died (killed, its machine
 * lost) or lost the database: it is shown failed, never as running forever. Four keep-alives: a
 * write that waits out a slow database is not taken for a death. Its process, alive after all,
 * writes it again and it is under way again; only an end recorded is final.
 */
const ABANDONED_AFTER = `${(4 * KEEP_ALIVE_MS) / 1000} seconds`;
const ABANDONED = 'its process stopped writing it before it ended (killed, or cut off from the database); what it built is in the history';

/** Runs shown failed because their process stopped writing them, not because they ended so. */
const abandonedRuns = new WeakSet<object>();

// A finished run is final: a late write of the same run (a builder that stopped, writing
// "failed: stopped" after another builder finished it) cannot undo it.
const SAVE = `
  INSERT INTO marquee_run_records (id, queued_at, state, run, written_at) VALUES ($1, $2, $3, $4::jsonb, now())
  ON CONFLICT (id) DO UPDATE SET state = excluded.state, run = excluded.run, written_at = excluded.written_at
  WHERE marquee_run_records.state <> 'finished'`;

// Read with whether it was abandoned, by the database's clock (builders' clocks need not agree).
const READ = `SELECT run, state NOT IN ('finished', 'failed') AND written_at < now() - interval '${ABANDONED_AFTER}' AS abandoned FROM marquee_run_records`;

export class DatabaseRunRecord<Run extends RecordedRun> implements RunRecord<Run> {
  private lastPrune = 0;

  /** Marquee's relations must exist (migrateMarquee). */
  constructor(private readonly db: SqlQueries) {}

  async save(run: Run): Promise<void> {
    if (run.state === 'queued' && Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = Date.now();
      await this.db.query(`DELETE FROM marquee_run_records WHERE queued_at < now() - interval '${KEPT_DAYS} days'`);
    }
    await this.db.query(SAVE, [run.id, run.queuedAt, run.state, JSON.stringify(run)]);
  }

  async list(limit: number): Promise<Run[]> {
    const rows = await this.db.query<{ run: Run; abandoned: boolean }>(`${READ} ORDER BY queued_at DESC, id DESC LIMIT $1`, [limit]);
    return rows.map(shown);
  }

  async get(id: string): Promise<Run | undefined> {
    const [row] = await this.db.query<{ run: Run; abandoned: boolean }>(`${READ} WHERE id = $1`, [id]);
    return row && shown(row);
  }
}

function shown<Run extends RecordedRun>({ run, abandoned }: { run: Run; abandoned: boolean }): Run {
  if (!abandoned) return run;
  const failed = { ...run, state: 'failed', error: ABANDONED };
  abandonedRuns.add(failed);
  return failed;
}

/** What is written of a run: its results once it has ended, its counts until then. */
function recorded<Run extends RecordedRun>(run: Run): Run {
  return ended(run) ? run : { ...run, organizations: [] };
}

function ended(run: RecordedRun): boolean {
  return run.state === 'finished' || run.state === 'failed';
}

/**
 * The runs to show, newest first: those recorded, each replaced by this process's live copy while
 * the record has it under way (the live one has the results so far). Once the record has a run's
 * end, that end is shown everywhere: builders of a divided run each saw it end at their own
 * instant, and another may have finished a run this one stopped taking part in.
 */
export function mergeRuns<Run extends RecordedRun>(record: readonly Run[], live: readonly Run[], limit: number): Run[] {
  const byId = new Map(record.map((run) => [run.id, run]));
  for (const run of live) {
    const written = byId.get(run.id);
    // An end recorded is final; one read as abandoned is not, when this process has it under way.
    if (written && ended(written) && !abandonedRuns.has(written)) continue;
    byId.set(run.id, run);
  }
  return [...byId.values()].sort((a, b) => (a.queuedAt === b.queuedAt ? (a.id < b.id ? 1 : -1) : a.queuedAt < b.queuedAt ? 1 : -1)).slice(0, limit);
}

/**
 * Writes runs to a record without holding up the builds: one write in flight per run, the latest
 * state written after it; progress at most once per `progressEveryMs`, other changes at once. A
 * failed write is reported (the database is down) and the next change tries again.
 */
export class RunRecordWriter<Run extends RecordedRun> {
  private readonly slots = new Map<string, { latest: Run; dirty: boolean; timer?: NodeJS.Timeout; writing?: Promise<void> }>();

  constructor(
    private readonly record: RunRecord<Run>,
    private readonly onError: (error: unknown) => void,
    private readonly progressEveryMs = 1_000,
    keepAliveMs = KEEP_ALIVE_MS,
  ) {
    // Every run under way is written again now and then, changed or not: a reader takes one not
    // written for a while for a run whose process died (a run waiting for its organizations' build
    // locks may not progress for minutes).
    setInterval(() => {
      for (const slot of this.slots.values()) if (!ended(slot.latest)) this.write(slot.latest);
    }, keepAliveMs).unref();
  }

  /** `progress`: only counts changed, which may wait; otherwise written now. */
  write(run: Run, { progress = false }: { progress?: boolean } = {}): void {
    let slot = this.slots.get(run.id);
    if (!slot) {
      slot = { latest: run, dirty: true };
      this.slots.set(run.id, slot);
    }
    slot.latest = run;
    slot.dirty = true;
    if (slot.writing) return;
    if (!progress) {
      clearTimeout(slot.timer);
      slot.timer = undefined;
      this.start(run.id);
    } else if (!slot.timer) {
      slot.timer = setTimeout(() => {
        slot.timer = undefined;
        this.start(run.id);
      }, this.progressEveryMs);
      slot.timer.unref();
    }
  }

  /** Writes what waits, and resolves once every write is done (before the database is closed). */
  async flush(): Promise<void> {
    for (const [id, slot] of this.slots) {
      clearTimeout(slot.timer);
      slot.timer = undefined;
      if (!slot.writing && slot.dirty) this.start(id);
    }
    await Promise.all([...this.slots.values()].map((slot) => slot.writing));
  }

  private start(id: string): void {
    const slot = this.slots.get(id);
    if (!slot || slot.writing) return;
    slot.writing = (async () => {
      while (slot.dirty) {
        slot.dirty = false;
        try {
          await this.record.save(recorded(slot.latest));
        } catch (error) {
          this.onError(error);
        }
      }
    })().finally(() => {
      slot.writing = undefined;
      if (slot.dirty) this.start(id);
      else if (ended(slot.latest) && !slot.timer) this.slots.delete(id);
    });
  }
}

/** A write to the record that failed is said once per this long: the database is down, and every run says so at each change. */
const WARNING_EVERY_MS = 30_000;

/** The warning of a failed write, for a process's log: once per WARNING_EVERY_MS. */
export function recordWarnings(log: Log): (error: unknown) => void {
  let last = 0;
  return (error) => {
    if (Date.now() - last < WARNING_EVERY_MS) return;
    last = Date.now();
    log.warn(`a build run could not be written to the platform database; the run goes on, and its next change is written again: ${describeError(error)}`, { backend: 'database' });
  };
}
