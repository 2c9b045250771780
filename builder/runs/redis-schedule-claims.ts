// One scheduled full build per period for the whole fleet (docs/design.md "Builders at platform
// scale"): every builder's schedule fires, and node-cron asks this coordinator whether this one
// should run. The first builder to `SET NX` the period's key runs it; the others skip it. The key
// names the schedule's slot (the instant the expression matched, the same on every builder
// whatever its clock's small drift), so there is nothing to release: the claim expires by itself
// long after every builder has passed that slot. Without Redis there is one builder, which runs
// every period (no coordinator).
import type { RunCoordinator } from 'node-cron';
import type { Redis } from 'ioredis';
import type { Log } from '../../snapshot/log.ts';
import { closeRedis, openRedis, whenReady } from '../../snapshot/redis-connection.ts';

/** Longer than any builder's clock may be off: a slot is never run twice. */
export const SCHEDULE_CLAIM_MS = 60 * 60 * 1_000;

/** How long a claim may wait for Redis: a period it cannot claim is skipped, the next one comes. */
const COMMAND_TIMEOUT_MS = 2_000;

export interface ScheduleClaims extends RunCoordinator {
  close(): Promise<void>;
}

export class RedisScheduleClaims implements ScheduleClaims {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly options: { log: Log; builder: string; keyPrefix?: string },
  ) {
    this.redis = openRedis(url, 'schedule claims', options.log, { enableOfflineQueue: false, autoResendUnfulfilledCommands: false, commandTimeout: COMMAND_TIMEOUT_MS });
  }

  /** `key` is node-cron's: the task's name and the slot's instant. The value names the builder that ran it. */
  async shouldRun(key: string, ttlMs: number): Promise<boolean> {
    await whenReady(this.redis, COMMAND_TIMEOUT_MS);
    return (await this.redis.set(`${this.options.keyPrefix ?? 'marquee:schedule:'}${key}`, this.options.builder, 'PX', ttlMs, 'NX')) === 'OK';
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }
}
