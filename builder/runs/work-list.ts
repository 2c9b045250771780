// The work list of a run divided among builders (docs/design.md "Runs divided among builders"): the
// builder that starts a run opens it with the organizations it builds, and every live builder takes
// them one at a time until none is left, so each organization is built once per run by whichever
// builder takes it. A claim its builder stops keeping (the process died) is taken over by another
// builder once it has been idle for the claim timeout. Results are recorded in the list, so every
// builder follows the same run: its progress and each organization's result, naming who built it.
//
// Here the seam and the in-process list (one builder, no Redis); several builders share the one in
// the platform database (database-work-list.ts). Every implementation passes test/contracts/work-list.ts.
import type { BuildTrigger } from '../../snapshot/manifest.ts';
import type { Target } from '../build.ts';

/** A run as every builder sees it, from the moment it is opened. */
export interface OpenedRun {
  id: string;
  trigger: BuildTrigger;
  scope: 'named' | 'every' | 'changed';
  /** Who or what asked for it (build-runs.ts BuildRun.requestedBy); absent in a run an earlier release opened. */
  requestedBy?: string;
  /** The builder that opened it (BUILDER_NAME). */
  openedBy: string;
  /** ISO instants. */
  queuedAt: string;
  startedAt: string;
  /** Organizations in the list, and those a run of changed ones left out as unchanged. */
  total: number;
  skipped: number;
}

/** One organization's outcome in a run, as the admin API shows it. */
export interface RunResult {
  id: string;
  slug: string;
  result: 'published' | 'unchanged' | 'suspended' | 'failed';
  snapshotId?: string;
  error?: string;
  /** Built for the rolling verification, not because it changed. */
  verified?: true;
  /** The builder that built it (BUILDER_NAME). */
  builder: string;
}

/** An organization taken from a run's list; `entry` identifies the claim. */
export interface Claim {
  entry: string;
  organization: Target;
}

export interface RunProgress {
  run: OpenedRun;
  /** Organizations with a result. */
  done: number;
  /** Set once every organization has its result. */
  finishedAt: string | null;
  /** The results from index `from` on, in the order they were recorded. */
  results: RunResult[];
}

export interface WorkList {
  /** Opens a run with its organizations, for every builder to take from. A run of none is finished at once. */
  open(run: OpenedRun, organizations: readonly Target[]): Promise<void>;
  /** Runs opened and not finished: every builder takes part in each. */
  unfinished(): Promise<OpenedRun[]>;
  /** The organizations an unfinished run lists and has no result for yet: each will be built, and read then. */
  waiting(): Promise<Set<string>>;
  /**
   * Up to `count` organizations of the run for `builder`: those nobody has taken, then those whose
   * claim has gone unkept longer than the claim timeout (their builder died). Empty when there
   * is none to take now; others may still be building theirs.
   */
  take(runId: string, builder: string, count: number): Promise<Claim[]>;
  /** Keeps `builder`'s claims from being taken over while it builds them. */
  keep(runId: string, builder: string, entries: readonly string[]): Promise<void>;
  /**
   * Records one organization's result and ends its claim. The first result for an organization
   * counts; a later one (a claim taken over from a builder that was slow, not dead) is dropped.
   */
  complete(runId: string, entry: string, result: RunResult): Promise<void>;
  /** The run with the results from index `from` on; undefined for a run the list does not know (or no longer keeps). */
  progress(runId: string, from?: number): Promise<RunProgress | undefined>;
  close(): Promise<void>;
}

/** A claim unkept this long is taken over: builders keep theirs at a third of it, so a live builder never loses one. */
export const DEFAULT_CLAIM_TIMEOUT_MS = 15_000;

/** Finished runs an in-process list keeps. */
const RUNS_KEPT = 100;

interface InProcessRun {
  run: OpenedRun;
  waiting: Array<Claim>;
  claimed: Map<string, { claim: Claim; builder: string; keptAt: number }>;
  finished: Set<string>;
  results: RunResult[];
  finishedAt: string | null;
}

/** One process's list: several runners in this process (tests) share it as builders share Redis. */
export class InProcessWorkList implements WorkList {
  private readonly runs = new Map<string, InProcessRun>();
  private readonly claimTimeoutMs: number;
  private readonly now: () => number;

  constructor(options: { claimTimeoutMs?: number; now?: () => number } = {}) {
    this.claimTimeoutMs = options.claimTimeoutMs ?? DEFAULT_CLAIM_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
  }

  async open(run: OpenedRun, organizations: readonly Target[]): Promise<void> {
    const waiting = organizations.map((organization, index) => ({ entry: String(index), organization: { ...organization } }));
    const finishedAt = organizations.length === 0 ? new Date(this.now()).toISOString() : null;
    this.runs.set(run.id, { run: { ...run }, waiting, claimed: new Map(), finished: new Set(), results: [], finishedAt });
    // Bounded like the run records (build-runs.ts): the oldest finished runs are forgotten.
    const finished = [...this.runs.values()].filter((state) => state.finishedAt !== null);
    for (const state of finished.slice(0, Math.max(0, finished.length - RUNS_KEPT))) this.runs.delete(state.run.id);
  }

  async unfinished(): Promise<OpenedRun[]> {
    return [...this.runs.values()].filter((state) => state.finishedAt === null).map((state) => ({ ...state.run }));
  }

  async waiting(): Promise<Set<string>> {
    const ids = new Set<string>();
    for (const state of this.runs.values()) {
      if (state.finishedAt !== null) continue;
      for (const claim of state.waiting) ids.add(claim.organization.id);
      for (const { claim } of state.claimed.values()) ids.add(claim.organization.id);
    }
    return ids;
  }

  async take(runId: string, builder: string, count: number): Promise<Claim[]> {
    const state = this.runs.get(runId);
    if (!state || state.finishedAt !== null) return [];
    const taken: Claim[] = [];
    const now = this.now();
    for (const [entry, claimed] of state.claimed) {
      if (taken.length >= count) break;
      if (now - claimed.keptAt < this.claimTimeoutMs) continue;
      state.claimed.set(entry, { claim: claimed.claim, builder, keptAt: now });
      taken.push(claimed.claim);
    }
    while (taken.length < count && state.waiting.length > 0) {
      const claim = state.waiting.shift()!;
      state.claimed.set(claim.entry, { claim, builder, keptAt: now });
      taken.push(claim);
    }
    return taken.map((claim) => ({ entry: claim.entry, organization: { ...claim.organization } }));
  }

  async keep(runId: string, builder: string, entries: readonly string[]): Promise<void> {
    const state = this.runs.get(runId);
    const now = this.now();
    for (const entry of entries) {
      const claimed = state?.claimed.get(entry);
      if (claimed?.builder === builder) claimed.keptAt = now;
    }
  }

  async complete(runId: string, entry: string, result: RunResult): Promise<void> {
    const state = this.runs.get(runId);
    if (!state) return;
    state.claimed.delete(entry);
    if (state.finished.has(result.id)) return;
    state.finished.add(result.id);
    state.results.push({ ...result });
    if (state.results.length >= state.run.total) state.finishedAt = new Date(this.now()).toISOString();
  }

  async progress(runId: string, from = 0): Promise<RunProgress | undefined> {
    const state = this.runs.get(runId);
    if (!state) return undefined;
    return { run: { ...state.run }, done: state.results.length, finishedAt: state.finishedAt, results: state.results.slice(from).map((result) => ({ ...result })) };
  }

  async close(): Promise<void> {}
}
