// Per-organization build locks in Redis (REDIS_URL), shared by every builder of a deployment:
// `SET key token NX PX ttl` takes a lock, and a compare-and-set on the token (a Lua script, atomic
// in Redis) renews or releases it, so a holder never extends or frees a lock that expired and
// another builder took meanwhile. Passes test/contracts/build-locks.ts.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Log } from '../runtime/log.ts';
import { openRedis, whenReady } from '../runtime/redis-connection.ts';
import { type BuildLease, type BuildLocks, DEFAULT_LOCK_TIMING, type LockTiming } from './build-locks.ts';

const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * How long one lock command may wait for Redis, connecting included. Commands are never queued
 * through an outage: a lock taken late, after its caller gave up, would block the organization
 * for a whole TTL with nobody building it.
 */
const COMMAND_TIMEOUT_MS = 2_000;

const DEFAULT_KEY_PREFIX = 'marquee:build-lock:';

/** Pause between attempts to give back a lock a failed acquire may have taken. */
const GIVE_BACK_RETRY_MS = 500;

export interface RedisBuildLocksOptions {
  log: Log;
  timing?: LockTiming;
  /** Lock keys are this followed by the organization id; every builder of one deployment uses the same. */
  keyPrefix?: string;
}

export class RedisBuildLocks implements BuildLocks {
  private readonly redis: Redis;
  private readonly log: Log;
  private readonly timing: LockTiming;
  private readonly keyPrefix: string;
  private readonly renewals = new Set<NodeJS.Timeout>();

  constructor(url: string, options: RedisBuildLocksOptions) {
    this.log = options.log;
    this.timing = options.timing ?? DEFAULT_LOCK_TIMING;
    this.keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    // No offline queue, and nothing resent after a reconnection (ioredis resends what was in flight
    // by default): either would send a SET whose caller gave up, and take a lock nobody holds.
    this.redis = openRedis(url, 'build locks', this.log, { enableOfflineQueue: false, autoResendUnfulfilledCommands: false, commandTimeout: COMMAND_TIMEOUT_MS });
  }

  async acquire(organizationId: string): Promise<BuildLease | undefined> {
    const key = this.keyPrefix + organizationId;
    const token = randomUUID();
    await whenReady(this.redis, COMMAND_TIMEOUT_MS);
    let answer: string | null;
    try {
      answer = await this.redis.set(key, token, 'PX', this.timing.ttlMs, 'NX');
    } catch (error) {
      this.giveBack(key, token);
      throw error;
    }
    if (answer !== 'OK') return undefined;
    const renewal = setInterval(() => void this.renew(organizationId, key, token, renewal), this.timing.renewEveryMs);
    renewal.unref();
    this.renewals.add(renewal);
    return {
      release: async () => {
        if (!this.stopRenewing(renewal)) return;
        try {
          await whenReady(this.redis, COMMAND_TIMEOUT_MS);
          await this.redis.eval(RELEASE, 1, key, token);
        } catch (error) {
          this.log.warn(`build lock of organization ${organizationId} not released; it expires within ${this.timing.ttlMs / 1000} s`, {
            organizationId,
            backend: 'redis',
            err: error,
          });
        }
      },
    };
  }

  async close(): Promise<void> {
    for (const renewal of this.renewals) clearInterval(renewal);
    this.renewals.clear();
    this.redis.disconnect();
  }

  private async renew(organizationId: string, key: string, token: string, renewal: NodeJS.Timeout): Promise<void> {
    try {
      if ((await this.redis.eval(RENEW, 1, key, token, this.timing.ttlMs)) !== 0) return;
      // Expired before this renewal (Redis was unreachable for a TTL, or this process stalled):
      // another builder may be building the organization now. The conditional pointer write
      // keeps whichever build read later from being overwritten by this one.
      this.stopRenewing(renewal);
      this.log.warn(`build lock of organization ${organizationId} expired while its build ran`, { organizationId });
    } catch (error) {
      // The next renewal tries again; the lock is lost only if none succeeds within the TTL.
      this.log.warn(`build lock of organization ${organizationId} not renewed`, { organizationId, backend: 'redis', err: error });
    }
  }

  /**
   * A SET whose answer did not come (a slow or lost connection) may still have reached Redis and
   * taken the lock, and nobody would build the organization until it expired. Releases it by its
   * token, which nothing else holds (a no-op if the SET did not take it), until Redis answers or
   * the lock would have expired anyway. On one connection, Redis runs this after that SET.
   */
  private giveBack(key: string, token: string): void {
    const deadline = performance.now() + this.timing.ttlMs;
    const attempt = async (): Promise<void> => {
      try {
        await whenReady(this.redis, COMMAND_TIMEOUT_MS);
        await this.redis.eval(RELEASE, 1, key, token);
      } catch {
        if (performance.now() < deadline && this.redis.status !== 'end') setTimeout(() => void attempt(), GIVE_BACK_RETRY_MS).unref();
      }
    };
    void attempt();
  }

  /** False when the renewal had already stopped (released before, lost, or closed). */
  private stopRenewing(renewal: NodeJS.Timeout): boolean {
    clearInterval(renewal);
    return this.renewals.delete(renewal);
  }
}
