// Wiring: the one place where configuration becomes real parts.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { BuildContext } from '../builder/build.ts';
import type { PlatformSource } from '../builder/platform/rows.ts';
import { openPlatformDatabase, type SqlClient } from '../builder/platform/sql.ts';
import { resolveOrganization, SqlPlatformSource } from '../builder/platform/source.ts';
import { FileKeyStore } from '../gateway/keys/file-store.ts';
import type { PublishChannel } from '../snapshot/notifications.ts';
import { SchemaSet } from '../snapshot/schemas.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { DirectoryStore } from '../snapshot/stores/directory.ts';
import { packagePath } from '../snapshot/package-root.ts';
import { OperatorError } from '../snapshot/errors.ts';
import type { Config } from './config.ts';

const BUILDER_VERSION: string = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;

export function openDatabase(config: Config): Promise<SqlClient> {
  return openPlatformDatabase({ databaseUrl: config.databaseUrl, home: config.home, schema: config.platformSchema });
}

export function openStore(config: Config): SnapshotStore {
  const location = config.snapshotStore;
  if (location.kind === 's3') throw new OperatorError('s3:// stores are being wired');
  return new DirectoryStore(location.path);
}

export function openKeyStore(config: Config): FileKeyStore {
  return new FileKeyStore(join(config.home, 'keys.json'));
}

export function buildContext(config: Config, source: PlatformSource, store: SnapshotStore, channel?: PublishChannel): BuildContext {
  return {
    source,
    store,
    schemas: new SchemaSet(),
    publicBaseUrl: config.platformPublicUrl,
    builderVersion: BUILDER_VERSION,
    ...(channel ? { channel } : {}),
  };
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
export async function withDatabase<T>(config: Config, work: (db: SqlClient) => Promise<T>): Promise<T> {
  const db = await openDatabase(config);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}
