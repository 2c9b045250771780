// One Redis connection (REDIS_URL) opened the way every Marquee part opens one: it reconnects for
// ever with a delay capped at one second, a lost connection is one warning per outage (not one per
// retry, and never ioredis' "unhandled error event" on stderr), and a caller can wait for it to be
// usable within a bound instead of queueing commands behind an outage.
import { Redis, type RedisOptions } from 'ioredis';
import type { Log } from './log.ts';

/** Longest pause between reconnection attempts: a restarted Redis is in use again within a second. */
const MAX_RECONNECT_DELAY_MS = 1_000;

/** `purpose` names the connection in the log: "publish channel subscriber", "build locks". */
export function openRedis(url: string, purpose: string, log: Log, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, {
    retryStrategy: (attempt) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
    ...options,
  });
  // 'error' comes with a reason but not with every loss (a server that closes the connection
  // cleanly sends none); 'reconnecting' comes with every loss, after any 'error' that caused it.
  let down = false;
  let reason: Error | undefined;
  redis.on('error', (error: Error) => {
    reason = error;
  });
  redis.on('reconnecting', () => {
    if (down) return;
    down = true;
    log.warn(`Redis ${purpose} connection lost; reconnecting`, { redis: targetOf(redis), ...(reason ? { err: reason } : {}) });
  });
  redis.on('ready', () => {
    reason = undefined;
    if (!down) return;
    down = false;
    log.info(`Redis ${purpose} connection restored`, { redis: targetOf(redis) });
  });
  return redis;
}

/**
 * Resolves once `redis` can take commands; rejects after `timeoutMs` (Redis is down or
 * restarting). For connections opened with `enableOfflineQueue: false`, whose commands fail at once
 * while not connected: a caller waits here for a bounded time instead.
 */
export function whenReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  if (redis.status === 'end') return Promise.reject(new Error('the Redis connection was closed'));
  return new Promise((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      redis.off('ready', ready);
      redis.off('end', ended);
    };
    const ready = (): void => {
      done();
      resolve();
    };
    const ended = (): void => {
      done();
      reject(new Error('the Redis connection was closed'));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`Redis ${targetOf(redis)} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    redis.once('ready', ready);
    redis.once('end', ended);
  });
}

/**
 * Opens a connection and waits for it: rejects, naming the server (never the password), when Redis
 * cannot be reached now. For a process that must not start without Redis (a gateway checks every
 * key there) and for one-off commands. Errors of later reconnects reach callers as failed commands.
 */
export async function connectRedis(url: string, options: RedisOptions): Promise<Redis> {
  const redis = new Redis(url, { ...options, lazyConnect: true });
  // Without a listener ioredis prints each reconnect attempt's error on stderr.
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`Redis at ${targetOf(redis)} cannot be reached`, { cause: error });
  }
  return redis;
}

/** Says goodbye when connected (QUIT waits for replies in flight), else just drops the connection. */
export async function closeRedis(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/** "127.0.0.1:6379": enough to recognise the server in a log line; never the password the URL may hold. */
function targetOf(redis: Redis): string {
  return `${redis.options.host ?? 'localhost'}:${redis.options.port ?? 6379}`;
}
