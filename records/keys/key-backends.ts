// Where the control plane (the `keys` commands, the admin API, start's demo key) keeps keys: the
// one place that chooses (docs/design.md "Keys outlive any cache").
//
// - Embedded (no REDIS_URL): the key file in MARQUEE_HOME, which gateways on this machine read.
// - With REDIS_URL: the durable record in the platform database (postgres-key-store.ts), written
//   first; each write is then copied to Redis, the gateways' copy. A copy that fails (Redis down)
//   does not fail the write: it is logged, and the key keeper copies it once Redis answers.
//   Long-running processes (builder, start) run the keeper; a one-off command syncs once first,
//   which is also what moves an existing deployment's Redis-only keys into the database.
import { migrateMarquee } from '../schema/migrate.ts';
import type { SqlClient } from '../database/sql.ts';
import { openKeyFile } from './file-store.ts';
import type { KeyStore } from './key-store.ts';
import { RedisKeyStore } from './redis-key-store.ts';
import { describeError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import { closeRedis, connectRedis, openRedis, whenReady } from '../../runtime/redis-connection.ts';
import type { SharedState } from '../../runtime/shared-state.ts';
import { KeyKeeper } from './key-keeper.ts';
import { type KeptKey, PostgresKeyStore } from './postgres-key-store.ts';

export interface ControlKeys {
  keys: KeyStore;
  /** Stops the keeper and closes what was opened; not the database, which is the caller's. */
  close(): Promise<void>;
}

/** The Redis options of the keeper's connection: a command never waits behind an outage. */
const COPY_CONNECTION = { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 2_000 } as const;

/**
 * For builder and start: the keys their admin API and demo key write. With Redis, the key keeper
 * runs until `close`, from the moment Redis first answers, and syncs again each time it answers
 * after an outage. `db` is opened only with Redis.
 */
export async function openKeyKeeping(shared: SharedState, db: () => Promise<SqlClient>, log: Log): Promise<ControlKeys> {
  if (shared.redisUrl === undefined) return { keys: await openKeyFile(shared.home), close: async () => {} };
  const database = await db();
  await migrateMarquee(database);
  const redis = openRedis(shared.redisUrl, 'key keeper', log, COPY_CONNECTION);
  const copy = new RedisKeyStore(redis);
  const keeper = new KeyKeeper(new PostgresKeyStore(database), copy, { log });
  let started = false;
  redis.on('ready', () => {
    if (started) void keeper.sync();
    else keeper.start();
    started = true;
  });
  // A key made right after start (start's demo key) is copied at once, not by the keeper's first tick.
  await whenReady(redis, 2_000).catch(() => {});
  return {
    keys: new PostgresKeyStore(database, { mirror: copier(copy, log) }),
    close: async () => {
      await keeper.stop();
      await closeRedis(redis);
    },
  };
}

/**
 * For a one-off command or script: the key store, without a keeper. With Redis, one sync first
 * (the migration of Redis-only keys, a copy Redis missed); a Redis that cannot be reached is a
 * warning, not a failure: the database is the record.
 */
export async function openKeyStore(shared: SharedState, db: () => Promise<SqlClient>, log: Log): Promise<ControlKeys> {
  if (shared.redisUrl === undefined) return { keys: await openKeyFile(shared.home), close: async () => {} };
  const database = await db();
  await migrateMarquee(database);
  const redis = await connectRedis(shared.redisUrl, { ...COPY_CONNECTION, connectTimeout: 3_000, retryStrategy: () => null }).catch((error: unknown) => {
    log.warn(
      `REDIS_URL: ${describeError(error).replace(/\.$/, '')}; key changes are recorded in the database, and gateways get them once Redis answers again (a builder's key keeper copies them within a second)`,
    );
    return undefined;
  });
  if (redis === undefined) return { keys: new PostgresKeyStore(database), close: async () => {} };
  const copy = new RedisKeyStore(redis);
  await new KeyKeeper(new PostgresKeyStore(database), copy, { log }).sync();
  return { keys: new PostgresKeyStore(database, { mirror: copier(copy, log) }), close: () => closeRedis(redis) };
}

/** For one `keys` command: the key store, opened for `work` and closed after. */
export async function withKeyStore<T>(shared: SharedState, db: () => Promise<SqlClient>, log: Log, work: (keys: KeyStore) => Promise<T>): Promise<T> {
  const opened = await openKeyStore(shared, db, log);
  try {
    return await work(opened.keys);
  } finally {
    await opened.close();
  }
}

/** Copies a durable write to Redis; a failure is logged, and the keeper copies it later. */
function copier(copy: RedisKeyStore, log: Log): (kept: KeptKey) => Promise<void> {
  return async (kept) => {
    try {
      await copy.put(kept.record, kept.change);
    } catch (error) {
      log.warn(
        `key ${kept.record.id} is recorded in the database but Redis did not take the copy (${describeError(error)}); gateways get it once a builder's key keeper copies it`,
        {
          keyId: kept.record.id,
        },
      );
    }
  };
}
