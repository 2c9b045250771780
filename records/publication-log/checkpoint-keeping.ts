// A builder keeps the publication log's checkpoints in the store (docs/design.md "History as
// evidence"): every interval it reads the log's size — one indexed read — and writes a signed
// checkpoint when the log grew since the last one it saw, so that the store holds one at most a
// minute behind the log while it grows, and writes nothing while it does not (an unchanged
// scheduled run publishes, and so logs, nothing). Without a signing key (SNAPSHOT_SIGNING_KEY=none)
// no checkpoint can be signed and none is kept: the caller does not start this. The end of each run
// that published writes one too, through its own writer (bin/services.ts).
import type { Signer } from '../../snapshot/signing.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';
import { type StoredCheckpoint, writeCheckpoint } from './checkpoint-store.ts';
import type { PublicationLog } from './log-store.ts';

/** Half the minute promised: a checkpoint is never more than a minute behind a growing log. */
const CHECKPOINT_INTERVAL_MS = 30_000;

export interface CheckpointKeeping {
  /** After a last checkpoint, so that what was appended just before is covered too. */
  stop(): Promise<void>;
}

export interface CheckpointKeepingOptions {
  store: SnapshotStore;
  log: PublicationLog;
  signer: Signer;
  origin: string;
  onError: (error: unknown) => void;
  /** Tests: a shorter interval than the half minute. */
  intervalMs?: number;
}

/**
 * Writes a checkpoint when the log grew since the newest this writer wrote or found (the store's
 * checkpoints listed once, at its first write): one read of the log's size otherwise. One write at
 * a time, so a slow store never has two of one size racing. Never rejects: a failure goes to onError.
 */
export function checkpointWriter(options: Omit<CheckpointKeepingOptions, 'intervalMs'>): () => Promise<void> {
  const { store, log, signer, origin, onError } = options;
  let latest: StoredCheckpoint | undefined;
  let looked = false;
  let running: Promise<void> = Promise.resolve();
  return () => {
    running = running.then(async () => {
      try {
        if (latest !== undefined && (await log.size()) <= latest.size) return;
        const written = await writeCheckpoint(store, log, signer, origin, looked ? { known: latest } : {});
        looked = true;
        if (written !== undefined) latest = written;
      } catch (error) {
        onError(error);
      }
    });
    return running;
  };
}

export function keepCheckpoints(options: CheckpointKeepingOptions): CheckpointKeeping {
  const keep = checkpointWriter(options);
  void keep();
  const timer = setInterval(() => void keep(), options.intervalMs ?? CHECKPOINT_INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await keep();
    },
  };
}
