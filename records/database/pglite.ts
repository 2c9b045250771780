// The PGlite backend of SqlClient: the embedded database, in this process, one session shared in
// turns (embedded-server.ts), locked against a second process (embedded-lock.ts), and served on a
// loopback port while `start` holds it.
import { rm } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { connectionSchemas, failureReason, type OpenOptions, PlatformDatabaseError, type SqlClient, type SqlQueries, type TransactionOptions } from './sql.ts';
import { lockEmbeddedDatabase } from './embedded-lock.ts';
import { advertiseServed, type EmbeddedServer, SessionTurns, serveEmbedded, servedFile } from './embedded-server.ts';

/** `dataDir` undefined: an in-memory database (tests). */
export async function openPglite(dataDir?: string, options: OpenOptions = {}): Promise<SqlClient> {
  const { schema, marqueeSchema, searchPath } = connectionSchemas(options);
  const where = dataDir ?? '(in memory)';
  const unlock = dataDir === undefined ? async () => {} : await lockEmbeddedDatabase(dataDir);
  let db: PGlite;
  try {
    db = await PGlite.create(dataDir);
    // PGlite is one session, so setting the search_path once covers every later statement.
    await db.exec(`SET search_path TO ${searchPath}`);
  } catch (error) {
    await unlock();
    throw new PlatformDatabaseError(`cannot open the embedded PGlite database ${where}: ${failureReason(error)}`, { cause: error });
  }
  // Every statement of this process takes its turn on the one session (embedded-server.ts).
  const turns = new SessionTurns(db);
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let served: EmbeddedServer | undefined;
  if (options.serve && dataDir !== undefined) {
    try {
      served = await serveEmbedded(db, turns, (channel, payload) => {
        for (const listener of listeners.get(channel) ?? []) listener(payload);
      });
      await advertiseServed(dataDir, { url: served.url, pid: process.pid, schema, marqueeSchema });
    } catch (error) {
      await served?.close();
      await db.close();
      await unlock();
      throw new PlatformDatabaseError(`cannot serve the embedded PGlite database ${where} on a loopback port: ${failureReason(error)}`, { cause: error });
    }
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
    query: (text, params) => turns.ownTurn(() => queries(db).query(text, params)),
    statement: (text) =>
      turns.ownTurn(async () => {
        const result = await db.query<Record<string, unknown>>(text);
        return { rows: result.rows, command: result.command ?? null, rowCount: result.rowCount ?? null };
      }),
    exec: (script: string) =>
      turns.ownTurn(async () => {
        try {
          await db.exec(script);
        } catch (error) {
          // Same rule as PostgreSQL: a failed script leaves no transaction open behind it.
          await db.exec('ROLLBACK').catch(() => {});
          throw error;
        }
      }),
    transaction<T>(work: (tx: SqlQueries) => Promise<T>, transactionOptions: TransactionOptions = {}) {
      return turns.ownTurn(() =>
        db.transaction(async (tx) => {
          if (transactionOptions.readOnly) await tx.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
          return work(queries(tx));
        }),
      );
    },
    async listen(channel, onPayload) {
      // Statements of this process notify through PGlite's own listeners, statements sent to the
      // served port through `listeners`.
      const unlisten = await turns.ownTurn(() => db.listen(channel, onPayload));
      const forChannel = listeners.get(channel) ?? new Set();
      listeners.set(channel, forChannel.add(onPayload));
      return async () => {
        forChannel.delete(onPayload);
        await turns.ownTurn(() => unlisten());
      };
    },
    close: async () => {
      if (served && dataDir !== undefined) {
        await rm(servedFile(dataDir), { force: true });
        await served.close();
      }
      await db.close();
      await unlock();
    },
  };
}
