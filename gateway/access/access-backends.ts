// Where keys and per-key counts live, for a gateway and for the commands that manage keys: the one
// place that chooses. With Redis, the key store and the key verdicts (lookup and count in one
// round trip) shared by every process; embedded, the key file in MARQUEE_HOME, which the CLI can
// change while a gateway runs, and an in-process limiter (the gateway's default).
import { join } from 'node:path';
import { describeError, OperatorError } from '../../snapshot/errors.ts';
import type { Log } from '../../snapshot/log.ts';
import { ensureHome, type SharedState } from '../../snapshot/shared-state.ts';
import { FileKeyStore } from '../keys/file-store.ts';
import type { KeyStore } from '../keys/key-store.ts';
import type { KeyVerdicts } from './key-verdicts.ts';
import { openRedisAccess, openRedisKeyStore } from './redis-access.ts';

/** A gateway's keys; `keyVerdicts` when a backend judges and counts in one step (otherwise the gateway's in-process limiter counts). */
export interface GatewayAccess {
  deps: { keys: KeyStore; keyVerdicts?: KeyVerdicts };
  /** After the gateway's server has closed. */
  close(): Promise<void>;
}

export async function openGatewayAccess(shared: SharedState, log: Log): Promise<GatewayAccess> {
  if (shared.redisUrl === undefined) return { deps: { keys: new FileKeyStore(await keyFile(shared.home)) }, close: async () => {} };
  const access = await openRedisAccess({ url: shared.redisUrl, log }).catch((error: unknown) => {
    throw new OperatorError(`REDIS_URL: ${describeError(error)}; a gateway that cannot check keys does not start`, { cause: error });
  });
  return { deps: { keys: access.keys, keyVerdicts: access.verdicts }, close: () => access.close() };
}

/** Runs one key-management command against the key store and closes it. */
export async function withKeyStore<T>(shared: SharedState, work: (keys: KeyStore) => Promise<T>): Promise<T> {
  if (shared.redisUrl === undefined) return work(new FileKeyStore(await keyFile(shared.home)));
  const redis = await openRedisKeyStore({ url: shared.redisUrl }).catch((error: unknown) => {
    throw new OperatorError(`REDIS_URL: ${describeError(error)}`, { cause: error });
  });
  try {
    return await work(redis.keys);
  } finally {
    await redis.close();
  }
}

/** The embedded key file, in MARQUEE_HOME, which is created when missing; one that cannot be is named at once. */
async function keyFile(home: string): Promise<string> {
  await ensureHome(home);
  return join(home, 'keys.json');
}
