// A throwaway Redis server for integration tests (Debian's redis-server): a free loopback port, its
// data in a temporary directory with an append-only file, so that `halt` then `resume` keeps keys
// as a production Redis with persistence does. Stopped by its PID.
//
// Tests sync the file after every write, so that a halt (SIGKILL) loses nothing they wrote. What
// runs as production does (the benchmarks, the soak, the chaos campaign) syncs once a second,
// Redis's own default: syncing every counted request's write measures the disk, and on a shared
// disk a sync can stall every client for seconds.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { daemon } from './daemon.ts';
import { freePort } from './ports.ts';

const BIN = '/usr/bin/redis-server';

export interface TestRedis {
  /** e.g. redis://127.0.0.1:41234 */
  url: string;
  port: number;
  /** Kills the server (SIGKILL, as a crash), keeping its data for `resume`. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port with the same data. */
  resume(): Promise<void>;
  /** Replaces the server with a new, empty one on the same port: what a Redis without persistence is after a restart. */
  replace(): Promise<void>;
  stop(): Promise<void>;
}

export interface RedisOptions {
  /** `always` (the default, for tests) or `everysec` (Redis's default, as in production). */
  appendfsync?: 'always' | 'everysec';
}

export async function startRedis(options: RedisOptions = {}): Promise<TestRedis> {
  if (!existsSync(BIN)) throw new Error(`Redis is not installed: ${BIN} is missing (Debian package redis-server)`);
  const dir = await mkdtemp(path.join(tmpdir(), 'marquee-redis-'));
  const port = await freePort();
  const fsync = options.appendfsync ?? 'always';
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', fsync, '--daemonize', 'no'];
  const server = daemon('redis-server', BIN, args, port);
  // SIGKILL: as a crash, so that `resume` shows what a restarted Redis keeps (its append-only file).
  const kill = () => server.stop('SIGKILL');
  const start = () => server.start();

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    halt: kill,
    resume: start,
    async replace() {
      await kill();
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir);
      await start();
    },
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
