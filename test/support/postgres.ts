// A throwaway PostgreSQL 15 server for integration tests: a fresh
// cluster in a temp directory on a free loopback port, fsync off, owned by the `postgres` user
// because PostgreSQL refuses to run as root. Stopped by pg_ctl and removed by `stop`.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.ts';

/** PostgreSQL 15's programs, as Debian installs them (scripts/ensure-test-services.sh). */
export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';
const run = promisify(execFile);

export interface TestPostgres {
  /** Superuser connection URL of the `postgres` database. */
  url: string;
  /** Stops the server as a crash would (immediate shutdown) and keeps its data, for `resume`. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port with the same data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<TestPostgres> {
  if (!existsSync(path.join(POSTGRES_BIN, 'pg_ctl'))) {
    throw new Error(`PostgreSQL 15 is not installed: ${POSTGRES_BIN} is missing (Debian package postgresql-15)`);
  }
  const root = await mkdtemp(path.join(tmpdir(), 'marquee-pg-'));
  const dataDir = path.join(root, 'data');
  const { uid, gid } = await postgresUser();
  await chmod(root, 0o755);
  await chown(root, uid, gid);
  const port = await freePort();
  // Fast and not crash-safe against the machine (no fsync), but safe against the server's own crash:
  // commits are written to the kernel before they return (synchronous_commit on), so `halt`, an
  // immediate shutdown, loses nothing committed, as a real server's crash would not. With it off, a
  // commit made just before a halt (a GRANT) was lost in recovery on a slow machine.
  const start = () =>
    asPostgres(
      `${POSTGRES_BIN}/pg_ctl -D ${dataDir} -l ${root}/server.log -w ` + `-o "-p ${port} -c listen_addresses=127.0.0.1 -k ${root} -c fsync=off -c full_page_writes=off" start`,
    );
  try {
    await asPostgres(`${POSTGRES_BIN}/initdb -D ${dataDir} -U postgres --auth=trust --no-sync -E UTF8 --locale=C.UTF-8`);
    await start();
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw new Error(`cannot start PostgreSQL in ${root}: ${(error as { stderr?: string }).stderr ?? error}`, { cause: error });
  }
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    halt: () => asPostgres(`${POSTGRES_BIN}/pg_ctl -D ${dataDir} -m immediate -w stop`),
    resume: start,
    async stop() {
      if (stopped) return;
      stopped = true;
      await asPostgres(`${POSTGRES_BIN}/pg_ctl -D ${dataDir} -m immediate -w stop`).catch(() => {});
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** A new empty database on the same server, so tests in one file do not see each other's rows. */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function asPostgres(command: string): Promise<void> {
  await run('su', ['postgres', '-s', '/bin/sh', '-c', command]);
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const { stdout: uid } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}
