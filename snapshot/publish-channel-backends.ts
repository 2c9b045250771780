// Which publish channel a process announces on and listens to: the one place that chooses. Redis
// pub/sub reaches every process; without Redis, announcements stay within this process.
import type { Log } from '../runtime/log.ts';
import { InProcessChannel, type PublishChannel } from './notifications.ts';
import { RedisPublishChannel } from './redis-channel.ts';
import type { SharedState } from '../runtime/shared-state.ts';

export type OpenPublishChannel = PublishChannel & { close(): Promise<void> };

export function openPublishChannel(shared: SharedState, log: Log): OpenPublishChannel {
  if (shared.redisUrl !== undefined) return new RedisPublishChannel(shared.redisUrl, { log });
  const channel = new InProcessChannel((error, organizationId) => log.error('publish listener failed', { organizationId, err: error }));
  return Object.assign(channel, { close: async () => {} });
}
