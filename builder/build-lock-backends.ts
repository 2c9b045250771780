// Which build locks a builder takes: the one place that chooses. In Redis, shared by every builder
// of the platform; without Redis, a table in this process (one builder).
import type { Log } from '../snapshot/log.ts';
import type { SharedState } from '../snapshot/shared-state.ts';
import { type BuildLocks, InProcessBuildLocks } from './build-locks.ts';
import { RedisBuildLocks } from './redis-build-locks.ts';

export function openBuildLocks(shared: SharedState, log: Log): BuildLocks {
  return shared.redisUrl === undefined ? new InProcessBuildLocks() : new RedisBuildLocks(shared.redisUrl, { log });
}
