// The inclusion proof of the manifest an as-of answer came from (docs/design.md "The publication
// log, exactly"), as `show --evidence` and the admin API's inclusion route hand it to auditors: the
// manifest's leaf in the publication log (the organization's entry of kind manifest naming the
// snapshot id with the manifest's hash), proved against the newest checkpoint in the store, with
// that checkpoint's signed note as stored. With the two, examples/verify-publication-log.mjs (or any
// RFC 9162 code) checks that the manifest is in the log the checkpoint signs, trusting nothing of
// Marquee's but the signing key record.
//
// When there is no proof to give, it says why instead of failing: the manifest was published
// before the log existed (a store is logged from its backfill on), the log records another hash
// for it, or no checkpoint covers its leaf yet. The reads are one seam (InclusionSources); the
// decisions between them are pure.
import type { SnapshotSource, SnapshotStore } from '../../snapshot/store.ts';
import { latestCheckpoint, type VerifiedCheckpoint, verifyStoredCheckpoint } from './checkpoint-store.ts';
import type { PublicationLog } from './log-store.ts';
import { leafHash, verifyInclusion } from './merkle.ts';
import { type InclusionProofDocument, inclusionProofDocument } from './proof-documents.ts';

/** What the proof is read from: the platform database's log, and the store's newest checkpoint. */
export interface InclusionSources {
  readonly log: Pick<PublicationLog, 'entriesOf' | 'inclusionProof'>;
  /** Its signature checked against the keys the store publishes: undefined when the store holds none, a string saying why it does not verify. */
  newestCheckpoint(): Promise<VerifiedCheckpoint | string | undefined>;
}

/** The sources of `store` and `log`: the checkpoint's origin is its own first line, as the admin API's checkpoint route reads it. */
export function inclusionSources(store: SnapshotSource & Pick<SnapshotStore, 'list'>, log: InclusionSources['log']): InclusionSources {
  return {
    log,
    async newestCheckpoint() {
      const latest = await latestCheckpoint(store);
      if (latest === undefined) return undefined;
      const verified = await verifyStoredCheckpoint(store, latest, latest.note.slice(0, latest.note.indexOf('\n')));
      return typeof verified === 'string' ? `${latest.key} does not verify: ${verified}` : verified;
    },
  };
}

/** The manifest an answer came from, as its evidence names it. */
export interface AnsweringManifest {
  readonly organizationId: string;
  readonly snapshotId: string;
  /** SHA-256 (hex) of its bytes as stored. */
  readonly manifestHash: string;
}

/** What an auditor is handed: the checkpoint's signed note, verbatim as stored, and the proof file of the manifest's leaf in its tree. */
interface Inclusion {
  readonly checkpoint: string;
  readonly proof: InclusionProofDocument;
}

/** The proof, or null and why there is none: the members `show --evidence` and the admin API answer with. */
export type ManifestInclusion = { readonly inclusion: Inclusion } | { readonly inclusion: null; readonly inclusionReason: string };

type LoggedLeaf = Awaited<ReturnType<PublicationLog['entriesOf']>>[number];

const WHEN_CHECKPOINTS = 'builders write one at least every minute while the log grows; `marquee checkpoint` writes one now';

/** The leaf that logged `manifest` among its organization's entries (the first, should it be logged twice); a string saying why there is none. */
function manifestLeaf(entries: readonly LoggedLeaf[], manifest: AnsweringManifest): LoggedLeaf | string {
  const named = entries.filter(({ entry }) => entry.kind === 'manifest' && entry.id === manifest.snapshotId);
  const leaf = named.find(({ entry }) => entry.hash === manifest.manifestHash);
  if (leaf !== undefined) return leaf;
  if (named.length > 0)
    return `the publication log records snapshot ${manifest.snapshotId} with the manifest hash ${named[0]!.entry.hash}, not ${manifest.manifestHash}: the manifest in the store is not the one logged`;
  return `the publication log does not record snapshot ${manifest.snapshotId} of organization ${manifest.organizationId}: it was published before the log existed (a store's earlier history is logged by \`marquee checkpoint --backfill\`, from then on)`;
}

/** Why `checkpoint` cannot prove `leaf`, or undefined when its tree holds it. */
function uncovered(leaf: LoggedLeaf, checkpoint: VerifiedCheckpoint | string | undefined): string | undefined {
  if (checkpoint === undefined) return `the store holds no checkpoint of the publication log yet (${WHEN_CHECKPOINTS}; none is written with SNAPSHOT_SIGNING_KEY=none)`;
  if (typeof checkpoint === 'string') return `the store's newest checkpoint ${checkpoint}`;
  if (checkpoint.size <= leaf.seq)
    return `no checkpoint covers it yet: its leaf is number ${leaf.seq} of the log, the store's newest checkpoint is of ${checkpoint.size} leaves (${WHEN_CHECKPOINTS})`;
  return undefined;
}

/**
 * The inclusion proof of `manifest`'s leaf against the store's newest checkpoint, checked here as
 * the auditor will check it: a proof that does not lead to the checkpoint's root (the store's
 * checkpoints are of another database's log) is said, never handed over.
 */
export async function manifestInclusion(sources: InclusionSources, manifest: AnsweringManifest): Promise<ManifestInclusion> {
  const none = (inclusionReason: string): ManifestInclusion => ({ inclusion: null, inclusionReason });
  const leaf = manifestLeaf(await sources.log.entriesOf(manifest.organizationId), manifest);
  if (typeof leaf === 'string') return none(leaf);
  const checkpoint = await sources.newestCheckpoint();
  const reason = uncovered(leaf, checkpoint);
  if (reason !== undefined) return none(reason);
  const { size, rootHash, origin, note } = checkpoint as VerifiedCheckpoint;
  const otherLog = `the store's newest checkpoint (${size} leaves) is not of this database's publication log: its root is not the log's`;
  let proof: Buffer[];
  try {
    proof = await sources.log.inclusionProof(leaf.seq, size);
  } catch (error) {
    // The log holds fewer leaves than the checkpoint counts.
    if (error instanceof RangeError) return none(otherLog);
    throw error;
  }
  if (!verifyInclusion(leaf.seq, size, leafHash(leaf.leaf), proof, rootHash)) return none(otherLog);
  return { inclusion: { checkpoint: note, proof: inclusionProofDocument(origin, size, leaf, proof) } };
}
