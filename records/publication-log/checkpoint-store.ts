// The publication log's checkpoints in the snapshot store, where auditors find them beside the
// signing keys: `publication-log/checkpoints/{size, 12 digits}.txt`, each the signed note of the log
// at that size (checkpoint.ts), written once and never replaced, like the key records. Sorted by
// name as by size, so the latest is the last name listed. The builders write them (at least every
// minute while the log grows: checkpoint-keeping.ts), so does `marquee checkpoint`; the admin API
// and the CLI read them. Outside `orgs/`: no organization's prefix, no retention touches them.
//
// Signed by the builders' snapshot signing key (Signer.signNoteText), whose record is published
// under signing-keys/ before the first checkpoint it signs, as publish does before a manifest.
import type { KeyObject } from 'node:crypto';
import { contentObject } from '../../snapshot/hash.ts';
import { parseSigningKeyRecord, type Signer, SIGNING_KEYS_PREFIX, signingKeyRecordKey } from '../../snapshot/signing.ts';
import type { SnapshotSource, SnapshotStore } from '../../snapshot/store.ts';
import { type Checkpoint, checkpointText, noteKeyId, verifyCheckpoint } from './checkpoint.ts';
import type { PublicationLog } from './log-store.ts';

const CHECKPOINTS_PREFIX = 'publication-log/checkpoints/';

/** Twelve digits: a trillion leaves before the names stop sorting by size. */
const checkpointKey = (size: number): string => `${CHECKPOINTS_PREFIX}${String(size).padStart(12, '0')}.txt`;

const CHECKPOINT_NAME = /^publication-log\/checkpoints\/(\d{12})\.txt$/;

export interface StoredCheckpoint {
  readonly key: string;
  readonly size: number;
  /** The signed note, as stored. */
  readonly note: string;
}

export interface VerifiedCheckpoint extends StoredCheckpoint, Checkpoint {
  /** The signing key (signing-keys/{keyId}.json) whose signature verified. */
  readonly keyId: string;
}

/** A verified checkpoint as auditors are given it, by `marquee checkpoint --json` and GET /admin/v1/checkpoint alike. */
export interface CheckpointView {
  origin: string;
  size: number;
  /** base64, as in the note. */
  rootHash: string;
  keyId: string;
  storeKey: string;
  note: string;
}

export const checkpointView = (verified: VerifiedCheckpoint): CheckpointView => ({
  origin: verified.origin,
  size: verified.size,
  rootHash: verified.rootHash.toString('base64'),
  keyId: verified.keyId,
  storeKey: verified.key,
  note: verified.note,
});

/** The signed note of `checkpoint` by `signer`, under the origin as key name (signed-note.md's Ed25519 line). */
function signedCheckpointNote(checkpoint: Checkpoint, signer: Signer): string {
  const text = checkpointText(checkpoint);
  const signature = Buffer.concat([noteKeyId(checkpoint.origin, signer.publicKey), signer.signNoteText(text)]).toString('base64');
  return `${text}\n\u2014 ${checkpoint.origin} ${signature}\n`;
}

/** The checkpoint with the largest size the store holds; undefined when it holds none. */
export async function latestCheckpoint(store: SnapshotSource & Pick<SnapshotStore, 'list'>): Promise<StoredCheckpoint | undefined> {
  const keys = (await store.list(CHECKPOINTS_PREFIX)).filter((key) => CHECKPOINT_NAME.test(key)).sort();
  const key = keys.at(-1);
  if (key === undefined) return undefined;
  const bytes = await store.get(key);
  if (bytes === undefined) return undefined;
  return { key, size: Number(CHECKPOINT_NAME.exec(key)![1]), note: bytes.toString('utf8') };
}

/**
 * Writes the checkpoint of the log as it is now, unless the store holds one of that size already
 * (another builder's, or an earlier one: a size has one root). Undefined when the log is empty.
 * Refuses a log whose latest checkpoint names another origin: that would be another log to
 * everyone who checks (PUBLICATION_LOG_ORIGIN changed, or SNAPSHOT_CDN_URL). `known`: the latest
 * checkpoint as the caller already knows it (a builder's keeper, after its first look), so the
 * store's checkpoints — one a minute, for years — are not listed at every write.
 */
