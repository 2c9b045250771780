// The embedded database's own process, forked by start (embedded-supervisor.ts): it holds the
// lock, opens PGlite and serves it on the socket (embedded-server.ts), and tells its parent over
// IPC what runs (for the statement timeout) and what was notified (for change-triggered builds).
// PGlite runs a statement on this process's one thread and cannot be interrupted; in here, a
// statement that never ends stalls nobody but the clients waiting for the database.
import type { PGlite } from '@electric-sql/pglite';
import { lockEmbeddedDatabase } from './embedded-lock.ts';
import { createPglite } from './pglite-engine.ts';
import { serveEmbedded } from './embedded-server.ts';
import type { SessionTimeouts } from './embedded-timeouts.ts';
import { failureReason, quoteIdentifier } from './sql.ts';

export interface ChildOptions {
  dataDir: string;
  socketPath: string;
  /** Set once on the one session, which every client shares. */
  searchPath: string;
  timeouts: SessionTimeouts;
  ownApplicationName: string;
}

/** Parent to child. */
export type ToChild = { type: 'listen'; id: number; channel: string } | { type: 'close' };

/** Child to parent. */
export type FromChild =
  | { type: 'ready' }
  | { type: 'failed'; message: string; busy: boolean }
  | { type: 'running'; deadline: number | undefined; foreign: boolean }
  | { type: 'ran'; foreignHolds: boolean }
  | { type: 'notification'; channel: string; payload: string }
  | { type: 'listening'; id: number };

const send = (message: FromChild): void => {
  // Written to the pipe at once when it can be: a 'running' must reach the parent before PGlite takes the thread.
  if (process.connected) process.send?.(message);
};

async function main(options: ChildOptions): Promise<void> {
  const unlock = await lockEmbeddedDatabase(options.dataDir);
  let db: PGlite;
  try {
    db = await createPglite(options.dataDir);
    await db.exec(`SET search_path TO ${options.searchPath}`);
  } catch (error) {
    await unlock();
    throw error;
  }
  const server = await serveEmbedded(db, {
    socketPath: options.socketPath,
    timeouts: options.timeouts,
    ownApplicationName: options.ownApplicationName,
    events: {
      onNotification: (channel, payload) => send({ type: 'notification', channel, payload }),
      onRunning: (turn) => send({ type: 'running', ...turn }),
      onRan: (state) => send({ type: 'ran', ...state }),
    },
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await server.close();
      await db.close();
      await unlock();
    })();
    return closing.finally(() => process.exit(0));
  };
  process.on('message', (message: ToChild) => {
    if (message.type === 'close') void close();
    else {
      void server.ownTurn(() => db.exec(`LISTEN ${quoteIdentifier(message.channel)}`)).then(() => send({ type: 'listening', id: message.id }));
    }
  });
  // The parent is gone (killed, crashed): nobody supervises this process any more, and the lock must not outlive it.
  process.on('disconnect', () => void close());
  process.on('SIGTERM', () => void close());
  send({ type: 'ready' });
}

// Ctrl-C in start's terminal reaches the whole process group: start closes this process itself,
// after its own clients, rather than have PGlite stop half-way through a write.
process.on('SIGINT', () => {});
main(JSON.parse(process.argv[2] ?? '{}') as ChildOptions).catch((error: unknown) => {
  send({ type: 'failed', message: failureReason(error), busy: (error as Error).name === 'EmbeddedDatabaseBusyError' });
  process.exitCode = 1;
  process.disconnect?.();
});
