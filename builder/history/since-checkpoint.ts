// `marquee verify --since CHECKPOINT_FILE`: an auditor's kept checkpoint of the publication log
// (as `marquee checkpoint` printed it) against the log as it is now. Its signature must hold by a
// signing key the store publishes; the log's current checkpoint (written first, as `marquee
// checkpoint` does, when the log grew and a signing key is at hand) must be the log's own root and
// extend it, by the log's consistency proof (RFC 9162 §2.1.4). A log whose tree was rewritten or
// forked since fails here, whatever the store holds; then verify checks that every publication
// logged since the kept size is in the store (logged-publications.ts, from that seq on). The proof
// and the roots are folds of the stored tree alone: rows changed or deleted with the tree left
// pass here, and are found when verify reads them, each checked against the tree's leaf at its
// seq and every seq from the kept size on (log-store.ts): a `log-rewritten` break.
import { parseCheckpointText, parseSignedNote } from '../../records/publication-log/checkpoint.ts';
import { latestCheckpoint, type VerifiedCheckpoint, verifyStoredCheckpoint, writeCheckpoint } from '../../records/publication-log/checkpoint-store.ts';
import type { PublicationLog } from '../../records/publication-log/log-store.ts';
import { verifyConsistency } from '../../records/publication-log/merkle.ts';
import { describeError, OperatorError } from '../../runtime/errors.ts';
import type { Signer } from '../../snapshot/signing.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';

/** A kept checkpoint that the log as it is now does not extend, or that does not verify. */
class CheckpointNotExtendedError extends OperatorError {
  override name = 'CheckpointNotExtendedError';
}

/** What the kept checkpoint vouched for, and the current checkpoint that extends it, with the proof that it does. */
interface ExtendedCheckpoint {
  keptSize: number;
  currentSize: number;
  current: VerifiedCheckpoint;
  /** RFC 9162's consistency_path from the kept size to the current one (empty when equal). */
  proof: Buffer[];
}

/**
 * Checks `note` (the kept checkpoint, read from `file`) as the header says; throws
 * CheckpointNotExtendedError saying why not. `signer`: to write the current checkpoint first
 * (undefined: SNAPSHOT_SIGNING_KEY=none, the store's latest is taken as it is).
 */
export async function checkSinceCheckpoint(
  store: SnapshotStore,
  log: PublicationLog,
  { note, file, origin, signer }: { note: string; file: string; origin: string; signer: Signer | undefined },
): Promise<ExtendedCheckpoint> {
  const fail = (why: string): never => {
    throw new CheckpointNotExtendedError(`${file}: ${why}`);
  };
  const parsed = parseSignedNote(note);
  const text = typeof parsed === 'string' ? parsed : parseCheckpointText(parsed.text);
  if (typeof text === 'string') return fail(`not a checkpoint of the publication log: ${text}`);
  const kept = await verifyStoredCheckpoint(store, { key: file, size: text.size, note }, origin);
  if (typeof kept === 'string') return fail(`its signature does not verify with the signing keys ${store.description} publishes: ${kept}`);

  if (signer !== undefined) {
    try {
      await writeCheckpoint(store, log, signer, origin);
    } catch (error) {
      throw new OperatorError(`cannot write the publication log's checkpoint to ${store.description}: ${describeError(error)}`, { cause: error });
    }
  }
  const stored = await latestCheckpoint(store);
  if (stored === undefined) return fail(`${store.description} holds no checkpoint of the publication log to compare it with`);
  const current = await verifyStoredCheckpoint(store, stored, origin);
  if (typeof current === 'string') return fail(`the current checkpoint ${stored.key} does not verify: ${current}`);
  const size = await log.size();
  if (size < current.size || size < kept.size)
    return fail(`the publication log holds ${size} leaves, fewer than the checkpoints of ${kept.size} and ${current.size}: it was rewritten or replaced`);
  const forked = 'the publication log was rewritten or forked since that checkpoint';
  if (!(await log.root(current.size)).equals(current.rootHash)) return fail(`${forked}: its root at ${current.size} leaves is not the one ${stored.key} signed`);
  if (current.size < kept.size) return fail(`it is of ${kept.size} leaves, more than the current checkpoint's ${current.size}: ${forked}`);
  const proof = await log.consistencyProof(kept.size, current.size);
  if (!verifyConsistency(kept.size, current.size, kept.rootHash, current.rootHash, proof))
    return fail(`${forked}: the log's consistency proof from ${kept.size} to ${current.size} leaves does not hold against ${stored.key}`);
  return { keptSize: kept.size, currentSize: current.size, current, proof };
}