export async function writeCheckpoint(
  store: SnapshotStore,
  log: PublicationLog,
  signer: Signer,
  origin: string,
  options: { known?: StoredCheckpoint | undefined; now?: Date } = {},
): Promise<StoredCheckpoint | undefined> {
  const size = await log.size();
  if (size === 0) return undefined;
  const latest = 'known' in options ? options.known : await latestCheckpoint(store);
  if (latest !== undefined) {
    const latestOrigin = latest.note.slice(0, latest.note.indexOf('\n'));
    if (latestOrigin !== origin)
      throw new Error(`the store's checkpoints are of the log ${JSON.stringify(latestOrigin)}, not ${JSON.stringify(origin)}: set PUBLICATION_LOG_ORIGIN=${latestOrigin}`);
    if (latest.size >= size) return latest;
  }
  const rootHash = await log.root(size);
  // The key first, as publish does: no reader ever finds a checkpoint whose key is not published.
  await store.putIfVersion(signingKeyRecordKey(signer.keyId), contentObject(signer.record(options.now ?? new Date())).bytes, null);
  const note = signedCheckpointNote({ origin, size, rootHash }, signer);
  const key = checkpointKey(size);
  if ((await store.putIfVersion(key, Buffer.from(note, 'utf8'), null)) === 'conflict') {
    const present = await store.get(key);
    return { key, size, note: present?.toString('utf8') ?? note };
  }
  return { key, size, note };
}

/** The store's published signing keys, by key id; a record that does not check is left out. */
async function publishedKeys(store: SnapshotSource & Pick<SnapshotStore, 'list'>): Promise<Array<{ keyId: string; publicKey: KeyObject }>> {
  const keys: Array<{ keyId: string; publicKey: KeyObject }> = [];
  for (const key of await store.list(SIGNING_KEYS_PREFIX)) {
    const keyId = key.slice(SIGNING_KEYS_PREFIX.length, -'.json'.length);
    const bytes = await store.get(key);
    const parsed = bytes === undefined ? 'absent' : parseSigningKeyRecord(keyId, bytes);
    if (typeof parsed !== 'string') keys.push({ keyId, publicKey: parsed.publicKey });
  }
  return keys;
}

/** `stored` checked against the store's published keys under `origin`: which key signed it; a string saying why not otherwise. */
export async function verifyStoredCheckpoint(store: SnapshotSource & Pick<SnapshotStore, 'list'>, stored: StoredCheckpoint, origin: string): Promise<VerifiedCheckpoint | string> {
  const keys = await publishedKeys(store);
  const checkpoint = verifyCheckpoint(stored.note, { origin, publicKeys: keys.map((key) => key.publicKey) });
  if (typeof checkpoint === 'string') return checkpoint;
  if (checkpoint.size !== stored.size) return `${stored.key} holds the checkpoint of ${checkpoint.size} leaves`;
  // verifyCheckpoint found one: its signature line names it.
  return { ...stored, ...checkpoint, keyId: keyIdOfSignature(stored.note, origin, keys)! };
}

/** The published key whose note key id begins a signature line of the note. */
function keyIdOfSignature(note: string, origin: string, keys: ReadonlyArray<{ keyId: string; publicKey: KeyObject }>): string | undefined {
  const lines = note.slice(note.lastIndexOf('\n\n') + 2).split('\n');
  for (const line of lines) {
    const match = /^\u2014 (\S+) (\S+)$/.exec(line);
    if (match === null || match[1] !== origin) continue;
    const id = Buffer.from(match[2]!, 'base64').subarray(0, 4);
    const found = keys.find(({ publicKey }) => noteKeyId(origin, publicKey).equals(id));
    if (found !== undefined) return found.keyId;
  }
  return undefined;
}
