// Which backend serves the platform database, chosen once from the configuration: PostgreSQL
// when DATABASE_URL is set, else the embedded PGlite under MARQUEE_HOME — or, when start holds that
// one, the Unix socket it serves it on.
import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { connectionSchemas, failureReason, PlatformDatabaseError, type SqlClient } from './sql.ts';
import { EmbeddedDatabaseBusyError } from './embedded-lock.ts';
import { DEFAULT_EMBEDDED_TIMEOUTS, type SessionTimeouts } from './embedded-timeouts.ts';
import { openServedEmbedded } from './embedded-supervisor.ts';
import { openPglite } from './pglite.ts';
import { describePostgresTarget, openPostgres } from './postgres.ts';
import { servedBy } from './served-advertisement.ts';
import type { Log } from '../../runtime/log.ts';

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
   * The embedded database only (start): run it in a process of its own and serve it on a Unix
   * socket, so that neither start's gateway nor the commands beside start wait on it
   * (embedded-supervisor.ts). Held by another process, it is refused (EmbeddedDatabaseBusyError),
   * never reached through that process's socket.
   */
  serve?: boolean;
  /**
   * EMBEDDED_STATEMENT_TIMEOUT and EMBEDDED_IDLE_TRANSACTION_TIMEOUT: what start's embedded database
   * allows a client (serve), and the statement timeout this command asks for beside start.
   */
  embeddedTimeouts?: SessionTimeouts;
  /** Where start's supervisor of the embedded database says that it restarted it (serve). */
  log?: Log;
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
 * start holds the embedded database and serves it, the connection goes through its socket instead.
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
  const timeouts = options.embeddedTimeouts ?? DEFAULT_EMBEDDED_TIMEOUTS;
  if (options.serve) return openServedEmbedded(dataDir, options.home, { schema, marqueeSchema, timeouts, log: options.log });
  try {
    return await openPglite(dataDir, { schema, marqueeSchema });
  } catch (error) {
    if (!(error instanceof EmbeddedDatabaseBusyError)) throw error;
    const served = await servedBy(dataDir);
    if (!served) throw error;
    if (served.schema !== schema || served.marqueeSchema !== marqueeSchema) {
      throw new PlatformDatabaseError(
        `the embedded database ${dataDir} is served by process ${served.pid} with PLATFORM_SCHEMA=${served.schema} and MARQUEE_SCHEMA=${served.marqueeSchema}, not ${schema} and ${marqueeSchema}`,
      );
    }
    // The statement timeout asked for goes with each connection; the database's supervisor enforces it.
    const client = await openPostgres(served.url, { schema, marqueeSchema, statementTimeoutMs: timeouts.statementMs });
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
