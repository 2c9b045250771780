// `marquee checkpoint`: the publication log's checkpoint for auditors (docs/operation.md
// "Checkpoints of the publication log"). Writes a fresh one to the store when the log grew since
// the latest (as the builders do every half minute), then prints the latest, checked against the
// signing keys the store publishes: what an auditor's own check (examples/verify-publication-log.mjs)
// will accept. `--backfill` first logs the store's history from before the log (records/publication-log/backfill.ts).
// `--since KEPT` proves the latest extends a checkpoint the auditor kept, and `--proof FILE` hands
// them that consistency proof (records/publication-log/proof-documents.ts) for their own check.
import { readFile, writeFile } from 'node:fs/promises';
import { checkSinceCheckpoint } from '../../builder/history/since-checkpoint.ts';
import { backfillPublicationLog } from '../../records/publication-log/backfill.ts';
import { consistencyProofDocument, proofDocumentBytes } from '../../records/publication-log/proof-documents.ts';
import { checkpointView, latestCheckpoint, verifyStoredCheckpoint, writeCheckpoint } from '../../records/publication-log/checkpoint-store.ts';
import { databasePublicationLog, type PublicationLog } from '../../records/publication-log/log-store.ts';
import { migrateMarquee } from '../../records/schema/migrate.ts';
import { describeError, OperatorError } from '../../runtime/errors.ts';
import type { Config } from '../config.ts';
import { printJson } from '../output.ts';
import { UsageError } from '../usage.ts';
import { withDatabase } from '../services.ts';
import { loadSigner } from '../signing-key.ts';

export async function checkpointCommand(config: Config, options: { backfill?: boolean; json?: boolean; since?: string; proof?: string }): Promise<void> {
  if (options.proof !== undefined && options.since === undefined)
    throw new UsageError('--proof writes the consistency proof from a kept checkpoint: give that checkpoint with --since FILE');
  const signer = loadSigner(config);
  if (signer === undefined)
    throw new OperatorError('no checkpoint: SNAPSHOT_SIGNING_KEY=none, and the publication log is vouched for with the snapshot signing key; set SNAPSHOT_SIGNING_KEY');
  const origin = config.publicationLogOrigin;
  if (typeof origin !== 'string') throw new OperatorError(`no checkpoint: ${origin.problem}`);
  const store = config.snapshotStore.open();
  const proved = await withDatabase(config, async (db) => {
    const log = databasePublicationLog(db);
    if (options.backfill) {
      await migrateMarquee(db);
      const report = await backfillPublicationLog(store, log);
      process.stderr.write(`backfilled ${report.manifests} manifests and ${report.stateRecords} state records of ${report.organizations} organizations\n`);
    }
    await sizeOf(log);
    if (options.since !== undefined) {
      // Writes the current checkpoint first, as below, then proves it extends the kept one.
      const extended = await checkSinceCheckpoint(store, log, await keptCheckpoint(config, options.since));
      const document = consistencyProofDocument(origin, extended.keptSize, extended.currentSize, extended.proof);
      if (options.proof !== undefined) await writeProof(options.proof, proofDocumentBytes(document));
      if (options.json) printJson({ ...checkpointView(extended.current), consistencyProof: document });
      else process.stdout.write(extended.current.note);
      return true;
    }
    try {
      await writeCheckpoint(store, log, signer, origin);
    } catch (error) {
      throw new OperatorError(`cannot write the publication log's checkpoint to ${store.description}: ${describeError(error)}`, { cause: error });
    }
    return false;
  });
  if (proved) return;
  const latest = await latestCheckpoint(store);
  if (latest === undefined)
    throw new OperatorError(
      `the publication log is empty and ${store.description} holds no checkpoint: nothing has been published since the log exists (build, or log the store's earlier history with: marquee checkpoint --backfill)`,
    );
  const verified = await verifyStoredCheckpoint(store, latest, origin);
  if (typeof verified === 'string') throw new OperatorError(`${latest.key} in ${store.description} does not verify: ${verified}`);
  if (!options.json) return void process.stdout.write(verified.note);
  printJson(checkpointView(verified));
}

/** The log's size; a database without the log (its migration not applied) is said so. */
async function sizeOf(log: PublicationLog): Promise<number> {
  try {
    return await log.size();
  } catch (error) {
    if (/marquee_publication_log/.test(describeError(error)))
      throw new OperatorError(`no publication log in this database (its migration is not applied: run marquee db migrate, or a build): ${describeError(error)}`, { cause: error });
    throw error;
  }
}

/** The checkpoint note an auditor kept in `file`, with the log's origin and the signer to write the current checkpoint with. */
export async function keptCheckpoint(config: Config, file: string) {
  const origin = config.publicationLogOrigin;
  if (typeof origin !== 'string') throw new OperatorError(`cannot check ${file}: ${origin.problem}`);
  let note: string;
  try {
    note = await readFile(file, 'utf8');
  } catch (error) {
    throw new OperatorError(`cannot read the checkpoint ${file}: ${describeError(error)}`, { cause: error });
  }
  return { note, file, origin, signer: loadSigner(config) };
}

async function writeProof(file: string, bytes: Buffer): Promise<void> {
  try {
    await writeFile(file, bytes);
  } catch (error) {
    throw new OperatorError(`cannot write the consistency proof to ${file}: ${describeError(error)}`, { cause: error });
  }
}
