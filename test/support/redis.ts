// A throwaway Redis server for integration tests (Debian's redis-server): a free loopback port, its
// data in a temporary directory with an append-only file, so that `halt` then `resume` keeps keys
// as a production Redis with persistence does. Stopped by its PID.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './ports.ts';

const BIN = '/usr/bin/redis-server';

export interface TestRedis {
  /** e.g. redis://127.0.0.1:41234 */
  url: string;
  port: number;
  /** Kills the server (SIGKILL, as a crash), keeping its data for `resume`. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port with the same data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  if (!existsSync(BIN)) throw new Error(`Redis is not installed: ${BIN} is missing (Debian package redis-server)`);
  const dir = await mkdtemp(path.join(tmpdir(), 'marquee-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let output = '';

  const start = async (): Promise<void> => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--daemonize', 'no'];
    const started = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    started.stdout?.on('data', keep);
    started.stderr?.on('data', keep);
    child = started;
    try {
      await waitForPort(port, 10_000, 'redis-server');
    } catch (error) {
      started.kill('SIGKILL');
      throw new Error(`${(error as Error).message}\n${output}`, { cause: error });
    }
  };

  const kill = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    halt: kill,
    resume: start,
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
