// The publication log's latest checkpoint for the admin API (`GET /admin/v1/checkpoint`, auditor
// and up), as `marquee checkpoint --json` prints it (bin/commands/publication-log.ts): read from the
// store, where the builders write one at least every minute while the log grows, and checked
// against the signing keys the store publishes before it is answered. Read only: the admin port
// holds no signing key, so it writes none; its origin is the note's own first line, which every
// later checkpoint must keep (records/publication-log/checkpoint-store.ts writeCheckpoint).
import { type CheckpointView, checkpointView, latestCheckpoint, verifyStoredCheckpoint } from '../records/publication-log/checkpoint-store.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { adminError } from './errors.ts';

export interface CheckpointOperations {
  /** NOT_FOUND when the store holds none; HISTORY_BROKEN when the latest does not verify. */
  latest(): Promise<CheckpointView>;
}

export function checkpointOperations(store: SnapshotStore): CheckpointOperations {
  return {
    async latest() {
      const latest = await latestCheckpoint(store);
      if (latest === undefined)
        throw adminError('NOT_FOUND', `${store.description} holds no checkpoint of the publication log: nothing was published since the log exists, or no signing key is set`);
      const origin = latest.note.slice(0, latest.note.indexOf('\n'));
      const verified = await verifyStoredCheckpoint(store, latest, origin);
      if (typeof verified === 'string') throw adminError('HISTORY_BROKEN', `${latest.key} in ${store.description} does not verify: ${verified}`);
      return checkpointView(verified);
    },
  };
}
