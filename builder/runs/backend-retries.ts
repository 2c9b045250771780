// Organizations whose builds failed for want of a backend (the store, the database, Redis for its
// lock), built again without anyone asking once the backends answer. For the whole builder, not per
// organization: a store that fell behind under load and failed a full build's thousand
// organizations would otherwise get a thousand retries a second later, and as many again two
// seconds after, which keeps it from catching up. Instead, after a pause (1 s, doubling with each
// failed probe up to a minute) one waiting organization is built as a probe; when it, or any other
// build, succeeds, every waiting organization is built, as change builds are, a few at a time.
export interface BackendRetriesOptions {
  /** Builds one organization again (the runner's change build). */
  rebuild: (organizationId: string) => void;
  firstPauseMs?: number;
  longestPauseMs?: number;
}

export class BackendRetries {
  private readonly waiting = new Set<string>();
  /** Failed probes since a build last succeeded. */
  private failedProbes = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The organization being built as the probe. */
  private probe: string | undefined;
  private stopped = false;

  constructor(private readonly options: BackendRetriesOptions) {}

  /** Its build failed for want of a backend: it waits for the next probe. */
  unavailable(organizationId: string): void {
    if (this.stopped) return;
    this.waiting.add(organizationId);
    if (this.probe === organizationId) {
      this.probe = undefined;
      this.failedProbes++;
    }
    if (this.probe === undefined && this.timer === undefined) this.scheduleProbe();
  }

  /** Its build succeeded: the backends answer, so every waiting organization is built now. */
  built(organizationId: string): void {
    this.waiting.delete(organizationId);
    if (this.probe === organizationId) this.probe = undefined;
    if (this.waiting.size === 0 && this.probe === undefined && this.timer === undefined) return;
    this.failedProbes = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const id of waiting) this.options.rebuild(id);
  }

  /** Its build failed for a reason another attempt cannot mend (its rows fail their schema): it no longer waits. */
  abandoned(organizationId: string): void {
    this.waiting.delete(organizationId);
    if (this.probe !== organizationId) return;
    // Says nothing of the backends: the next waiting organization probes them after the same pause.
    this.probe = undefined;
    if (this.waiting.size > 0 && this.timer === undefined) this.scheduleProbe();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting.clear();
  }

  private scheduleProbe(): void {
    const pause = Math.min((this.options.firstPauseMs ?? 1_000) * 2 ** this.failedProbes, this.options.longestPauseMs ?? 60_000);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const [next] = this.waiting;
      if (next === undefined || this.stopped) return;
      this.waiting.delete(next);
      this.probe = next;
      this.options.rebuild(next);
    }, pause);
    this.timer.unref();
  }
}
