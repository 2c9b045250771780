// A marquee process of the campaign run as systemd runs it in production (deploy/: Restart=always
// after a short delay): started, killed or paused by a fault, started again with the same
// environment and ports. Every pid it ever had is kept, so that the end can check none is left
// behind, and its resident memory is sampled across them all (the peak is the process's, whichever
// incarnation reached it). Its output goes to a log file of the campaign, for the post-mortem.
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { marqueeProcess } from '../../test/support/cli.ts';
import { vmRssMb } from '../soak/measures.ts';

export class Supervised {
  readonly pids: number[] = [];
  peakRssMb = 0;
  restarts = 0;
  private child: ChildProcess | undefined;
  private stopChild: (() => Promise<void>) | undefined;
  private readonly log: WriteStream;
  /** Set while a fault holds it down: the sampler and the load leave it be. */
  private stopping = false;

  constructor(
    readonly name: string,
    private readonly args: string[],
    private readonly env: Record<string, string>,
    private readonly ready: RegExp,
    logFile: string,
    readonly targetRssMb: number,
    private readonly readyTimeoutMs = 120_000,
  ) {
    this.log = createWriteStream(logFile, { flags: 'a' });
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<RegExpMatchArray> {
    this.log.write(`--- ${new Date().toISOString()} starting ${this.name}\n`);
    const running = await marqueeProcess(this.args, this.env, this.ready, { readyTimeoutMs: this.readyTimeoutMs });
    this.child = running.child;
    this.stopChild = running.stop;
    this.pids.push(running.child.pid!);
    this.log.write(running.output());
    running.child.stdout!.on('data', (chunk: Buffer) => this.log.write(chunk));
    running.child.stderr!.on('data', (chunk: Buffer) => this.log.write(chunk));
    // Restart=always: a process that dies by itself (not by a fault, which restarts it itself) comes back too.
    running.child.once('exit', (code, signal) => {
      this.log.write(`--- ${new Date().toISOString()} ${this.name} exited (${signal ?? code})\n`);
      if (!this.stopping && signal !== 'SIGKILL') void this.restartAfter(1_000).catch(() => {});
    });
    return running.match;
  }

  /**
   * SIGKILL, then systemd's restart after `delayMs`; resolves once the new process is ready.
   * `beforeRestart` runs after the delay, the killed process long gone and its connections closed
   * (a fault that held one of its links lifts it there).
   */
  async kill(delayMs: number, beforeRestart: () => void = () => {}): Promise<void> {
    // A restart still under way (a slow start on a busy machine) finishes first: two at once would
    // race for the same ports.
    await this.restarting;
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    await this.restartAfter(delayMs, beforeRestart);
  }

  private restarting: Promise<void> | undefined;

  private restartAfter(delayMs: number, beforeRestart: () => void = () => {}): Promise<void> {
    this.restarting ??= this.restart(delayMs, beforeRestart).finally(() => {
      this.restarting = undefined;
    });
    return this.restarting;
  }

  private async restart(delayMs: number, beforeRestart: () => void): Promise<void> {
    await sleep(delayMs);
    beforeRestart();
    // systemd keeps trying: a start that fails (a backend down meanwhile) is tried again a second later.
    for (;;) {
      if (this.stopping) return;
      this.restarts++;
      try {
        await this.start();
        return;
      } catch (error) {
        this.log.write(`--- ${new Date().toISOString()} ${this.name} did not start: ${(error as Error).message.split('\n')[0]}\n`);
        await sleep(1_000);
      }
    }
  }

  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    if (this.alive()) this.child!.kill(signal);
  }

  sample(): void {
    const mb = this.child?.pid === undefined ? undefined : vmRssMb(this.child.pid);
    if (mb !== undefined) this.peakRssMb = Math.max(this.peakRssMb, mb);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.signal('SIGCONT');
    await this.stopChild?.();
    await new Promise<void>((resolve) => this.log.end(resolve));
  }
}
