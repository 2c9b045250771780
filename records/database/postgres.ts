// The PostgreSQL backend of SqlClient (DATABASE_URL): a small pool for statements and
// transactions, and one listener connection for LISTEN (postgres-listener.ts).
import pg from 'pg';
import { connectionSchemas, failureReason, type OpenOptions, PlatformDatabaseError, type SqlClient, type SqlQueries, type TransactionOptions } from './sql.ts';
import { PostgresListener } from './postgres-listener.ts';

const POOL_SIZE = 4;
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Bounds one piece of work on one connection (start's embedded database: embedded-supervisor.ts):
 * settles as `work` does, or rejects first and calls `abandon`, which closes the connection rather
 * than hand it out again with its statement still under way.
 */
type ConnectionBound = <T>(work: Promise<T>, abandon: () => void) => Promise<T>;

export interface PostgresOptions extends OpenOptions {
  /** Sent at connection: what pg_stat_activity shows, and how start's embedded database knows start's own connections. */
  applicationName?: string;
  /** Sent at connection (statement_timeout): the server ends a statement that runs longer. */
  statementTimeoutMs?: number;
  bound?: ConnectionBound;
}

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<SqlClient> {
  const { schema, marqueeSchema, searchPath } = connectionSchemas(options);
  const target = describePostgresTarget(url);
  // libpq-style startup option: every pooled connection (and the listener) gets the search_path.
  // The timeout turns an unreachable host into an error that names it rather than a silent hang.
  const config: pg.PoolConfig = {
    connectionString: url,
    options: `-c search_path=${searchPath}`,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(options.applicationName === undefined ? {} : { application_name: options.applicationName }),
    ...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: options.statementTimeoutMs }),
  };
  const pool = new pg.Pool({ ...config, max: POOL_SIZE });
  // An idle pooled client that loses its server emits 'error' on the pool; the next query
  // reports the failure, so the event itself must not crash the process.
  pool.on('error', () => {});
  const onConnection = <T>(work: (client: pg.PoolClient) => Promise<T>) => withConnection(pool, target, work, options.bound);
  try {
    await onConnection((client) => client.query('SELECT 1'));
  } catch (error) {
    await pool.end().catch(() => {});
    // The reason of the failure itself: withConnection has already said "cannot be reached" around it.
    const reason = error instanceof PlatformDatabaseError && error.cause !== undefined ? error.cause : error;
    throw new PlatformDatabaseError(`cannot connect to DATABASE_URL (${target}): ${failureReason(reason)}`, { cause: reason });
  }
  const listener = new PostgresListener(config);

  return {
    description: `PostgreSQL ${target}`,
    schema,
    marqueeSchema,
    query: <T>(text: string, params?: unknown[]) => onConnection(async (client) => (await client.query(text, params)).rows as T[]),
    statement: (text: string) =>
      onConnection(async (client) => {
        // Several statements in one text answer one result each (the simple protocol): the last is what was done last.
        const answer = (await client.query(text)) as pg.QueryResult<Record<string, unknown>> | pg.QueryResult<Record<string, unknown>>[];
        const result = Array.isArray(answer) ? answer.at(-1) : answer;
        return { rows: result?.rows ?? [], command: result?.command ?? null, rowCount: result?.rowCount ?? null };
      }),
    exec: (script: string) => onConnection((client) => runScript(client, script)),
    transaction: <T>(work: (tx: SqlQueries) => Promise<T>, transactionOptions: TransactionOptions = {}) =>
      onConnection(async (client) => {
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
        }
      }),
    listen: (channel, onPayload, listenOptions) => listener.listen(channel, { onPayload, onReconnect: listenOptions?.onReconnect }),
    async close() {
      await listener.close();
      await pool.end();
    },
  };
}

/**
 * `work` on a pooled connection. While a connection is checked out, pg leaves its 'error' event
 * (the server reset or closed the socket) to the caller, and an 'error' nobody listens to ends
 * the process: a builder would die of a database blip. The statement under way already fails
 * with the loss, so the event only marks the connection broken, and it is released as such:
 * closed, not handed out again. So is a connection whose work `bound` gave up on.
 */
async function withConnection<T>(pool: pg.Pool, target: string, work: (client: pg.PoolClient) => Promise<T>, bound: ConnectionBound | undefined): Promise<T> {
  let client: pg.PoolClient | undefined;
  let broken: Error | undefined;
  let released = false;
  const onError = (error: Error) => {
    broken = error;
  };
  const release = () => {
    if (released || !client) return;
    released = true;
    client.off('error', onError);
    client.release(broken);
  };
  const attempt = (async () => {
    try {
      client = await pool.connect();
    } catch (error) {
      throw unreachable(error, target);
    }
    client.on('error', onError);
    try {
      // Given up on while it waited for a connection: that connection goes straight back, closed.
      if (broken) throw broken;
      return await work(client);
    } catch (error) {
      throw unreachable(error, target);
    } finally {
      release();
    }
  })();
  if (!bound) return attempt;
  return bound(attempt, () => {
    broken ??= new Error('given up on by its caller');
    attempt.catch(() => {});
    release();
  });
}

/**
 * A statement that failed because the server could not be reached or went away under it (a
 * restart, a failover, a network fault) becomes a PlatformDatabaseError: 503 with Retry-After from
 * the admin API, one line from the CLI, a build failed for want of a backend (retried). A
 * statement the server answered with an error keeps its own.
 */
function unreachable(error: unknown, target: string): unknown {
  if (error instanceof PlatformDatabaseError || !connectionLost(error)) return error;
  return new PlatformDatabaseError(`the platform database (${target}) cannot be reached: ${failureReason(error)}`, { cause: error });
}

/** Connection exceptions (SQLSTATE class 08), the server shutting down (57P01–57P03), a socket's system error, or pg's own words for a lost connection. */
function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && (/^E[A-Z]+$/.test(code) || code.startsWith('08') || /^57P0[123]$/.test(code))) return true;
  return error instanceof Error && /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/.test(error.message);
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

/** "127.0.0.1:5433/platform", or a socket's "/directory/postgres": enough to recognise the server, never the credentials. */
export function describePostgresTarget(url: string): string {
  // postgresql://user@/db?host=/dir (a Unix socket) is not a WHATWG URL: no host after the user.
  const socket = /^postgres(?:ql)?:\/\/[^/?]*\/([^?]*)\?(?:.*&)?host=([^&]+)/.exec(url);
  if (socket) return `${decodeURIComponent(socket[2]!)}/${socket[1]}`;
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'unparseable URL';
  }
}
