// How often a gateway may ask failing snapshot storage to re-read what it already holds. While the
// store answers, every stale pointer is re-read as usual. Once a read finds it unreachable, re-reads
// of held snapshots stop for a pause (1 s, doubling with each failure up to 10 s), after which one
// re-read goes as a probe; the held snapshots are served meanwhile. Without this, each organization
// a request came for re-read its pointer every second: a store that fell behind under load got as
// many reads a second as there were organizations asked for, and never caught up
// (docs/reliability.md, the soak). Reads the gateway cannot do without (an organization it never read, an
// object not in memory) and re-reads a publish announcement asks for are not held back: they are
// demand, not repetition, and any one of them that succeeds ends the pause.
export interface StoreBackoffOptions {
  firstPauseMs?: number;
  longestPauseMs?: number;
  /** Real elapsed time, never the injected API clock. */
  now?: () => number;
}

export class StoreBackoff {
  private readonly firstPauseMs: number;
  private readonly longestPauseMs: number;
  private readonly now: () => number;
  /** Failures since the store last answered; 0 while it answers. */
  private failures = 0;
  /** Monotonic milliseconds before which no held snapshot is re-read. */
  private pausedUntil = -Infinity;
  /** A probe is out: no second one until it has answered. */
  private probing = false;

  constructor(options: StoreBackoffOptions = {}) {
    this.firstPauseMs = options.firstPauseMs ?? 1_000;
    this.longestPauseMs = options.longestPauseMs ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  /** Whether a held snapshot may be re-read now. During a pause, no; after it, yes once, as the probe. */
  mayReread(): boolean {
    if (this.failures === 0) return true;
    if (this.probing || this.now() < this.pausedUntil) return false;
    this.probing = true;
    return true;
  }

  /** The store answered a read (whatever it said): the pause, if any, is over. */
  answered(): void {
    this.failures = 0;
    this.probing = false;
    this.pausedUntil = -Infinity;
  }

  /** A read found the store unreachable: pause, longer each time until one answers. */
  unreachable(): void {
    this.failures++;
    this.probing = false;
    this.pausedUntil = this.now() + Math.min(this.firstPauseMs * 2 ** (this.failures - 1), this.longestPauseMs);
  }
}
