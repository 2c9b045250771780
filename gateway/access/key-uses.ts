// Keys' last use (`keys list`'s lastUsedAt), recorded without slowing the hot path: access control
// notes each accepted request's key id and instant in memory (a Map set), and the noted instants go
// to the key store at most once per `intervalMs` (default a minute) and at close, in one
// KeyStore.recordUse. The instant is the request's own, never rounded: rounded down to its minute,
// a key used right after its creation read as used before it was created.
//
// Bounded whatever the number of keys: once `maxPending` keys are noted, a report starts at once
// rather than at the minute; and while the store refuses reports, what is kept for the next one
// stays within `maxPending` (a last use dropped so is noted again by the key's next request). A
// report goes to the store `chunkSize` keys at a time, one chunk after the other: handed 20,000 at
// once, the Redis store's commands for them (about 20,000 script calls, auto-pipelined) took some
// 50 to 100 MB of a gateway's memory for a moment, its highest peak serving 20,000 organizations.
import type { Log } from '../../runtime/log.ts';
import type { KeyStore } from '../../records/keys/key-store.ts';
import type { KeyUses } from './access-control.ts';

const MINUTE_MS = 60_000;

export interface KeyUseRecorderOptions {
  log: Log;
  /** Longest wait between two reports to the store; default a minute. */
  intervalMs?: number;
  /** Keys noted at most before a report starts; default 20,000 (about 2 MB). */
  maxPending?: number;
  /** Keys handed to the store at a time; default 500. */
  chunkSize?: number;
}

export class KeyUseRecorder implements KeyUses {
  /** Key id → the instant (ms) of its latest accepted request, since the last report. */
  private noted = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readonly log: Log;
  private readonly maxPending: number;
  private readonly chunkSize: number;

  constructor(
    private readonly store: Pick<KeyStore, 'recordUse'>,
    { log, intervalMs = MINUTE_MS, maxPending = 20_000, chunkSize = 500 }: KeyUseRecorderOptions,
  ) {
    this.log = log;
    this.maxPending = maxPending;
    this.chunkSize = chunkSize;
    this.timer = setInterval(() => void this.flush(), intervalMs);
    // Reporting last use is never a reason to keep a process alive.
    this.timer.unref();
  }

  note(keyId: string, nowMs: number): void {
    this.noted.set(keyId, nowMs);
    if (this.noted.size === this.maxPending) void this.flush();
  }

  /** Keys noted and not yet reported (for tests of the bound). */
  get pending(): number {
    return this.noted.size;
  }

  /** Reports what was noted since the last report; one report at a time. A failed report is kept for the next one. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.report());
    return this.flushing;
  }

  /** Stops the timer and reports what is left; before the store is closed. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async report(): Promise<void> {
    if (this.noted.size === 0) return;
    const batch = [...this.noted];
    this.noted = new Map();
    for (let start = 0; start < batch.length; start += this.chunkSize) {
      const chunk = batch.slice(start, start + this.chunkSize);
      try {
        await this.store.recordUse(new Map(chunk.map(([id, at]) => [id, new Date(at)])));
      } catch (error) {
        // What was not reported is kept for the next report, unless a later use was noted meanwhile.
        for (const [id, at] of batch.slice(start)) {
          if (this.noted.size >= this.maxPending) break;
          if (!this.noted.has(id)) this.noted.set(id, at);
        }
        this.log.warn("could not record keys' last use in the key store; trying again at the next report", { err: error, keys: batch.length - start });
        return;
      }
    }
  }
}
