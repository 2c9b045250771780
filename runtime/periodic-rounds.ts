// A job run in rounds: one now and then one every interval until stopped, never two at once (a
// round asked for while one runs starts after it). The builder's background work that keeps
// shared records in step (records/keys/key-keeper.ts, records/usage/usage-intake.ts) runs so.

export class PeriodicRounds<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  /** `round` must not reject: a job logs its own failures and answers what it likes for them. */
  constructor(
    private readonly round: () => Promise<T>,
    private readonly intervalMs: number,
  ) {}

  /** A round now, then one every interval after each ends, until `stop`; the timer keeps no process alive. */
  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      this.timer = setTimeout(() => void this.now().finally(tick), this.intervalMs);
      this.timer.unref();
    };
    void this.now().finally(tick);
  }

  /** One round, after any in progress. */
  now(): Promise<T> {
    const next = this.running.then(this.round);
    this.running = next;
    return next;
  }

  /** No more rounds on the timer; resolves once the one in progress, if any, has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
