// Runs the real CLI (bin/marquee) as an operator would, in a throwaway MARQUEE_HOME.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const MARQUEE = fileURLToPath(new URL('../../bin/marquee', import.meta.url));

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

/** Starts a long-running command and resolves once a line of its stdout matches `ready`. */
export function marqueeProcess(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpMatchArray; output: () => string; stop(): Promise<void> }> {
  const child = spawn(MARQUEE, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Never leave a child behind: a process that did not become ready is stopped.
      child.kill('SIGKILL');
      reject(new Error(`timed out waiting for ${ready}; output:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = output.match(ready);
      if (match) {
        clearTimeout(timer);
        resolve({
          child,
          match,
          output: () => output,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready; output:\n${output}`));
    });
  });
}
