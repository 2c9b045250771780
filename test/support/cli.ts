// Runs the real CLI (bin/marquee) as an operator would, in a throwaway MARQUEE_HOME.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MARQUEE = fileURLToPath(new URL('../../bin/marquee', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function marquee(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(MARQUEE, args, { env: { ...process.env, ...env }, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A new admin credential's secret, made as an operator makes one (`marquee admins create --json`), for a test to sign in with. */
export async function adminSecret(env: Record<string, string>, name: string, role: string): Promise<string> {
  const created = await marquee(['admins', 'create', '--name', name, '--role', role, '--json'], env);
  if (created.code !== 0) throw new Error(`marquee admins create --name ${name} --role ${role} exited ${created.code}: ${created.stderr}`);
  return (JSON.parse(created.stdout) as { secret: string }).secret;
}

/** Output kept for error messages: the end of what the process printed. */
const OUTPUT_KEPT = 64 * 1024;
const STOP_TIMEOUT_MS = 10_000;

/**
 * Starts a long-running command and resolves once its output matches `ready`. A process that does
 * not get ready in time, exits first or cannot be started is stopped, never left behind, and the
 * promise rejects with the end of its output; stop() sends SIGTERM, then SIGKILL if it lingers.
 */
export function marqueeProcess(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  {
    readyTimeoutMs = 60_000,
    command: executable = MARQUEE,
    cwd,
  }: {
    readyTimeoutMs?: number;
    /** Another `marquee` than this checkout's (an installed release). */
    command?: string;
    cwd?: string;
  } = {},
): Promise<{ child: ChildProcess; match: RegExpMatchArray; output: () => string; stop(): Promise<void> }> {
  // No drain unless a test asks for one (SHUTDOWN_DRAIN_SECONDS, bin/shutdown.ts): no balancer is in
  // front of these processes, and stop() would otherwise wait out 5 s of /readyz 503 each time.
  const child = spawn(executable, args, {
    env: { ...process.env, SHUTDOWN_DRAIN_SECONDS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd === undefined ? {} : { cwd }),
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(killer);
  };
  const command = `marquee ${args.join(' ')}`;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stop().then(() => reject(new Error(`${command} ${reason}; its output ended with:\n${output.slice(-4000)}`)));
    };
    const timer = setTimeout(() => fail(`did not print ${ready} within ${readyTimeoutMs} ms`), readyTimeoutMs);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
      const match = output.match(ready);
      if (match && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve({ child, match, output: () => output, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => fail(`exited (${signal ?? code}) before it was ready`));
    child.once('error', (error) => fail(`could not be started: ${error.message}`));
  });
}
