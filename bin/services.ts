// Wiring: the one place where configuration becomes real parts. Which backend each seam uses is
// chosen by the seam itself, in its *-backends.ts (docs/design.md "Backends: one place chooses
// each"); this only hands them the configuration and puts the parts together.
import type { BackendStates } from '../runtime/backend-states.ts';
import { readFileSync } from 'node:fs';
import { isUuid } from '../snapshot/layout.ts';
import type { BuildContext } from '../builder/build.ts';
import { openBuildLocks } from '../builder/fleet-backends.ts';
import type { CloudFrontInvalidatorOptions } from '../builder/cdn-invalidation.ts';
import type { PlatformSource } from '../builder/platform/rows.ts';
import { assertPlatformRelations } from '../builder/platform/migrations.ts';
import { openPlatformDatabase } from '../records/database/database-backends.ts';
import type { SqlClient } from '../records/database/sql.ts';
import { findOrganization } from '../builder/platform/organizations.ts';
import { SqlPlatformSource } from '../builder/platform/source.ts';
import { SqlBuiltVersions } from '../builder/platform/versions.ts';
import type { Log } from '../runtime/log.ts';
import { type OpenPublishChannel, openPublishChannel } from '../snapshot/publish-channel-backends.ts';
import { SchemaSet } from '../snapshot/schemas.ts';
import type { SnapshotSource, SnapshotStore } from '../snapshot/store.ts';
import { CdnSource } from '../snapshot/stores/cdn-source.ts';
import { packagePath } from '../runtime/package-root.ts';
import type { WebhookOutbox } from '../builder/webhooks/outbox.ts';
import type { Config } from './config.ts';
import { loadSigner } from './signing-key.ts';
import { databasePublicationLog } from '../records/publication-log/log-store.ts';
import { checkpointWriter } from '../records/publication-log/checkpoint-keeping.ts';
import { createLog } from './log.ts';
import { tightenEmbeddedDatabase, tightenHome } from './owner-only-home.ts';

const BUILDER_VERSION: string = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;

/**
 * The platform database, checked to hold the platform relations (`relations: 'any'`: the db
 * commands, which create them). An embedded one must exist unless `create` (db migrate): a command
 * run with the wrong MARQUEE_HOME refuses instead of answering from a new, empty database.
 */
