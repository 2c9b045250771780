// The embedded PGlite database of `start`, served on a loopback PostgreSQL port while start holds
// it, so that the CLI (and psql) work beside the running demo: PGlite is one session in one
// process, and without this every other command met "embedded database in use".
//
// PGlite has ONE session, shared by start's own queries and every client of the port. Two rules
// keep them from mixing:
// - turns: start's statements and transactions, and each client's messages, run one at a time
//   (the gate below), and start never runs while a client holds the session, nor a client's
//   message inside start's transaction. A client holds it from a message until the database's
//   next ReadyForQuery: through an open transaction, and through the messages of one extended-
//   protocol exchange (Parse, Bind, Describe, Execute … Sync), which share the session's unnamed
//   statement and portal — a statement of start, or of another client, between a client's Parse
//   and its Bind took that statement away ("unnamed prepared statement does not exist", seen in
//   CI when `keys create` ran beside admin API calls into start). Clients among themselves are
//   kept apart by the socket server's own queue, which serves one client while the session says
//   it is in a transaction: the view below says so while a client holds it.
// - notifications: PGlite hands NOTIFY to its in-process listeners only for statements it ran
//   through its own query API; a statement sent through the port answers with a raw byte stream,
//   so the server reads NotificationResponse messages out of that stream and passes them on.
//   That is what turns a change made with the CLI into a change-triggered build.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { writeFileAtomically } from '../../runtime/files.ts';

/** Clients of the port at once (the CLI opens a pool of up to 4). */
const MAX_CLIENTS = 16;
/** How often start looks again whether a client's transaction has ended. */
const TRANSACTION_POLL_MS = 5;

export type NotificationHandler = (channel: string, payload: string) => void;

/** One turn at a time on PGlite's single session. */
export class SessionTurns {
  private tail: Promise<unknown> = Promise.resolve();
  /** A client's message ran and the database has not said ReadyForQuery since: the rest of its exchange is to come. */
  private exchangeOpen = false;

  constructor(private readonly db: PGlite) {}

  /** A client holds the session: its transaction is open, or its exchange is. */
  clientHolds(): boolean {
    return this.exchangeOpen || this.db.isInTransaction();
  }

  /**
   * For start's own work: its turn, at a moment when no client holds the session. The turn is
   * given back while it waits, or the client could never send the Sync or COMMIT that ends its hold.
   */
  async ownTurn<T>(work: () => Promise<T>): Promise<T> {
    for (;;) {
      const outcome = await this.take(async () => (this.clientHolds() ? undefined : { value: await work() }));
      if (outcome) return outcome.value;
      await new Promise((resolve) => setTimeout(resolve, TRANSACTION_POLL_MS));
    }
  }

  /** For one message of a client: its transaction may be open, start's may not (start holds its turn throughout). */
  clientTurn<T>(work: () => Promise<T>): Promise<T> {
    return this.take(work);
  }

  /** A client's message is about to run: its exchange is open until the database's next ReadyForQuery. */
  exchangeStarted(): void {
    this.exchangeOpen = true;
  }

  /** The database said ReadyForQuery, or the client went: the session is nobody's. */
  exchangeEnded(): void {
    this.exchangeOpen = false;
  }

  private take<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.tail.then(work);
    this.tail = turn.catch(() => undefined);
    return turn;
  }
}

export interface EmbeddedServer {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  close(): Promise<void>;
}

/** Where a served embedded database can be reached, next to its lock file; read by other commands (database-backends.ts). */
interface ServedDatabase {
  url: string;
  pid: number;
  schema: string;
  marqueeSchema: string;
}

export const servedFile = (dataDir: string): string => path.join(dataDir, 'served.json');

export async function advertiseServed(dataDir: string, served: ServedDatabase): Promise<void> {
  await writeFileAtomically(servedFile(dataDir), JSON.stringify(served), { fsync: false, mode: 0o600 });
}

/** The advertisement of a process serving `dataDir`, when that process is alive. */
export async function servedBy(dataDir: string): Promise<ServedDatabase | undefined> {
  const text = await readFile(servedFile(dataDir), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const served = JSON.parse(text) as ServedDatabase;
  try {
    process.kill(served.pid, 0);
    return served;
  } catch {
    return undefined;
  }
}

export async function serveEmbedded(db: PGlite, turns: SessionTurns, onNotification: NotificationHandler): Promise<EmbeddedServer> {
  // The socket server sees PGlite through this view: the same database, but every message takes
  // its turn, a client holding the session is "in a transaction" (the server's queue then serves
  // that client alone), and notifications in the answers are passed on.
  const view = new Proxy(db, {
    get(target, property) {
      if (property === 'runExclusive') return <T>(work: () => Promise<T>) => turns.clientTurn(() => target.runExclusive(work));
      if (property === 'isInTransaction') return () => turns.clientHolds();
      if (property === 'exec') {
        // Only called by the server for a client gone while it held the session: end whatever
        // exchange it left half-way (a Sync), then its transaction.
        return (sql: string) =>
          turns.clientTurn(async () => {
            await target.execProtocolRawStream(SYNC, { onRawData: () => {} });
            turns.exchangeEnded();
            return target.isInTransaction() ? target.exec(sql) : [];
          });
      }
      if (property === 'execProtocolRawStream') {
        return (message: Uint8Array, options: { onRawData: (data: Uint8Array) => void }) => {
          const reader = new BackendMessageReader(onNotification, () => turns.exchangeEnded());
          // Terminate ('X') is answered by nothing: the client is going, and holds nothing after it.
          if (message[0] !== TERMINATE) turns.exchangeStarted();
          return target.execProtocolRawStream(message, {
            ...options,
            onRawData: (data: Uint8Array) => {
              reader.read(data);
              options.onRawData(data);
            },
          });
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const server = new PGLiteSocketServer({ db: view, host: '127.0.0.1', port: 0, maxConnections: MAX_CLIENTS });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, close: () => server.stop() };
}

const TERMINATE = 0x58;
/** The frontend's Sync message: ends an extended-protocol exchange, and the error state one may have left. */
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

/**
 * Finds NotificationResponse ('A': int32 length, int32 pid, channel\0, payload\0) and
 * ReadyForQuery ('Z') messages in a stream of backend messages that may arrive in pieces.
 */
class BackendMessageReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    private readonly onNotification: NotificationHandler,
    private readonly onReadyForQuery: () => void,
  ) {}

  read(data: Uint8Array): void {
    this.pending = this.pending.length === 0 ? Buffer.from(data) : Buffer.concat([this.pending, data]);
    let offset = 0;
    while (this.pending.length - offset >= 5) {
      const length = this.pending.readInt32BE(offset + 1);
      if (this.pending.length - offset < 1 + length) break;
      if (this.pending[offset] === 0x5a) this.onReadyForQuery();
      if (this.pending[offset] === 0x41) {
        const body = this.pending.subarray(offset + 9, offset + 1 + length);
        const channelEnd = body.indexOf(0);
        const payloadEnd = body.indexOf(0, channelEnd + 1);
        if (channelEnd >= 0 && payloadEnd >= 0) {
          this.onNotification(body.subarray(0, channelEnd).toString('utf8'), body.subarray(channelEnd + 1, payloadEnd).toString('utf8'));
        }
      }
      offset += 1 + length;
    }
    this.pending = this.pending.subarray(offset);
  }
}
