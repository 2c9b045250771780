// Which backend serves the platform database, chosen once from the configuration: PostgreSQL
// when DATABASE_URL is set, else the embedded PGlite under MARQUEE_HOME — or, when another process
// (start) holds that one, the loopback port it serves it on.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { connectionSchemas, failureReason, PlatformDatabaseError, type SqlClient } from '../sql.ts';
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
   * commands can use it while this process holds it (embedded-server.ts).
   */
  serve?: boolean;
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
  try {
    await mkdir(dataDir, { recursive: true });
  } catch (error) {
    throw new PlatformDatabaseError(`cannot create the embedded database directory ${dataDir} (MARQUEE_HOME=${options.home}): ${failureReason(error)}`, { cause: error });
  }
  try {
    return await openPglite(dataDir, { schema, marqueeSchema, serve: options.serve === true });
  } catch (error) {
    if (!(error instanceof EmbeddedDatabaseBusyError)) throw error;
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
