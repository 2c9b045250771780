// The PGlite backend of SqlClient: the embedded database in this process, for the commands that
// open it while no start serves it (build, keys, db …) and for tests' in-memory databases; locked
// against a second process (embedded-lock.ts). start runs it in a process of its own instead
// (embedded-supervisor.ts).
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { connectionSchemas, failureReason, type OpenOptions, PlatformDatabaseError, type SqlClient, type SqlQueries, type TransactionOptions } from './sql.ts';
import { lockEmbeddedDatabase } from './embedded-lock.ts';
import { createPglite } from './pglite-engine.ts';

/**
 * `dataDir` undefined: an in-memory database (tests), made by initdb or, given `from`, from that
 * dump of a data directory (tests make one once: initdb costs seconds of CPU).
 */
export async function openPglite(dataDir?: string, options: OpenOptions & { from?: Blob } = {}): Promise<SqlClient> {
  const { schema, marqueeSchema, searchPath } = connectionSchemas(options);
  const where = dataDir ?? '(in memory)';
  const unlock = dataDir === undefined ? async () => {} : await lockEmbeddedDatabase(dataDir);
  let db: PGlite;
  try {
    db = await createPglite(dataDir, options.from);
    // PGlite is one session, so setting the search_path once covers every later statement.
    await db.exec(`SET search_path TO ${searchPath}`);
  } catch (error) {
    await unlock();
    throw new PlatformDatabaseError(`cannot open the embedded PGlite database ${where}: ${failureReason(error)}`, { cause: error });
  }
  const queries = (target: PGlite | Transaction): SqlQueries => ({
    async query<T>(text: string, params?: unknown[]) {
      return (await target.query<T>(text, params)).rows;
    },
    async exec(script: string) {
      await target.exec(script);
    },
  });

  return {
    description: `PGlite ${where}`,
    schema,
    marqueeSchema,
    query: (text, params) => queries(db).query(text, params),
    statement: async (text) => {
      const result = await db.query<Record<string, unknown>>(text);
      return { rows: result.rows, command: result.command ?? null, rowCount: result.rowCount ?? null };
    },
    exec: async (script: string) => {
      try {
        await db.exec(script);
      } catch (error) {
        // Same rule as PostgreSQL: a failed script leaves no transaction open behind it.
        await db.exec('ROLLBACK').catch(() => {});
        throw error;
      }
    },
    transaction<T>(work: (tx: SqlQueries) => Promise<T>, transactionOptions: TransactionOptions = {}) {
      return db.transaction(async (tx) => {
        if (transactionOptions.readOnly) await tx.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        return work(queries(tx));
      });
    },
    async listen(channel, onPayload) {
      const unlisten = await db.listen(channel, onPayload);
      return () => unlisten();
    },
    close: async () => {
      await db.close();
      await unlock();
    },
  };
}
