// Wiring: the one place where configuration becomes real parts.
import { isUuid } from '../snapshot/layout.ts';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { BuildContext } from '../builder/build.ts';
import { type BuildLocks, InProcessBuildLocks } from '../builder/build-locks.ts';
import { createCloudFrontInvalidator } from '../builder/cdn-invalidation.ts';
import { RedisBuildLocks } from '../builder/redis-build-locks.ts';
import type { PlatformSource } from '../builder/platform/rows.ts';
import { assertPlatformRelations } from '../builder/platform/migrations.ts';
import { openPlatformDatabase, type SqlClient } from '../builder/platform/sql.ts';
import { resolveOrganization, SqlPlatformSource } from '../builder/platform/source.ts';
import { openRedisAccess, openRedisKeyStore } from '../gateway/access/redis-access.ts';
import type { GatewayDeps } from '../gateway/app.ts';
import { FileKeyStore } from '../gateway/keys/file-store.ts';
import type { KeyStore } from '../gateway/keys/key-store.ts';
import type { Log } from '../snapshot/log.ts';
import { InProcessChannel, type PublishChannel } from '../snapshot/notifications.ts';
import { RedisPublishChannel } from '../snapshot/redis-channel.ts';
import { SchemaSet } from '../snapshot/schemas.ts';
import type { SnapshotSource, SnapshotStore } from '../snapshot/store.ts';
import { CdnSource } from '../snapshot/stores/cdn-source.ts';
import { DirectoryStore } from '../snapshot/stores/directory.ts';
import { S3Store } from '../snapshot/stores/s3.ts';
import { packagePath } from '../snapshot/package-root.ts';
import { describeError, OperatorError } from '../snapshot/errors.ts';
import type { Config } from './config.ts';

const BUILDER_VERSION: string = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;

/** The platform database, checked to hold the platform relations (`relations: 'any'`: the db commands, which create them). */
export async function openDatabase(config: Config, { relations = 'required' }: { relations?: 'required' | 'any' } = {}): Promise<SqlClient> {
  const db = await openPlatformDatabase({ databaseUrl: config.databaseUrl, home: config.home, schema: config.platformSchema });
  if (relations === 'required') {
    try {
      await assertPlatformRelations(db);
    } catch (error) {
      await db.close();
      throw error;
    }
  }
  return db;
}

export function openStore(config: Config): SnapshotStore {
  const location = config.snapshotStore;
  if (location.kind === 'directory') return new DirectoryStore(location.path);
  return new S3Store({ bucket: location.bucket, prefix: location.prefix, ...(location.endpoint ? { endpoint: location.endpoint } : {}) });
}

/** What a gateway reads through: the store itself, or manifests and objects through the CDN (SNAPSHOT_CDN_URL). */
export function openSnapshotSource(config: Config, store: SnapshotStore): { source: SnapshotSource; close(): Promise<void> } {
  if (config.snapshotCdnUrl === undefined) return { source: store, close: async () => {} };
  const source = new CdnSource(store, config.snapshotCdnUrl);
  return { source, close: () => source.close() };
}

/** Runs one CLI command against the key store (Redis when REDIS_URL is set, else the key file) and closes it. */
export async function withKeyStore<T>(config: Config, work: (keys: KeyStore) => Promise<T>): Promise<T> {
  if (config.redisUrl === undefined) return work(new FileKeyStore(await keyFile(config)));
  const redis = await openRedisKeyStore({ url: config.redisUrl }).catch((error: unknown) => {
    throw new OperatorError(`REDIS_URL: ${describeError(error)}`, { cause: error });
  });
  try {
    return await work(redis.keys);
  } finally {
    await redis.close();
  }
}

/** A gateway's keys and per-key limits: in Redis (one round trip per request), or the key file and an in-process limiter. */
export async function openGatewayAccess(config: Config, log: Log): Promise<{ deps: Pick<GatewayDeps, 'keys' | 'keyVerdicts'>; close(): Promise<void> }> {
  if (config.redisUrl === undefined) return { deps: { keys: new FileKeyStore(await keyFile(config)) }, close: async () => {} };
  const access = await openRedisAccess({ url: config.redisUrl, log }).catch((error: unknown) => {
    throw new OperatorError(`REDIS_URL: ${describeError(error)}; a gateway that cannot check keys does not start`, { cause: error });
  });
  return { deps: { keys: access.keys, keyVerdicts: access.verdicts }, close: () => access.close() };
}

