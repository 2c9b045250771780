// The publication log's latest checkpoint for the admin API (`GET /admin/v1/checkpoint`, auditor
// and up), as `marquee checkpoint --json` prints it (bin/commands/publication-log.ts): read from the
// store, where the builders write one at least every minute while the log grows, and checked
// against the signing keys the store publishes before it is answered. Read only: the admin port
// holds no signing key, so it writes none; its origin is the note's own first line, which every
// later checkpoint must keep (records/publication-log/checkpoint-store.ts writeCheckpoint).
import { type CheckpointView, checkpointView, latestCheckpoint, verifyStoredCheckpoint } from '../records/publication-log/checkpoint-store.ts';
import type { PublicationLog } from '../records/publication-log/log-store.ts';
import { type ConsistencyProofDocument, consistencyProofDocument } from '../records/publication-log/proof-documents.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { adminError, badRequest } from './errors.ts';

export interface CheckpointOperations {
  /**
   * NOT_FOUND when the store holds none; HISTORY_BROKEN when the latest does not verify. With
   * `since` (the size of a checkpoint an auditor kept), the consistency proof from that size to the
   * latest's, as `checkpoint --since KEPT --proof FILE` writes it: BAD_REQUEST for a size past the
   * latest's, HISTORY_BROKEN when the log no longer holds the latest's leaves.
   */
  latest(since?: number): Promise<CheckpointView & { consistencyProof?: ConsistencyProofDocument }>;
}

/** `log`: the process's publication log, which consistency proofs are read from (none: `since` is refused). */
export function checkpointOperations(store: SnapshotStore, log?: Pick<PublicationLog, 'consistencyProof'>): CheckpointOperations {
  return {
    async latest(since) {
      const latest = await latestCheckpoint(store);
      if (latest === undefined)
        throw adminError('NOT_FOUND', `${store.description} holds no checkpoint of the publication log: nothing was published since the log exists, or no signing key is set`);
      const origin = latest.note.slice(0, latest.note.indexOf('\n'));
      const verified = await verifyStoredCheckpoint(store, latest, origin);
      if (typeof verified === 'string') throw adminError('HISTORY_BROKEN', `${latest.key} in ${store.description} does not verify: ${verified}`);
      if (since === undefined) return checkpointView(verified);
      if (log === undefined) throw adminError('NOT_FOUND', 'this process holds no publication log to prove consistency with');
      if (since > verified.size) throw badRequest(`since ${since} is past the latest checkpoint's size, ${verified.size}`);
      let proof: Buffer[];
      try {
        proof = await log.consistencyProof(since, verified.size);
      } catch (error) {
        // The log holds fewer leaves than the checkpoint counts: it was rewritten or replaced.
        if (error instanceof RangeError) throw adminError('HISTORY_BROKEN', `the publication log cannot prove ${latest.key}: ${error.message}`);
        throw error;
      }
      return { ...checkpointView(verified), consistencyProof: consistencyProofDocument(verified.origin, since, verified.size, proof) };
    },
  };
}
