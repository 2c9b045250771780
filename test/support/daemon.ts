// A server program the tests start as a child process (redis-server, nginx): started, awaited until
// it accepts connections on its port, and stopped by its PID, with the end of its output kept for
// the error when it does not come up.
import { type ChildProcess, spawn } from 'node:child_process';
import { waitForPort } from './ports.ts';

export interface Daemon {
  /** Starts it (again); resolves once its port accepts connections. */
  start(): Promise<void>;
  /** Sends `signal` and waits for the exit; nothing when it is not running. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

export function daemon(name: string, command: string, args: string[], port: number): Daemon {
  let child: ChildProcess | undefined;
  let output = '';
  return {
    async start() {
      // Already running: nothing to do. A second process would find the port taken by the first,
      // answer "started", and leave the first running for ever.
      if (child !== undefined && child.exitCode === null && child.signalCode === null) return;
      const started = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-4000);
      };
      started.stdout?.on('data', keep);
      started.stderr?.on('data', keep);
      child = started;
      try {
        await waitForPort(port, 10_000, name);
      } catch (error) {
        started.kill('SIGKILL');
        throw new Error(`${(error as Error).message}\n${output}`, { cause: error });
      }
    },
    async stop(signal) {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill(signal);
      await exited;
    },
  };
}
