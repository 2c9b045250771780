// The one door to the platform database: a small SQL client with two backends, PostgreSQL
// (DATABASE_URL, production) and PGlite (embedded default under MARQUEE_HOME), docs/design.md
// "Process model and configuration". Everything else in builder/platform talks to SqlClient only.
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import pg from 'pg';
import { OperatorError } from '../../snapshot/errors.ts';
import { DEFAULT_PLATFORM_SCHEMA } from '../defaults.ts';
import { writeFileAtomically } from '../../snapshot/files.ts';
import { EmbeddedDatabaseBusyError, lockEmbeddedDatabase } from './embedded-lock.ts';
import { type EmbeddedServer, SessionTurns, serveEmbedded } from './embedded-server.ts';

/** What can run statements: the client itself, or one transaction of it. */
export interface SqlQueries {
  query<T>(text: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements (no parameters). */
  exec(script: string): Promise<void>;
}

interface TransactionOptions {
  /**
   * A read-only REPEATABLE READ snapshot, so that several queries of one reader see one
   * consistent state of the platform (a build never mixes rows from before and after a change).
   */
  readOnly?: boolean;
}

export interface ListenOptions {
  /**
   * Called each time listening resumes after the connection was lost (a database restart): what
   * was notified meanwhile is lost, and the caller must make up for it. Never called for PGlite,
   * which runs in this process and cannot lose its connection.
   */
  onReconnect?: () => void;
}

export interface SqlClient extends SqlQueries {
  /** For messages: "PostgreSQL 127.0.0.1:5433/platform", "PGlite ./var/platform". Never a password. */
  readonly description: string;
  /** The schema holding the platform relations (PLATFORM_SCHEMA; default `public`). */
  readonly schema: string;
  /** Runs `work` in one transaction on one connection: committed if it resolves, rolled back if not. */
  transaction<T>(work: (tx: SqlQueries) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Calls `onPayload` for every NOTIFY on `channel`; resolves to an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void, options?: ListenOptions): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** The platform database cannot be reached or opened: the message names it and why, for the operator. */
export class PlatformDatabaseError extends OperatorError {
  override name = 'PlatformDatabaseError';
}

export interface PlatformDatabaseOptions {
  /** DATABASE_URL; unset means the embedded PGlite database under `home`. */
  databaseUrl?: string | undefined;
  /** MARQUEE_HOME: the embedded database lives in `${home}/platform`. */
  home: string;
  /** PLATFORM_SCHEMA. */
  schema?: string | undefined;
  /**
   * The embedded database only (start): also serve it on a loopback PostgreSQL port, so that other
   * commands can use it while this process holds it (embedded-server.ts).
   */
  serve?: boolean;
}

/** Where a served embedded database can be reached, next to its lock file; read by other commands. */
const SERVED_FILE = 'served.json';
interface ServedDatabase {
  url: string;
  pid: number;
  schema: string;
}

/**
 * PostgreSQL when DATABASE_URL is set, else PGlite in `${home}/platform` (docs/design.md). When
 * another process (start) holds the embedded database and serves it, the connection goes through
 * that process's loopback port instead.
 */
export async function openPlatformDatabase(options: PlatformDatabaseOptions): Promise<SqlClient> {
  const schema = options.schema ?? DEFAULT_PLATFORM_SCHEMA;
  if (options.databaseUrl) return openPostgres(options.databaseUrl, { schema });
  const dataDir = path.join(options.home, 'platform');
  try {
    await mkdir(dataDir, { recursive: true });
  } catch (error) {
    throw new PlatformDatabaseError(`cannot create the embedded database directory ${dataDir} (MARQUEE_HOME=${options.home}): ${reason(error)}`, { cause: error });
  }
  try {
    return await openPglite(dataDir, { schema, serve: options.serve === true });
  } catch (error) {
    if (!(error instanceof EmbeddedDatabaseBusyError)) throw error;
    const served = await servedBy(dataDir);
    if (!served) throw error;
    if (served.schema !== schema) {
      throw new PlatformDatabaseError(`the embedded database ${dataDir} is served by process ${served.pid} with PLATFORM_SCHEMA=${served.schema}, not ${schema}`);
    }
    const client = await openPostgres(served.url, { schema });
    return { ...client, description: `PGlite ${dataDir} (through process ${served.pid}, ${describePostgresTarget(served.url)})` };
  }
}

/** The advertisement of a process serving `dataDir`, when that process is alive. */
async function servedBy(dataDir: string): Promise<ServedDatabase | undefined> {
  const text = await readFile(path.join(dataDir, SERVED_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const served = JSON.parse(text) as ServedDatabase;
  try {
    process.kill(served.pid, 0);
    return served;
  } catch {
    return undefined;
  }
}

export interface OpenOptions {
  schema?: string;
  /** PGlite in a directory: serve it on a loopback port while open (openPlatformDatabase). */
  serve?: boolean;
}

const POOL_SIZE = 4;
const CONNECT_TIMEOUT_MS = 10_000;

export async function openPostgres(url: string, options: OpenOptions = {}): Promise<SqlClient> {
  const schema = checkedSchema(options.schema ?? DEFAULT_PLATFORM_SCHEMA);
  const target = describePostgresTarget(url);
  // libpq-style startup option: every pooled connection (and the listener) gets the search_path.
  // The timeout turns an unreachable host into an error that names it rather than a silent hang.
  const config: pg.PoolConfig = {
    connectionString: url,
    options: `-c search_path=${schema}`,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  };
  const pool = new pg.Pool({ ...config, max: POOL_SIZE });
  // An idle pooled client that loses its server emits 'error' on the pool; the next query
  // reports the failure, so the event itself must not crash the process.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw new PlatformDatabaseError(`cannot connect to DATABASE_URL (${target}): ${reason(error)}`, { cause: error });
  }
  const listener = new PostgresListener(config);

  return {
    description: `PostgreSQL ${target}`,
    schema,
    async query<T>(text: string, params?: unknown[]) {
      const result = await pool.query(text, params);
      return result.rows as T[];
    },
    async exec(script: string) {
      const { client, release } = await checkOut(pool);
      try {
        await runScript(client, script);
      } finally {
        release();
      }
    },
    async transaction<T>(work: (tx: SqlQueries) => Promise<T>, transactionOptions: TransactionOptions = {}) {
      const { client, release } = await checkOut(pool);
      try {
        await client.query(transactionOptions.readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
        const result = await work({
          query: async <R>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as R[],
          exec: (script: string) => client.query(script).then(() => undefined),
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        release();
      }
    },
    listen: (channel, onPayload, listenOptions) => listener.listen(channel, { onPayload, onReconnect: listenOptions?.onReconnect }),
    async close() {
      await listener.close();
      await pool.end();
    },
  };
}

/**
 * A pooled connection for several statements. While a connection is checked out, pg leaves its
 * 'error' event (the server reset or closed the socket) to the caller, and an 'error' nobody
 * listens to ends the process: a builder would die of a database blip. The statement under way
 * already fails with the loss, so the event only marks the connection broken, and it is released
 * as such: closed, not handed out again.
 */
async function checkOut(pool: pg.Pool): Promise<{ client: pg.PoolClient; release(): void }> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  return {
    client,
    release: () => {
      client.off('error', onError);
      client.release(lost);
    },
  };
}

/** A script that fails half-way must not leave its pooled connection inside an aborted transaction. */
async function runScript(client: pg.PoolClient, script: string): Promise<void> {
  try {
    await client.query(script);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

interface Subscription {
  onPayload: (payload: string) => void;
  onReconnect: (() => void) | undefined;
}

/**
 * LISTEN needs a connection of its own that stays open (a pooled one would be handed to other
 * queries). One listener connection serves every channel; it is opened on the first listen,
 * closed after the last unsubscribe, and reconnects after losing the server (every second until
 * it is back), so change-triggered builds resume after a database restart. Each subscription is
 * told once listening has resumed: notifications sent meanwhile are lost, so the caller catches
 * up from that moment on (a full build reads after it, and later changes are heard again).
 */
class PostgresListener {
  private readonly handlers = new Map<string, Set<Subscription>>();
  private client: Promise<pg.Client> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly config: pg.ClientConfig) {}

  async listen(channel: string, subscription: Subscription): Promise<() => Promise<void>> {
    let channelHandlers = this.handlers.get(channel);
    const isNewChannel = channelHandlers === undefined;
    if (!channelHandlers) {
      channelHandlers = new Set();
      this.handlers.set(channel, channelHandlers);
    }
    channelHandlers.add(subscription);
    if (isNewChannel) {
      try {
        const client = await this.connection();
        await client.query(`LISTEN ${quoteIdentifier(channel)}`);
      } catch (error) {
        this.handlers.delete(channel);
        throw error;
      }
    }
    return async () => {
      channelHandlers.delete(subscription);
      if (channelHandlers.size > 0 || this.handlers.get(channel) !== channelHandlers) return;
      this.handlers.delete(channel);
      if (this.handlers.size === 0) {
        await this.disconnect();
      } else {
        const client = await this.connection();
        await client.query(`UNLISTEN ${quoteIdentifier(channel)}`);
      }
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handlers.clear();
    await this.disconnect();
  }

  private connection(): Promise<pg.Client> {
    this.client ??= this.connect();
    return this.client;
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client(this.config);
    client.on('notification', (message) => {
      for (const subscription of this.handlers.get(message.channel) ?? []) subscription.onPayload(message.payload ?? '');
    });
    client.on('error', () => this.scheduleReconnect(client));
    client.on('end', () => this.scheduleReconnect(client));
    try {
      await client.connect();
    } catch (error) {
      this.client = undefined;
      throw new PlatformDatabaseError(`cannot open the change listener connection: ${reason(error)}`, { cause: error });
    }
    return client;
  }

  private scheduleReconnect(lost: pg.Client): void {
    void this.client?.then((current) => {
      if (current !== lost || this.closed || this.reconnectTimer) return;
      this.client = undefined;
      this.reconnectTimer = setTimeout(() => void this.relisten(), 1000);
      this.reconnectTimer.unref();
    });
  }

  private async relisten(): Promise<void> {
    this.reconnectTimer = undefined;
    if (this.closed || this.handlers.size === 0) return;
    try {
      const client = await this.connection();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${quoteIdentifier(channel)}`);
    } catch {
      const lost = await this.client?.catch(() => undefined);
      this.client = undefined;
      if (lost) await lost.end().catch(() => {});
      this.reconnectTimer = setTimeout(() => void this.relisten(), 1000);
      this.reconnectTimer.unref();
      return;
    }
    // Only once every LISTEN is in force: whatever the caller reads from now on, a later change is heard.
    for (const subscription of [...this.handlers.values()].flatMap((subscriptions) => [...subscriptions])) subscription.onReconnect?.();
  }

  private async disconnect(): Promise<void> {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const client = this.client;
    this.client = undefined;
    const open = await client?.catch(() => undefined);
    await open?.end().catch(() => {});
  }
}

/** `dataDir` undefined: an in-memory database (tests). */
export async function openPglite(dataDir?: string, options: OpenOptions = {}): Promise<SqlClient> {
  const schema = checkedSchema(options.schema ?? DEFAULT_PLATFORM_SCHEMA);
  const where = dataDir ?? '(in memory)';
  const unlock = dataDir === undefined ? async () => {} : await lockEmbeddedDatabase(dataDir);
  let db: PGlite;
  try {
    db = await PGlite.create(dataDir);
    // PGlite is one session, so setting the search_path once covers every later statement.
    await db.exec(`SET search_path TO ${schema}`);
  } catch (error) {
    await unlock();
    throw new PlatformDatabaseError(`cannot open the embedded PGlite database ${where}: ${reason(error)}`, { cause: error });
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
      const advert: ServedDatabase = { url: served.url, pid: process.pid, schema };
      await writeFileAtomically(path.join(dataDir, SERVED_FILE), JSON.stringify(advert), { fsync: false, mode: 0o600 });
    } catch (error) {
      await served?.close();
      await db.close();
      await unlock();
      throw new PlatformDatabaseError(`cannot serve the embedded PGlite database ${where} on a loopback port: ${reason(error)}`, { cause: error });
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
    query: (text, params) => turns.ownTurn(() => queries(db).query(text, params)),
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
        await rm(path.join(dataDir, SERVED_FILE), { force: true });
        await served.close();
      }
      await db.close();
      await unlock();
    },
  };
}

/** PLATFORM_SCHEMA goes into search_path unquoted, so only plain identifiers are accepted. */
function checkedSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new PlatformDatabaseError(`PLATFORM_SCHEMA must be a plain lower-case identifier, got ${JSON.stringify(schema)}`);
  }
  return schema;
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** "127.0.0.1:5433/platform": enough to recognise the server, never the credentials. */
function describePostgresTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'unparseable URL';
  }
}

/** The short reason of a connection failure: a system error code, or the server's message. */
function reason(error: unknown): string {
  // Node reports a refused connection to every address of a host as an AggregateError whose own
  // message is empty; its code (ECONNREFUSED) says it all.
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  if (error instanceof Error && error.message) return error.message;
  return String(error);
}
