// start's embedded database, run in a process of its own (embedded-child.ts) and reached, by start
// as by every other command, as a PostgreSQL server on a Unix socket in an owner-only directory.
// PGlite runs each statement on its process's one thread and cannot be interrupted: in start's
// own process, one `db sql "select pg_sleep(5)"` put the gateway's /healthz at 5.2 s. Here start
// only waits as a client, within bounds:
// - a statement of start's waits at most FOREIGN_HOLD_WAIT_MS while another client (the CLI, psql)
//   holds the database, then fails with DatabaseTimeoutError (the admin API's 503 with
//   Retry-After; a build fails for want of its backend and is retried);
// - a message that runs past its statement timeout (plus GRACE_MS) cannot be stopped inside
//   PGlite, so the database's process is killed and started again. PGlite recovers from its WAL
//   as PostgreSQL does after a crash (checked: killed five times in the middle of inserts, every
//   committed row was there and the index agreed); a reopen takes 3 to 6 s, during which start's
//   statements fail at once (503) and the CLI's are refused with "cannot be reached".
// The child dies with start: start closes it on shutdown, and it exits by itself when the IPC
// channel closes (start killed).
import { type ChildProcess, fork } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OperatorError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import type { ChildOptions, FromChild, ToChild } from './embedded-child.ts';
import type { SessionTimeouts } from './embedded-timeouts.ts';
import { EmbeddedDatabaseBusyError } from './embedded-lock.ts';
import { openPostgres } from './postgres.ts';
import { advertiseServed, servedFile, socketUrl } from './served-advertisement.ts';
import { socketDirectory } from './socket-directory.ts';
import { connectionSchemas, DatabaseTimeoutError, type ListenOptions, type OpenOptions, PlatformDatabaseError, type SqlClient } from './sql.ts';

/** start's own connections say so, so that the database tells start when another client holds it. */
const OWN_APPLICATION_NAME = 'marquee start';
/** How long start's statement waits for a database another client holds before it gives up (503). */
const FOREIGN_HOLD_WAIT_MS = 2_000;
/** Past a statement's deadline, before its process is killed: time for the answer to arrive. */
const GRACE_MS = 2_000;
/** A new PGlite directory takes about 4 s to make, a crashed one up to 6 s to recover. */
const READY_TIMEOUT_MS = 120_000;
const CLOSE_TIMEOUT_MS = 10_000;
const MAX_RESTART_DELAY_MS = 5_000;

export interface ServedOptions extends OpenOptions {
  timeouts: SessionTimeouts;
  log?: Log | undefined;
}

export async function openServedEmbedded(dataDir: string, home: string, options: ServedOptions): Promise<SqlClient> {
  const { schema, marqueeSchema, searchPath } = connectionSchemas(options);
  const socket = await socketDirectory(home);
  const supervisor = new DatabaseProcess({ dataDir, socketPath: socket.socketPath, searchPath, timeouts: options.timeouts, ownApplicationName: OWN_APPLICATION_NAME }, options.log);
  const url = socketUrl(socket.directory);
  let client: SqlClient | undefined;
  try {
    await supervisor.start();
    client = await openPostgres(url, {
      schema,
      marqueeSchema,
      applicationName: OWN_APPLICATION_NAME,
      statementTimeoutMs: options.timeouts.statementMs,
      bound: (work, abandon) => supervisor.bounded(work, abandon),
    });
    await advertiseServed(dataDir, { url, pid: process.pid, schema, marqueeSchema });
  } catch (error) {
    await client?.close();
    await supervisor.close();
    await socket.remove();
    if (error instanceof OperatorError) throw error;
    throw new PlatformDatabaseError(`cannot serve the embedded PGlite database ${dataDir}: ${(error as Error).message}`, { cause: error });
  }
  const opened = client;
  return {
    ...opened,
    description: `PGlite ${dataDir}`,
    listen: (channel, onPayload, listenOptions) => supervisor.listen(channel, onPayload, listenOptions),
    close: async () => {
      await rm(servedFile(dataDir), { force: true });
      await opened.close();
      await supervisor.close();
      await socket.remove();
    },
  };
}

interface Subscription {
  onPayload: (payload: string) => void;
  onReconnect: (() => void) | undefined;
}

/** The database's process: started, watched, killed when a statement overruns, started again. */
class DatabaseProcess {
  private child: ChildProcess | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  /** Another client runs a statement, or holds the session between its statements. */
  private foreignHold = false;
  private readonly holdWaiters = new Set<() => void>();
  private readonly subscriptions = new Map<string, Set<Subscription>>();
  private readonly acks = new Map<number, () => void>();
  private nextAck = 1;
  private closing = false;
  private restartDelay = 250;

  constructor(
    private readonly options: ChildOptions,
    private readonly log: Log | undefined,
  ) {}

