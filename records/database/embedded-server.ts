// The embedded PGlite database served on a Unix socket, in the database's own process
// (embedded-child.ts): start talks to it through this socket like every other command beside it.
//
// PGlite has ONE session, shared by every client of the socket. A client holds it from a message
// until the database's next ReadyForQuery says it is idle: through an open transaction, and
// through the messages of one extended-protocol exchange (Parse, Bind, Describe, Execute … Sync),
// which share the session's unnamed statement and portal — another client's statement between a
// client's Parse and its Bind took that statement away ("unnamed prepared statement does not
// exist", seen in CI when `keys create` ran beside admin API calls into start). Messages are run
// one at a time, and while a client holds the session only its own are.
//
// What makes the one session safe to share, enforced here rather than trusted to clients:
// - a client that holds the session and sends nothing for the idle-in-transaction timeout is told
//   so (FATAL 25P03), rolled back and disconnected: PGlite ignores PostgreSQL's own
//   idle_in_transaction_session_timeout, and one forgotten BEGIN stopped every other client;
// - the statements PGlite cannot run safely are refused before they reach it (refused-statements.ts);
// - before each message runs, the supervisor is told by when it must be done (the client's
//   statement timeout): PGlite runs a statement on this process's only thread and cannot be
//   interrupted, so only the supervisor, in another process, can end one that overruns
//   (embedded-supervisor.ts). PGlite ignores statement_timeout too (pg_sleep(3) ran 3 s).
// - notifications: a statement answers with a raw byte stream, so NotificationResponse messages
//   are read out of it and passed on. That is what turns a change into a change-triggered build.
import { chmod, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import type { SessionTimeouts } from './embedded-timeouts.ts';
import { REFUSED_SQLSTATE, refusalOf } from './refused-statements.ts';
import { BackendReader, errorResponse, type FrontendMessage, FrontendReader, readyForQuery, statementText, SYNC, type TransactionStatus } from './wire-protocol.ts';

/** Clients at once (start and each CLI command open a pool of up to 4). */
const MAX_CLIENTS = 32;

interface SessionEvents {
  onNotification(channel: string, payload: string): void;
  /** A message is about to run: it must be done by `deadline` (undefined: no limit); `foreign`: a client other than start. */
  onRunning(turn: { deadline: number | undefined; foreign: boolean }): void;
  /** It ran; `foreignHolds`: a client other than start now holds the session (its transaction or exchange is open). */
  onRan(state: { foreignHolds: boolean }): void;
}

export interface ServeOptions {
  socketPath: string;
  timeouts: SessionTimeouts;
  /** The application_name start's own connections give: theirs are not "foreign". */
  ownApplicationName: string;
  events: SessionEvents;
}

export interface EmbeddedServer {
  /** Runs `work` (this process's own statements: LISTEN) when no client holds the session. */
  ownTurn<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

interface Client {
  socket: Socket;
  foreign: boolean;
  timeouts: SessionTimeouts;
  status: TransactionStatus;
  /** A statement of its exchange was refused: its messages are skipped until its Sync, as PostgreSQL skips them after an error. */
  discarding: boolean;
  idleTimer: NodeJS.Timeout | undefined;
  gone: boolean;
}

interface Turn {
  client: Client | undefined;
  run(): Promise<void>;
}

export async function serveEmbedded(db: PGlite, options: ServeOptions): Promise<EmbeddedServer> {
  const { events } = options;
  const turns: Turn[] = [];
  let holder: Client | undefined;
  let running = false;
  const clients = new Set<Client>();

  async function next(): Promise<void> {
    if (running) return;
    running = true;
    try {
      for (;;) {
        const index = holder === undefined ? 0 : turns.findIndex((turn) => turn.client === holder);
        if (index < 0 || index >= turns.length) return;
        const [turn] = turns.splice(index, 1);
        await turn!.run();
      }
    } finally {
      running = false;
    }
  }

  function enqueue<T>(client: Client | undefined, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      turns.push({ client, run: () => work().then(resolve, reject) });
      void next();
    });
  }

  /** One message through to PGlite, its answer back to the client. */
  async function pass(client: Client, bytes: Uint8Array): Promise<void> {
    const deadline = client.timeouts.statementMs > 0 ? Date.now() + client.timeouts.statementMs : undefined;
    events.onRunning({ deadline, foreign: client.foreign });
    let ready = false;
    const reader = new BackendReader(events.onNotification, (status) => {
      ready = true;
      client.status = status;
    });
    try {
      await db.runExclusive(() =>
        db.execProtocolRawStream(bytes, {
          onRawData: (data: Uint8Array) => {
            reader.read(data);
            if (!client.gone) client.socket.write(data);
          },
        }),
      );
      // Answered with ReadyForQuery: the exchange is over, and the session stays the client's only through its transaction.
      holder = ready && client.status === 'I' ? undefined : client;
    } finally {
      events.onRan({ foreignHolds: holder?.foreign === true });
    }
  }

  /** A client gone (or cut off) while it held the session: end the exchange it left half-way, then its transaction. */
  async function release(client: Client): Promise<void> {
    if (holder !== client) return;
    try {
      await db.runExclusive(() => db.execProtocolRawStream(SYNC, { onRawData: () => {} }));
      if (db.isInTransaction()) await db.exec('ROLLBACK');
    } finally {
      holder = undefined;
      events.onRan({ foreignHolds: false });
    }
  }

  async function onMessage(client: Client, message: Extract<FrontendMessage, { kind: 'typed' }>): Promise<void> {
    if (client.gone) return;
    if (client.discarding) {
      if (message.type !== 'S') return;
      client.discarding = false;
    }
    const sql = statementText(message);
    const refusal = sql === undefined ? undefined : refusalOf(sql);
    if (refusal === undefined) return pass(client, message.bytes);
    client.socket.write(errorResponse('ERROR', REFUSED_SQLSTATE, refusal));
    if (message.type === 'Q') {
      client.socket.write(readyForQuery(client.status));
    } else {
      // The rest of the exchange is skipped up to its Sync, which then goes through and answers ReadyForQuery.
      client.discarding = true;
      holder = client;
    }
  }

  function armIdleTimer(client: Client): void {
    clearTimeout(client.idleTimer);
    client.idleTimer = undefined;
    if (holder !== client || client.gone || client.timeouts.idleInTransactionMs <= 0) return;
    const seconds = client.timeouts.idleInTransactionMs / 1000;
    client.idleTimer = setTimeout(() => {
      if (holder !== client || client.gone || turns.some((turn) => turn.client === client)) return;
      client.socket.end(
        errorResponse(
          'FATAL',
          '25P03',
          `terminating connection: it held the embedded database's one session (an open transaction or an unfinished exchange) without a word for ${seconds} s, Marquee's idle-in-transaction timeout; its transaction is rolled back`,
        ),
      );
      forget(client);
    }, client.timeouts.idleInTransactionMs);
    client.idleTimer.unref();
  }

  function forget(client: Client): void {
    if (client.gone) return;
    client.gone = true;
    clearTimeout(client.idleTimer);
    clients.delete(client);
    // Its waiting messages go with it; a hold it left is given back in its own turn.
    for (let at = turns.length - 1; at >= 0; at--) if (turns[at]!.client === client) turns.splice(at, 1);
    void enqueue(client, () => release(client)).catch(() => {});
  }

  function accept(socket: Socket): void {
    if (clients.size >= MAX_CLIENTS) {
      socket.end(errorResponse('FATAL', '53300', `the embedded database takes at most ${MAX_CLIENTS} connections at once`));
      return;
    }
    const client: Client = { socket, foreign: true, timeouts: options.timeouts, status: 'I', discarding: false, idleTimer: undefined, gone: false };
    clients.add(client);
    const reader = new FrontendReader();
    const afterTurn = () => armIdleTimer(client);
    socket.on('data', (data: Buffer) => {
      clearTimeout(client.idleTimer);
      let messages: FrontendMessage[];
      try {
        messages = reader.read(data);
      } catch (error) {
        socket.end(errorResponse('FATAL', '08P01', (error as Error).message));
        forget(client);
        return;
      }
      for (const message of messages) {
        if (message.kind === 'encryption') socket.write('N');
        else if (message.kind === 'cancel') socket.destroy();
        else if (message.kind === 'startup') {
          client.foreign = message.parameters.get('application_name') !== options.ownApplicationName;
          client.timeouts = clientTimeouts(message.parameters, options.timeouts);
          void enqueue(client, () => pass(client, message.bytes)).then(afterTurn, () => socket.destroy());
        } else if (message.type === 'X') socket.end();
        else void enqueue(client, () => onMessage(client, message)).then(afterTurn, () => socket.destroy());
      }
    });
    socket.on('error', () => forget(client));
    socket.on('close', () => forget(client));
  }

  const server = createServer(accept);
  server.maxConnections = MAX_CLIENTS + 1;
  // This process holds the database's lock: a socket file left here is a dead predecessor's.
  await rm(options.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => resolve());
  });
  // The directory (owner-only) is what keeps other accounts out; the file's mode says the same.
  await chmod(options.socketPath, 0o600);
  return {
    ownTurn: (work) => enqueue(undefined, work),
    close: async () => {
      for (const client of clients) client.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A client's own timeouts, from its startup packet: node-postgres's `statement_timeout` and
 * `idle_in_transaction_session_timeout` settings (milliseconds), or psql's
 * `PGOPTIONS='-c statement_timeout=60s'`. PostgreSQL's units (ms, s, min, h); 0: none.
 */
function clientTimeouts(parameters: Map<string, string>, defaults: SessionTimeouts): SessionTimeouts {
  const options = parameters.get('options') ?? '';
  const setting = (name: string): number | undefined => {
    const value = parameters.get(name) ?? new RegExp(`(?:-c\\s*|--)${name}=(\\S+)`).exec(options)?.[1];
    return value === undefined ? undefined : durationMs(value);
  };
  return {
    statementMs: setting('statement_timeout') ?? defaults.statementMs,
    idleInTransactionMs: setting('idle_in_transaction_session_timeout') ?? defaults.idleInTransactionMs,
  };
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, min: 60_000, h: 3_600_000 };

function durationMs(value: string): number | undefined {
  const match = /^(\d+)\s*(ms|s|min|h)?$/.exec(value.trim());
  return match === null ? undefined : Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!;
}
