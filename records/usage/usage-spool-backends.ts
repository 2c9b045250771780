// Where usage counts wait between gateways and builders, chosen in one place like every shared seam
// (runtime/shared-state.ts): Redis when REDIS_URL is set, a directory in MARQUEE_HOME otherwise. A
// gateway puts on the connection it already has for keys (gateway/access/access-backends.ts); a
// builder's intake (usage-intake.ts) takes on a connection of its own, opened here.
import { join } from 'node:path';
import type { Log } from '../../runtime/log.ts';
import { closeRedis, openRedis, whenReady } from '../../runtime/redis-connection.ts';
import type { SharedState } from '../../runtime/shared-state.ts';
import { FileUsageSpool } from './file-usage-spool.ts';
import { RedisUsageSpool } from './redis-usage-spool.ts';
import type { UsageInbox } from './usage-spool.ts';

/** A gateway's shared place without Redis: a directory in MARQUEE_HOME. */
export const fileUsageSpool = (home: string): FileUsageSpool => new FileUsageSpool(join(home, 'usage'));

/** The intake's connection: a command never waits behind an outage; the intake retries every round. */
const INTAKE_CONNECTION = { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 5_000 } as const;

/** A builder's side of the shared place, until `close`. */
export function openUsageInbox(shared: SharedState, log: Log): { inbox: UsageInbox; close(): Promise<void> } {
  if (shared.redisUrl === undefined) return { inbox: fileUsageSpool(shared.home), close: async () => {} };
  const redis = openRedis(shared.redisUrl, 'usage intake', log, INTAKE_CONNECTION);
  const spool = new RedisUsageSpool(redis);
  // The intake's first round comes as the builder starts, before the connection is up, and a
  // connection without an offline queue refuses what is sent before then: until it is first up, a
  // round waits for it, as long as a command may take. Later, an outage fails a round at once.
  let connected = false;
  redis.once('ready', () => {
    connected = true;
  });
  const inbox: UsageInbox = {
    waiting: async (limit) => {
      if (!connected) await whenReady(redis, INTAKE_CONNECTION.commandTimeout);
      return spool.waiting(limit);
    },
    countWaiting: async () => {
      if (!connected) await whenReady(redis, INTAKE_CONNECTION.commandTimeout);
      return spool.countWaiting();
    },
    markCounted: (ids) => spool.markCounted(ids),
  };
  return { inbox, close: () => closeRedis(redis) };
}
