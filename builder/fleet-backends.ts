// How builders of a fleet keep out of one another's way, the one place that chooses: which build locks a
// builder takes (in Redis, shared by every builder of the platform; without Redis, a table in this
// process: one builder), who runs a scheduled run (with several builders, the first to claim the
// period in the platform database; with one, this one, always), and where runs are divided among
// builders (with several builders, the platform database; with one, the runner's in-process list),
// and who builds a change every builder heard (with several, the first to claim it in the database).
// REDIS_URL is what makes several builders possible, since their build locks are kept there; the
// runs themselves are never kept in Redis, whose data may be lost at any moment (docs/design.md
// "A run never lies").
import type { RunCoordinator } from 'node-cron';
import type { Log } from '../runtime/log.ts';
import type { SharedState } from '../runtime/shared-state.ts';
import { type BuildLocks, InProcessBuildLocks } from './build-locks.ts';
import type { SqlClient } from '../records/database/sql.ts';
import { RedisBuildLocks } from './redis-build-locks.ts';
import type { ChangeClaims } from './runs/change-builds.ts';
import { DatabaseChangeClaims } from './runs/database-change-claims.ts';
import { DatabaseScheduleClaims } from './runs/database-schedule-claims.ts';
import { DatabaseWorkList } from './runs/database-work-list.ts';
import type { WorkList } from './runs/work-list.ts';

export function openBuildLocks(shared: SharedState, log: Log): BuildLocks {
  return shared.redisUrl === undefined ? new InProcessBuildLocks() : new RedisBuildLocks(shared.redisUrl, { log });
}

/** Undefined: this process is the only builder, and runs every period. */
export function openScheduleClaims(shared: SharedState, db: SqlClient, log: Log, builder: string): RunCoordinator | undefined {
  return shared.redisUrl === undefined ? undefined : new DatabaseScheduleClaims(db, { log, builder });
}

/** Undefined: this process is the only builder, and builds every change it hears. */
export function openChangeClaims(shared: SharedState, db: SqlClient, log: Log, builder: string): ChangeClaims | undefined {
  return shared.redisUrl === undefined ? undefined : new DatabaseChangeClaims(db, { log, builder });
}

/** Undefined: this process is the only builder, and its runner keeps the list in process. */
export function openWorkList(shared: SharedState, db: SqlClient): WorkList | undefined {
  return shared.redisUrl === undefined ? undefined : new DatabaseWorkList(db);
}
