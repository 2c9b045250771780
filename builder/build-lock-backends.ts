// How builders keep out of one another's way, the one place that chooses: which build locks a
// builder takes (in Redis, shared by every builder of the platform; without Redis, a table in this
// process: one builder), who runs a scheduled full build (with Redis, the first builder to claim
// the period; without, this one, always), and where runs are divided among builders (a Redis
// Stream; without Redis, the runner's in-process list).
import type { Log } from '../snapshot/log.ts';
import type { SharedState } from '../snapshot/shared-state.ts';
import { type BuildLocks, InProcessBuildLocks } from './build-locks.ts';
import { RedisBuildLocks } from './redis-build-locks.ts';
import { RedisScheduleClaims, type ScheduleClaims } from './runs/redis-schedule-claims.ts';
import { RedisWorkList } from './runs/redis-work-list.ts';
import type { WorkList } from './runs/work-list.ts';

export function openBuildLocks(shared: SharedState, log: Log): BuildLocks {
  return shared.redisUrl === undefined ? new InProcessBuildLocks() : new RedisBuildLocks(shared.redisUrl, { log });
}

/** Undefined: this process is the only builder, and runs every period. */
export function openScheduleClaims(shared: SharedState, log: Log, builder: string): ScheduleClaims | undefined {
  return shared.redisUrl === undefined ? undefined : new RedisScheduleClaims(shared.redisUrl, { log, builder });
}

/** Undefined: this process is the only builder, and its runner keeps the list in process. */
export function openWorkList(shared: SharedState, log: Log): WorkList | undefined {
  return shared.redisUrl === undefined ? undefined : new RedisWorkList(shared.redisUrl, { log });
}
