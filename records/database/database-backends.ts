// Which backend serves the platform database, chosen once from the configuration: PostgreSQL
// when DATABASE_URL is set, else the embedded PGlite under MARQUEE_HOME — or, when another process
// (start) holds that one, the loopback port it serves it on.
import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { connectionSchemas, failureReason, PlatformDatabaseError, type SqlClient } from './sql.ts';
import { EmbeddedDatabaseBusyError } from './embedded-lock.ts';
import { servedBy } from './embedded-server.ts';
import { openPglite } from './pglite.ts';
import { describePostgresTarget, openPostgres } from './postgres.ts';

export interface PlatformDatabaseOptions {
  /** DATABASE_URL; unset means the embedded PGlite database under `home`. */
  databaseUrl?: string | undefined;
  /** MARQUEE_HOME: the embedded database lives in `${home}/platform`. */
  home: string;
  /** PLATFORM_SCHEMA. */
  schema?: string | undefined;
  /** MARQUEE_SCHEMA. */
  marqueeSchema?: string | undefined;
  /**
   * The embedded database only (start): also serve it on a loopback PostgreSQL port, so that other
   * commands can use it while this process holds it (embedded-server.ts). Held by another process,
   * it is refused (EmbeddedDatabaseBusyError), never reached through that process's port.
   */
  serve?: boolean;
  /**
   * The embedded database only: make it when `home` has none (default). False for the commands
   * that only use one (keys, webhooks, build…): pointed at the wrong MARQUEE_HOME, they refuse,
   * naming it, instead of making a new, empty database there and answering from it.
   */
  create?: boolean;
}

/** No embedded database where one was expected: the operator's MARQUEE_HOME is likely not the one they meant. */
class NoEmbeddedDatabaseError extends PlatformDatabaseError {
  override name = 'NoEmbeddedDatabaseError';
}

/**
 * PostgreSQL when DATABASE_URL is set, else PGlite in `${home}/platform` (docs/design.md). When
 * another process (start) holds the embedded database and serves it, the connection goes through
 * that process's loopback port instead.
 */
export async function openPlatformDatabase(options: PlatformDatabaseOptions): Promise<SqlClient> {
  const { schema, marqueeSchema } = connectionSchemas(options);
  if (options.databaseUrl) return openPostgres(options.databaseUrl, { schema, marqueeSchema });
  const dataDir = path.join(options.home, 'platform');
  if (options.create === false) await assertEmbeddedDatabase(options.home);
  try {
    await mkdir(dataDir, { recursive: true });
  } catch (error) {
    throw new PlatformDatabaseError(`cannot create the embedded database directory ${dataDir} (MARQUEE_HOME=${options.home}): ${failureReason(error)}`, { cause: error });
  }
  try {
    return await openPglite(dataDir, { schema, marqueeSchema, serve: options.serve === true });
  } catch (error) {
    // A process asked to serve the database (start) must hold it: through another's port it would
    // be a second builder on a database meant for one.
    if (!(error instanceof EmbeddedDatabaseBusyError) || options.serve) throw error;
    const served = await servedBy(dataDir);
    if (!served) throw error;
    if (served.schema !== schema || served.marqueeSchema !== marqueeSchema) {
      throw new PlatformDatabaseError(
        `the embedded database ${dataDir} is served by process ${served.pid} with PLATFORM_SCHEMA=${served.schema} and MARQUEE_SCHEMA=${served.marqueeSchema}, not ${schema} and ${marqueeSchema}`,
      );
    }
    const client = await openPostgres(served.url, { schema, marqueeSchema });
    return { ...client, description: `PGlite ${dataDir} (through process ${served.pid}, ${describePostgresTarget(served.url)})` };
  }
}

/**
 * Refuses, naming where it looked and how to point elsewhere, when `home` holds no embedded
 * database (a PostgreSQL data directory has PG_VERSION from its creation on).
 */
export async function assertEmbeddedDatabase(home: string): Promise<void> {
  const dataDir = path.join(home, 'platform');
  const exists = await access(path.join(dataDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  if (exists) return;
  throw new NoEmbeddedDatabaseError(
    `no embedded database in ${path.resolve(dataDir)} (MARQUEE_HOME=${home}): set MARQUEE_HOME to the directory \`marquee start\` uses (./var by default, from where it was run), or DATABASE_URL to a PostgreSQL database; \`marquee start\` or \`marquee db migrate\` make a new one`,
  );
}
