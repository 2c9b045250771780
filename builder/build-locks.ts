// Per-organization build locks (docs/design.md "Production shape"): several builders share one
// platform database and one store, and each organization is built by one of them at a time. A lock
// is a lease with a time to live that its holder renews while the build runs, so a builder that
// dies holding one blocks that organization for at most the TTL. The in-process table is here
// (one builder process); Redis, shared by many, is in redis-build-locks.ts. Every implementation
// passes test/contracts/build-locks.ts.
import { setTimeout as sleep } from 'node:timers/promises';

export interface BuildLease {
  /**
   * Gives the lock up and stops renewing it. A lock that expired and was taken by another holder
   * meanwhile is left alone; calling it twice is harmless. Never throws: a lock that could not be
   * released expires after its TTL.
   */
  release(): Promise<void>;
}

export interface BuildLocks {
  /**
   * The organization's lock, renewed until released; undefined while another holder has it.
   * Rejects only when the lock service cannot be reached.
   */
  acquire(organizationId: string): Promise<BuildLease | undefined>;
  /**
   * Stops renewing this holder's leases without releasing them, as a killed process would: they
   * expire after their TTL. (A graceful stop lets its builds finish, and they release their leases.)
   */
  close(): Promise<void>;
}

export interface LockTiming {
  /** A lock not renewed for this long is free again. */
  ttlMs: number;
  /** How often a holder renews its locks: well under the TTL, so one late renewal loses nothing. */
  renewEveryMs: number;
}

/** A dead builder's organizations wait at most 30 s; a holder has three chances to renew before that. */
export const DEFAULT_LOCK_TIMING: LockTiming = { ttlMs: 30_000, renewEveryMs: 10_000 };

const FIRST_RETRY_MS = 50;
const LONGEST_RETRY_MS = 1_000;

/**
 * Waits for the organization's lock: asks again after 50 ms, then twice as long each time up to a
 * second, until it is free or `timeoutMs` has passed (undefined). Polling rather than being told of
 * a release keeps every implementation to acquire alone; a holder's build takes far longer than
 * the pauses anyway.
 */
export async function waitForLock(locks: BuildLocks, organizationId: string, timeoutMs: number): Promise<BuildLease | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (let pause = FIRST_RETRY_MS; ; pause = Math.min(pause * 2, LONGEST_RETRY_MS)) {
    const lease = await locks.acquire(organizationId);
    if (lease) return lease;
    const left = deadline - performance.now();
    if (left <= 0) return undefined;
    await sleep(Math.min(pause, left));
  }
}

interface Holding {
  readonly token: symbol;
  expiresAt: number;
}

/**
 * The locks of one process: what keeps a change build and a full build of the same organization
 * apart within one builder when no Redis is configured.
 */
export class InProcessBuildLocks implements BuildLocks {
  private readonly renewals = new Set<NodeJS.Timeout>();

  constructor(
    private readonly timing: LockTiming = DEFAULT_LOCK_TIMING,
    private readonly table = new Map<string, Holding>(),
  ) {}

  /** Another holder of the same table, with its own timing and renewals: what a second builder process is to Redis. */
  sibling(timing: LockTiming = this.timing): InProcessBuildLocks {
    return new InProcessBuildLocks(timing, this.table);
  }

  async acquire(organizationId: string): Promise<BuildLease | undefined> {
    const current = this.table.get(organizationId);
    if (current && current.expiresAt > performance.now()) return undefined;
    const holding: Holding = { token: Symbol(organizationId), expiresAt: performance.now() + this.timing.ttlMs };
    this.table.set(organizationId, holding);
    const renewal = setInterval(() => {
      if (this.table.get(organizationId) === holding) holding.expiresAt = performance.now() + this.timing.ttlMs;
    }, this.timing.renewEveryMs);
    renewal.unref();
    this.renewals.add(renewal);
    return {
      release: async () => {
        clearInterval(renewal);
        this.renewals.delete(renewal);
        if (this.table.get(organizationId) === holding) this.table.delete(organizationId);
      },
    };
  }

  async close(): Promise<void> {
    for (const renewal of this.renewals) clearInterval(renewal);
    this.renewals.clear();
  }
}