/** Publish announcements: across processes through Redis pub/sub, or within this process. */
export function openPublishChannel(config: Config, log: Log): PublishChannel & { close(): Promise<void> } {
  if (config.redisUrl !== undefined) return new RedisPublishChannel(config.redisUrl, { log });
  const channel = new InProcessChannel((error, organizationId) => log.error('publish listener failed', { organizationId, err: error }));
  return Object.assign(channel, { close: async () => {} });
}

/**
 * What a build needs besides the platform: the store, per-organization locks shared with every
 * other builder (Redis) or within this process, announcements to gateways, and CloudFront
 * invalidation of the changed pointers. The same for `build`, `builder` and `start`.
 */
export interface BuildServices {
  store: SnapshotStore;
  channel: PublishChannel & { close(): Promise<void> };
  close(): Promise<void>;
  context(source: PlatformSource): BuildContext;
}

export function openBuildServices(config: Config, log: Log, channel = openPublishChannel(config, log)): BuildServices {
  const store = openStore(config);
  const locks: BuildLocks & { close?(): Promise<void> } = config.redisUrl === undefined ? new InProcessBuildLocks() : new RedisBuildLocks(config.redisUrl, { log });
  const location = config.snapshotStore;
  const invalidate =
    config.cloudFrontDistributionId !== undefined && location.kind === 's3'
      ? createCloudFrontInvalidator({ distributionId: config.cloudFrontDistributionId, prefix: location.prefix, log })
      : undefined;
  return {
    store,
    channel,
    context: (source) => ({
      source,
      store,
      schemas: new SchemaSet(),
      publicBaseUrl: config.platformPublicUrl,
      builderVersion: BUILDER_VERSION,
      channel,
      locks,
      ...(invalidate ? { onPointersChanged: invalidate } : {}),
      // SNAPSHOT_RETENTION and SNAPSHOT_RETENTION_DAYS, after every publish (builder/retention.ts).
      retention: {
        ...config.retention,
        onError: (organizationId, error) => log.warn(`retention of ${organizationId} failed; the next build tries again`, { organizationId, err: error }),
      },
    }),
    close: async () => {
      await locks.close?.();
      await channel.close();
    },
  };
}

/** The embedded key file, in MARQUEE_HOME, which is created when missing; one that cannot be is named at once. */
async function keyFile(config: Config): Promise<string> {
  await ensureHome(config);
  return join(config.home, 'keys.json');
}

export async function ensureHome(config: Config): Promise<void> {
  try {
    await mkdir(config.home, { recursive: true });
  } catch (error) {
    throw new OperatorError(`MARQUEE_HOME=${config.home} cannot be created: ${describeError(error)}`, { cause: error });
  }
}

export function platformSource(db: SqlClient): PlatformSource {
  return new SqlPlatformSource(db);
}

/** `--org ID|SLUG` → the organization, or a message naming what was not found. */
export async function organizationNamed(db: SqlClient, idOrSlug: string): Promise<{ id: string; slug: string; status: string }> {
  const found = await resolveOrganization(db, idOrSlug);
  if (!found) throw new OperatorError(`no organization with id or slug ${JSON.stringify(idOrSlug)} in ${db.description}`);
  return found;
}

/** Opens the database for one command and always closes it. */
export async function withDatabase<T>(config: Config, work: (db: SqlClient) => Promise<T>, options: { relations?: 'required' | 'any' } = {}): Promise<T> {
  const db = await openDatabase(config, options);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** Auditors may hold only the store: an id needs no database; a slug is looked up in it. */
export async function organizationId(config: Config, idOrSlug: string): Promise<string> {
  if (isUuid(idOrSlug)) return idOrSlug.toLowerCase();
  return (await withDatabase(config, (db) => organizationNamed(db, idOrSlug))).id;
}