export async function openDatabase(config: Config, { relations = 'required', create = false, log }: DatabaseOptions = {}): Promise<SqlClient> {
  // The embedded database's home made owner-only first, and PGlite's own files after it opened
  // (bin/owner-only-home.ts); a command's log goes to stderr, apart from its output.
  const logTo = log ?? (() => createLog({ format: config.logFormat, destination: 2 }));
  if (config.databaseUrl === undefined) await tightenHome(config.home, logTo);
  const db = await openPlatformDatabase({
    databaseUrl: config.databaseUrl,
    home: config.home,
    schema: config.platformSchema,
    marqueeSchema: config.marqueeSchema,
    create,
    embeddedTimeouts: config.embeddedTimeouts,
  });
  if (config.databaseUrl === undefined) await tightenEmbeddedDatabase(config.home, logTo);
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

/** What a gateway reads through: the store itself, or manifests and objects through the CDN (SNAPSHOT_CDN_URL). */
export function openSnapshotSource(config: Config, store: SnapshotStore): { source: SnapshotSource; close(): Promise<void> } {
  if (config.snapshotCdnUrl === undefined) return { source: store, close: async () => {} };
  const source = new CdnSource(store, config.snapshotCdnUrl);
  return { source, close: () => source.close() };
}

/**
 * What a build needs besides the platform: the store, per-organization locks shared with every
 * other builder (Redis) or within this process, announcements to gateways, and CloudFront
 * invalidation of the changed pointers. The same for `build`, `builder` and `start`.
 */
export interface BuildServices {
  store: SnapshotStore;
  channel: OpenPublishChannel;
  close(): Promise<void>;
  /**
   * With `versions`, the platform database where builds record what they built from
   * (builder/platform/versions.ts); with `webhooks`, where they queue their webhook messages.
   */
  context(source: PlatformSource, versions?: SqlClient, webhooks?: WebhookOutbox): BuildContext;
}

/**
 * builder/cdn-invalidation.ts's invalidator, loaded with its AWS SDK client only by a process that
 * invalidates: loading the AWS SDK is about half a second of CPU, which every command paid at its
 * start while this module imported it.
 */
function cloudFrontInvalidator(options: CloudFrontInvalidatorOptions): (organizationIds: string[]) => Promise<void> {
  const invalidator = import('../builder/cdn-invalidation.ts').then(({ createCloudFrontInvalidator }) => createCloudFrontInvalidator(options));
  // Loading starts now, so the first build does not wait for it; a failure is the first invalidation's.
  invalidator.catch(() => {});
  return async (organizationIds) => (await invalidator)(organizationIds);
}

/** `states`: a builder process's backend states, where the CDN invalidations' outcomes are written (builder/backend-watch.ts). */
export function openBuildServices(config: Config, log: Log, channel = openPublishChannel(config, log), states?: BackendStates): BuildServices {
  // First: a missing signing key stops a build before it opens anything.
  const signer = loadSigner(config);
  const store = config.snapshotStore.open();
  const locks = openBuildLocks(config, log);
  const cdnPrefix = config.snapshotStore.cdnPrefix;
  const invalidate =
    config.cloudFrontDistributionId !== undefined && cdnPrefix !== undefined
      ? cloudFrontInvalidator({ distributionId: config.cloudFrontDistributionId, prefix: cdnPrefix, log, ...(states ? { states } : {}) })
      : undefined;
  return {
    store,
    channel,
    context: (source, versions, webhooks) => {
      // The platform database holds the publication log: every publish with it is logged (builder/publish.ts).
      const publicationLog = versions ? databasePublicationLog(versions) : undefined;
      const origin = config.publicationLogOrigin;
      // A checkpoint at the end of each run that changed a pointer (`onPointersChanged`), so `build`
      // leaves one too; a builder process also keeps them every half minute (bin/builder-process.ts).
      // None without a signing key (SNAPSHOT_SIGNING_KEY=none): nothing can sign it.
      const checkpoint =
        publicationLog && signer && typeof origin === 'string'
          ? checkpointWriter({
              store,
              log: publicationLog,
              signer,
              origin,
              onError: (error) => log.warn('cannot write the publication log checkpoint; the next run tries again', { err: error }),
            })
          : undefined;
      const pointersChanged =
        invalidate && checkpoint
          ? async (ids: string[]) => {
              await invalidate(ids);
              await checkpoint();
            }
          : (invalidate ?? (checkpoint ? () => checkpoint() : undefined));
      return {
        source,
        store,
        ...(webhooks ? { webhooks } : {}),
        ...(versions ? { builtVersions: new SqlBuiltVersions(versions, store.description) } : {}),
        ...(publicationLog ? { publicationLog } : {}),
        schemas: new SchemaSet(),
        publicBaseUrl: config.platformPublicUrl,
        builderVersion: BUILDER_VERSION,
        codings: config.snapshotCodings,
        ...(signer ? { signer } : {}),
        channel,
        locks,
        ...(pointersChanged ? { onPointersChanged: pointersChanged } : {}),
        // SNAPSHOT_RETENTION and SNAPSHOT_RETENTION_DAYS, after every publish (builder/retention.ts).
        retention: {
          ...config.retention,
          onError: (organizationId, error) => log.warn(`retention of ${organizationId} failed; the next build tries again`, { organizationId, err: error }),
        },
      };
    },
    close: async () => {
      await locks.close();
      await channel.close();
    },
  };
}

export function platformSource(db: SqlClient): PlatformSource {
  return new SqlPlatformSource(db);
}

interface DatabaseOptions {
  relations?: 'required' | 'any';
  create?: boolean;
  /** Where a home made owner-only is reported (default: a log on stderr, made only then). */
  log?: Log;
}

/** Opens the database for one command and always closes it. */
export async function withDatabase<T>(config: Config, work: (db: SqlClient) => Promise<T>, options: DatabaseOptions = {}): Promise<T> {
  const db = await openDatabase(config, options);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** `--org ID|SLUG` of the snapshot commands: auditors may hold only the store, so an id needs no database; a slug is looked up in it. */
export async function organizationId(config: Config, idOrSlug: string): Promise<string> {
  if (isUuid(idOrSlug)) return idOrSlug.toLowerCase();
  return (await withDatabase(config, (db) => findOrganization(db, idOrSlug))).id;
}
