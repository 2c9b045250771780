// What a process knows of each backend it uses (the platform database, Redis, the snapshot store,
// the CDN): whether it answered its last probe or operation, why not, and when it last did. One
// record per process, written by the background probes (backend-probes.ts) and by the parts that
// notice a failure first (the gateway's key verdicts, the CDN invalidations), and read by both
// GET /readyz (readiness.ts) and /metrics (backend-metrics.ts): the two can never disagree.

export type BackendName = 'database' | 'redis' | 'store' | 'cdn';

/**
 * `ok`: answered its last probe or operation. `degraded`: answers, but not as it should (said in
 * `why`). `down`: did not answer (or never has yet).
 */
export type BackendCondition = 'ok' | 'degraded' | 'down';

/** One backend as /readyz shows it. */
export interface BackendReport {
  state: BackendCondition;
  /** Why it is not ok. */
  why?: string;
  /** Whole seconds since it last answered; absent when it never has since the process started. */
  lastSuccessSecondsAgo?: number;
  /** What the process does while the backend is not ok. */
  meanwhile?: string;
}

interface Entry {
  state: BackendCondition;
  why: string | undefined;
  /** Clock milliseconds of the last answer; undefined: none yet. */
  lastSuccessMs: number | undefined;
  readonly meanwhile: string;
}

export interface BackendUse {
  /** What the process does while this backend is not ok ("answering keys it checked in the last 5 minutes from memory"). */
  meanwhile: string;
  /**
   * Counted as answering from the start: for a backend the process only talks to now and then
   * (the CDN's invalidations), for which "not answered yet" would be a false alarm. Others start
   * `down`, "not answered yet", until their first probe answers.
   */
  assumeAnswering?: boolean;
}

export class BackendStates {
  private readonly entries = new Map<BackendName, Entry>();
  readonly startedMs: number;

  constructor(private readonly clock: () => number = Date.now) {
    this.startedMs = clock();
  }

  /** This process uses `backend`. A second call for the same backend keeps what is known of it. */
  use(backend: BackendName, use: BackendUse): void {
    if (this.entries.has(backend)) return;
    const answering = use.assumeAnswering === true;
    this.entries.set(backend, {
      state: answering ? 'ok' : 'down',
      why: answering ? undefined : 'not answered yet',
      lastSuccessMs: answering ? this.clock() : undefined,
      meanwhile: use.meanwhile,
    });
  }

  /** It answered, as it should. */
  answered(backend: BackendName): void {
    this.heardFrom(backend, 'ok', undefined);
  }

  /** It answered, but not as it should. */
  degraded(backend: BackendName, why: string): void {
    this.heardFrom(backend, 'degraded', why);
  }

  /** An answer, of either kind: it is reachable now. */
  private heardFrom(backend: BackendName, state: 'ok' | 'degraded', why: string | undefined): void {
    const entry = this.entries.get(backend);
    if (entry === undefined) return;
    entry.state = state;
    entry.why = why;
    entry.lastSuccessMs = this.clock();
  }

  /** It did not answer. */
  failed(backend: BackendName, why: string): void {
    const entry = this.entries.get(backend);
    if (entry === undefined) return;
    entry.state = 'down';
    entry.why = why;
  }

  /** The backends this process uses, in the order they were declared. */
  used(): BackendName[] {
    return [...this.entries.keys()];
  }

  stateOf(backend: BackendName): BackendCondition | undefined {
    return this.entries.get(backend)?.state;
  }

  /** Seconds since `backend` last answered; since the process started when it never has. */
  secondsSinceSuccess(backend: BackendName): number {
    const entry = this.entries.get(backend);
    const since = entry?.lastSuccessMs ?? this.startedMs;
    return Math.max(0, (this.clock() - since) / 1000);
  }

  /** Every backend used, as /readyz shows them. */
  report(): Partial<Record<BackendName, BackendReport>> {
    const report: Partial<Record<BackendName, BackendReport>> = {};
    for (const [backend, entry] of this.entries) {
      const shown: BackendReport = { state: entry.state };
      if (entry.why !== undefined) shown.why = entry.why;
      if (entry.lastSuccessMs !== undefined) shown.lastSuccessSecondsAgo = Math.max(0, Math.floor((this.clock() - entry.lastSuccessMs) / 1000));
      if (entry.state !== 'ok') shown.meanwhile = entry.meanwhile;
      report[backend] = shown;
    }
    return report;
  }
}
