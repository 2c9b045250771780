// Warnings about snapshot storage (the store, the CDN) that cannot be reached, without a flood:
// while it is down every request and every pointer refresh may fail the same way, and a log line
// each would bury everything else. The first failure is logged at once, then at most one line
// per interval, saying how many failures it stands for. No stack: an outage is not a bug in the
// gateway, and the reason (StoreUnavailableError's message and causes) says what happened.
import { describeError } from '../../runtime/errors.ts';
import type { Log, LogFields } from '../../runtime/log.ts';

export class OutageWarning {
  private lastAt = -Infinity;
  private leftOut = 0;

  constructor(
    private readonly log: Log,
    private readonly message: string,
    private readonly intervalMs = 10_000,
    /** Real elapsed time: the interval is about the log's reader, not the API clock. */
    private readonly now: () => number = () => performance.now(),
  ) {}

  report(error: unknown, fields: LogFields = {}): void {
    const at = this.now();
    if (at - this.lastAt < this.intervalMs) {
      this.leftOut++;
      return;
    }
    const leftOut = this.leftOut > 0 ? { failuresSinceLastLine: this.leftOut } : {};
    this.log.warn(this.message, { ...fields, reason: describeError(error), ...leftOut });
    this.lastAt = at;
    this.leftOut = 0;
  }
}