  /** Forks the database's process and waits for it to serve. */
  start(): Promise<void> {
    const here = fileURLToPath(import.meta.url);
    const script = path.join(path.dirname(here), `embedded-child${path.extname(here)}`);
    // From the sources (tests), the child needs the same TypeScript loader as this process.
    const execArgv =
      path.extname(here) === '.ts' && !process.execArgv.some((arg) => arg.includes('tsx')) ? [...process.execArgv, '--import', import.meta.resolve('tsx')] : process.execArgv;
    const child = fork(script, [JSON.stringify(this.options)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
    this.child = child;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new PlatformDatabaseError(`the embedded database ${this.options.dataDir} did not open within ${READY_TIMEOUT_MS / 1000} s`));
      }, READY_TIMEOUT_MS);
      const settle = (error?: Error) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      child.on('message', (message: FromChild) => {
        if (message.type === 'ready') settle();
        else if (message.type === 'failed') {
          const failure = `cannot open the embedded PGlite database ${this.options.dataDir}: ${message.message}`;
          settle(message.busy ? new EmbeddedDatabaseBusyError(message.message) : new PlatformDatabaseError(failure));
        } else this.onMessage(message);
      });
      child.once('exit', (code, signal) => {
        settle(new PlatformDatabaseError(`the embedded database's process ended before it served (${signal ?? `exit ${code}`})`));
        this.onExit(child, code, signal);
      });
    });
  }

  private onMessage(message: FromChild): void {
    if (message.type === 'running') {
      clearTimeout(this.watchdog);
      this.watchdog = message.deadline === undefined ? undefined : setTimeout(() => this.overran(), message.deadline - Date.now() + GRACE_MS);
      if (message.foreign) this.setForeignHold(true);
    } else if (message.type === 'ran') {
      clearTimeout(this.watchdog);
      this.watchdog = undefined;
      this.setForeignHold(message.foreignHolds);
    } else if (message.type === 'notification') {
      for (const subscription of this.subscriptions.get(message.channel) ?? []) subscription.onPayload(message.payload);
    } else if (message.type === 'listening') {
      this.acks.get(message.id)?.();
      this.acks.delete(message.id);
    }
  }

  private setForeignHold(held: boolean): void {
    this.foreignHold = held;
    if (held) for (const waiter of this.holdWaiters) waiter();
  }

  private overran(): void {
    const child = this.child;
    if (!child || this.closing) return;
    this.log?.warn(
      `the embedded database ran one statement past its statement timeout (${this.options.timeouts.statementMs / 1000} s): its process ${child.pid} is killed and started again; PGlite recovers from its WAL`,
      { pid: child.pid, statementTimeoutMs: this.options.timeouts.statementMs },
    );
    child.kill('SIGKILL');
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = undefined;
    clearTimeout(this.watchdog);
    this.setForeignHold(false);
    if (this.closing) return;
    this.log?.warn(`the embedded database's process ${child.pid} ended (${signal ?? `exit ${code}`}); starting it again`, { pid: child.pid, code, signal });
    void this.restart();
  }

  private async restart(): Promise<void> {
    while (!this.closing) {
      await new Promise((resolve) => setTimeout(resolve, this.restartDelay));
      if (this.closing) return;
      try {
        await this.start();
        this.restartDelay = 250;
        // Notifications sent meanwhile are lost: listen again, then let each listener catch up.
        for (const channel of this.subscriptions.keys()) await this.listenInChild(channel);
        for (const subscription of [...this.subscriptions.values()].flatMap((set) => [...set])) subscription.onReconnect?.();
        this.log?.info("the embedded database's process serves again", { pid: this.child?.pid });
        return;
      } catch (error) {
        // Held by a command that opened it in the gap (its lock is free while no process holds it): wait for it.
        this.restartDelay = Math.min(this.restartDelay * 2, MAX_RESTART_DELAY_MS);
        this.log?.warn(`the embedded database cannot be started again yet: ${(error as Error).message}`, { retryInMs: this.restartDelay });
      }
    }
  }

  /**
   * start's work on one connection, given up (`abandon` closes the connection) when another client
   * holds the database for longer than FOREIGN_HOLD_WAIT_MS, or when it outlasts its statement
   * timeout and the grace by a second (the database's process is restarted by then anyway).
   */
  bounded<T>(work: Promise<T>, abandon: () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let holdTimer: NodeJS.Timeout | undefined;
      const statementMs = this.options.timeouts.statementMs;
      const overall = statementMs > 0 ? setTimeout(() => giveUp(`a statement took longer than its timeout (${statementMs / 1000} s)`), statementMs + GRACE_MS + 1000) : undefined;
      const onHold = () => {
        holdTimer ??= setTimeout(() => {
          if (this.foreignHold) giveUp(`another client has held the embedded database for more than ${FOREIGN_HOLD_WAIT_MS / 1000} s`);
          else holdTimer = undefined;
        }, FOREIGN_HOLD_WAIT_MS);
      };
      const done = () => {
        clearTimeout(overall);
        clearTimeout(holdTimer);
        this.holdWaiters.delete(onHold);
      };
      const giveUp = (why: string) => {
        done();
        abandon();
        reject(new DatabaseTimeoutError(`the platform database is busy: ${why}; try again shortly`));
      };
      this.holdWaiters.add(onHold);
      if (this.foreignHold) onHold();
      work.then(
        (value) => {
          done();
          resolve(value);
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    });
  }

  async listen(channel: string, onPayload: (payload: string) => void, options?: ListenOptions): Promise<() => Promise<void>> {
    const subscription: Subscription = { onPayload, onReconnect: options?.onReconnect };
    let forChannel = this.subscriptions.get(channel);
    if (!forChannel) {
      forChannel = new Set();
      this.subscriptions.set(channel, forChannel);
      await this.listenInChild(channel);
    }
    forChannel.add(subscription);
    const subscribed = forChannel;
    // The database's session keeps listening: one LISTEN per channel for the process's life costs nothing.
    return async () => {
      subscribed.delete(subscription);
    };
  }

  private listenInChild(channel: string): Promise<void> {
    const child = this.child;
    if (!child) return Promise.reject(new PlatformDatabaseError('the embedded database is being restarted; try again shortly'));
    const id = this.nextAck++;
    return new Promise<void>((resolve) => {
      this.acks.set(id, resolve);
      child.send({ type: 'listen', id, channel } satisfies ToChild);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.watchdog);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.connected) child.send({ type: 'close' } satisfies ToChild);
    const timer = setTimeout(() => child.kill('SIGKILL'), CLOSE_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
}
