// Opening Redis (REDIS_URL) for keys and per-key rate limits: for a gateway, the key store and the
// key verdicts on one connection tuned to fail fast; and Redis's key store alone, on a connection
// that does not linger, for what writes keys straight into the gateways' copy (the benchmarks and
// the soak seeding their gateways; operators' commands write the durable record,
// records/keys/key-backends.ts).
//
// A gateway's commands must never queue behind a Redis that is down: with no offline queue and
// no retry of a command in flight, a command fails at once while the connection is down, and a
// verdict from a Redis that stopped answering is given up after `commandTimeoutMs` (measured so
// that a stall of the gateway's own event loop does not count: runtime/deadline.ts); the verdicts
// then answer from memory (access/redis-key-verdicts.ts) while the client reconnects in the
// background with a capped backoff. The connection's own timeout is only a backstop that frees
// the commands a black-holed Redis never answers. Auto-pipelining writes the commands of one
// event-loop turn together, all but the key verdicts' batch script, which gathers a turn's
// requests itself and is written the moment it is made.
import { closeRedis, connectRedis } from '../../runtime/redis-connection.ts';
import type { BackendStates } from '../../runtime/backend-states.ts';
import type { Log } from '../../runtime/log.ts';
import type { KeyStore } from '../../records/keys/key-store.ts';
import { RedisKeyStore } from '../../records/keys/redis-key-store.ts';
import { RedisUsageSpool } from '../../records/usage/redis-usage-spool.ts';
import type { UsageOutbox } from '../../records/usage/usage-spool.ts';
import type { KeyVerdicts } from './key-verdicts.ts';
import type { RecentVerdictsOptions } from './recent-verdicts.ts';
import { RedisKeyVerdicts, VERDICT_BATCH_COMMAND } from './redis-key-verdicts.ts';

export interface RedisAccessOptions {
  /** redis:// or rediss:// */
  url: string;
  log: Log;
  /** Prefix of every Redis key; default `marquee:`. */
  namespace?: string;
  /** Requests per key in any window; default 600 in 60 s (docs/api.md §8). */
  limit?: number;
  windowSeconds?: number;
  /** A command not answered within this is a Redis that cannot be reached; default 2 s (access/redis-key-verdicts.ts VERDICT_DEADLINE_MS). */
  commandTimeoutMs?: number;
  /** The memory of recent verdicts used while Redis cannot be reached; default 4 MB, 5 minutes. */
  recent?: RecentVerdictsOptions;
  /** Heap bytes of the per-key counts kept while Redis cannot be reached; default 4 MB. */
  localRateBytes?: number;
  /** The process's backend states, where Redis's is written (redis-key-verdicts.ts). */
  states?: BackendStates;
}

/** When a command still unanswered is dropped; well past any verdict's timeout, which is what requests wait for. */
const ABANDONED_COMMAND_MS = 10_000;

/** For GatewayDeps: `keys` and `keyVerdicts: verdicts`. */
export interface RedisAccess {
  keys: KeyStore;
  verdicts: KeyVerdicts;
  /** Where the gateway moves its usage counts, on the same connection. */
  usage: UsageOutbox;
  /** A PING for the background probe (runtime/backend-probes.ts): rejects while Redis does not answer. */
  ping(): Promise<void>;
  /** Closes the connection; after the gateway's server has closed. */
  close(): Promise<void>;
}

/** Rejects when Redis cannot be reached at start: a gateway that cannot check any key should not come up. */
export async function openRedisAccess(options: RedisAccessOptions): Promise<RedisAccess> {
  const redis = await connectRedis(options.url, {
    enableAutoPipelining: true,
    autoPipeliningIgnoredCommands: [VERDICT_BATCH_COMMAND],
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: ABANDONED_COMMAND_MS,
    // 100 ms, 200 ms, … capped at 2 s: a restarted Redis is found again within about 2 s.
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2_000),
  });
  const namespace = options.namespace ?? 'marquee:';
  const verdicts = new RedisKeyVerdicts(redis, { ...options, namespace });
  // Connected just now: the first probe has answered.
  options.states?.answered('redis');
  return {
    keys: new RedisKeyStore(redis, { namespace }),
    verdicts,
    ping: () => verdicts.ping(),
    usage: new RedisUsageSpool(redis, { namespace }),
    close: () => closeRedis(redis),
  };
}

/** The key store alone, for seeding gateways: no reconnecting, and a command that does not get through fails. */
export async function openRedisKeyStore(options: { url: string; namespace?: string }): Promise<{ keys: KeyStore; close(): Promise<void> }> {
  const redis = await connectRedis(options.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 10_000, retryStrategy: () => null });
  return { keys: new RedisKeyStore(redis, { namespace: options.namespace }), close: () => closeRedis(redis) };
}
