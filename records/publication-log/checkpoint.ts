// Checkpoints of the publication log: its size and root hash, signed with the snapshot signing key
// (snapshot/signing.ts), as a C2SP signed note (c2sp.org/tlog-checkpoint, c2sp.org/signed-note), the
// form transparency logs and their witnesses and monitors already read:
//
//   cdn.example.com/marquee/publication-log
//   1010
//   CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=
//
//   — cdn.example.com/marquee/publication-log Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=
//
// The note text is three lines, each ending in a newline: the origin, the size in decimal (no
// leading zero), the root hash in standard base64 (RFC 4648 §4); no extension line. Then a blank
// line, then one signature line per key: an em dash (U+2014), a space, the key name, a space, and
// base64(key id || Ed25519 signature of the note text's UTF-8 bytes), the key id being the first 4
// bytes of SHA-256(key name || 0x0A || 0x01 || the 32-byte public key) (signed-note.md, "Ed25519
// signatures"). The key name is the origin, as tlog-checkpoint.md recommends; a rotated key has
// another id under the same name, so old checkpoints keep verifying with the old key's record.
//
// The origin names the store whose history the log holds: its name as readers reach it, without a
// scheme, then "/publication-log" (publicationLogOrigin). It must never change over the log's life:
// a checkpoint under another origin is another log to everyone who checks.
import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { HASH_BYTES } from './merkle.ts';

export interface Checkpoint {
  readonly origin: string;
  readonly size: number;
  readonly rootHash: Buffer;
}

/** The last segment of every Marquee publication log's origin. */
const PUBLICATION_LOG_SEGMENT = 'publication-log';

/** signed-note.md's signature type of Ed25519. */
const ED25519_TYPE = 0x01;
const KEY_ID_BYTES = 4;
const ED25519_SIGNATURE_BYTES = 64;
/** Verifiers must accept 16 signatures; a note with more than this is refused unread. */
const MAX_SIGNATURES = 100;
const EM_DASH = '\u2014';

/**
 * The origin of the log of the store named `storeName` — its public base URL (SNAPSHOT_CDN_URL) or
 * its location (s3://bucket/prefix) — without scheme or trailing slash: "https://cdn.example.com/marquee/"
 * gives "cdn.example.com/marquee/publication-log", "s3://events/prod" gives "events/prod/publication-log".
 */
export function publicationLogOrigin(storeName: string): string {
  const name = storeName
    .trim()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .replace(/\/+$/, '');
  const origin = `${name}/${PUBLICATION_LOG_SEGMENT}`;
  if (name === '' || !isKeyName(origin))
    throw new RangeError(`cannot make a log origin of ${JSON.stringify(storeName)}: it must be non-empty, without spaces, plus signs or control characters`);
  return origin;
}

/** signed-note.md allows no ASCII control character in a note but the newline. */
function hasControlCharacter(text: string): boolean {
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code < 0x20 && code !== 0x0a) return true;
  }
  return false;
}

/** signed-note.md: non-empty, no Unicode space, no plus; and, for any note line, no control character. */
function isKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+\p{Cc}\p{Zs}]/u.test(name);
}

/** The note text: origin, size, root hash, each line ending in a newline. */
export function checkpointText(checkpoint: Checkpoint): string {
  const { origin, size, rootHash } = checkpoint;
  if (!isKeyName(origin)) throw new RangeError(`a checkpoint's origin must be non-empty, without spaces, plus signs or control characters, got ${JSON.stringify(origin)}`);
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`a checkpoint's size must be a whole number ≥ 0, got ${size}`);
  if (rootHash.length !== HASH_BYTES) throw new RangeError(`a checkpoint's root hash has ${HASH_BYTES} bytes, got ${rootHash.length}`);
  return `${origin}\n${size}\n${rootHash.toString('base64')}\n`;
}

/** The 32 bytes RFC 8032 encodes an Ed25519 public key as. */
function ed25519Bytes(key: KeyObject): Buffer {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  if (publicKey.asymmetricKeyType !== 'ed25519') throw new RangeError(`a checkpoint is signed with an Ed25519 key, not ${publicKey.asymmetricKeyType ?? 'a secret key'}`);
  return Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
}

/** SHA-256(key name || 0x0A || 0x01 || public key)[:4]: the key id a signature line begins with. */
export function noteKeyId(keyName: string, key: KeyObject): Buffer {
  return createHash('sha256')
    .update(Buffer.from(`${keyName}\n`, 'utf8'))
    .update(Buffer.from([ED25519_TYPE]))
    .update(ed25519Bytes(key))
    .digest()
    .subarray(0, KEY_ID_BYTES);
}

/** The verifier key ("vkey") of signed-note.md, `name+hex(key id)+base64(0x01 || public key)`: what witnesses and monitors are configured with. */
export function verifierKey(keyName: string, key: KeyObject): string {
  return `${keyName}+${noteKeyId(keyName, key).toString('hex')}+${Buffer.concat([Buffer.from([ED25519_TYPE]), ed25519Bytes(key)]).toString('base64')}`;
}

/** The signed note of `checkpoint`: its text, a blank line, and one signature line by `privateKey` under `keyName` (the origin unless told). */
export function signCheckpoint(checkpoint: Checkpoint, privateKey: KeyObject, keyName: string = checkpoint.origin): string {
  return signNote(checkpointText(checkpoint), keyName, privateKey);
}

/** Any note text (ending in a newline) signed by `privateKey` under `keyName`: signed-note.md's Ed25519 signature line. */
export function signNote(text: string, keyName: string, privateKey: KeyObject): string {
  if (privateKey.type !== 'private') throw new RangeError('a note is signed with a private key');
  if (!isKeyName(keyName)) throw new RangeError(`a key name must be non-empty, without spaces or plus signs, got ${JSON.stringify(keyName)}`);
  if (!text.endsWith('\n') || hasControlCharacter(text)) throw new RangeError('a note text ends in a newline and holds no other control character');
  const signature = sign(null, Buffer.from(text, 'utf8'), privateKey);
  return `${text}\n${EM_DASH} ${keyName} ${Buffer.concat([noteKeyId(keyName, privateKey), signature]).toString('base64')}\n`;
}

interface NoteSignature {
  readonly keyName: string;
  readonly keyId: Buffer;
  /** What follows the key id: the algorithm's signature bytes. */
  readonly signature: Buffer;
}

export interface SignedNote {
  /** With its final newline, without the blank line that follows it. */
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

/** base64 that decodes and encodes back to the same text: one spelling per byte string. */
function strictBase64(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

/** A signed note's text and signature lines (signed-note.md, "Format"); a string saying what is wrong otherwise. Signatures are not checked here. */
export function parseSignedNote(note: string | Uint8Array): SignedNote | string {
  let source: string;
  try {
    source = typeof note === 'string' ? note : new TextDecoder('utf-8', { fatal: true }).decode(note);
  } catch {
    return 'not UTF-8';
  }
  if (hasControlCharacter(source)) return 'holds a control character other than newline';
  // The text is separated from the signatures by the last blank line.
  const split = source.lastIndexOf('\n\n');
  if (split < 0) return 'no blank line before the signatures';
  const text = source.slice(0, split + 1);
  const lines = source.slice(split + 2);
  if (!lines.endsWith('\n')) return 'the last signature line does not end in a newline';
  const signatures: NoteSignature[] = [];
  for (const line of lines.slice(0, -1).split('\n')) {
    if (signatures.length === MAX_SIGNATURES) return `more than ${MAX_SIGNATURES} signatures`;
    const match = new RegExp(`^${EM_DASH} (\\S+) (\\S+)$`).exec(line);
    if (match === null || !isKeyName(match[1]!)) return `not a signature line: ${JSON.stringify(line)}`;
    const bytes = strictBase64(match[2]!);
    if (bytes === undefined || bytes.length <= KEY_ID_BYTES) return `not a signature: ${JSON.stringify(match[2])}`;
    signatures.push({ keyName: match[1]!, keyId: bytes.subarray(0, KEY_ID_BYTES), signature: bytes.subarray(KEY_ID_BYTES) });
  }
  return { text, signatures };
}

/** A checkpoint's text: origin, size, root hash, and any extension lines (kept, never interpreted); a string saying what is wrong otherwise. */
export function parseCheckpointText(text: string): (Checkpoint & { readonly extensions: readonly string[] }) | string {
  if (!text.endsWith('\n')) return 'the text does not end in a newline';
  const [origin, size, root, ...extensions] = text.slice(0, -1).split('\n');
  if (origin === undefined || size === undefined || root === undefined) return 'fewer than three lines';
  if (origin === '') return 'no origin';
  if (!/^(0|[1-9]\d*)$/.test(size) || !Number.isSafeInteger(Number(size))) return `not a tree size: ${JSON.stringify(size)}`;
  const rootHash = strictBase64(root);
  if (rootHash === undefined || rootHash.length !== HASH_BYTES) return `not a base64 root hash of ${HASH_BYTES} bytes: ${JSON.stringify(root)}`;
  if (extensions.some((line) => line === '')) return 'an empty extension line';
  return { origin, size: Number(size), rootHash, extensions };
}

export interface CheckpointTrust {
  /** The origin expected: a checkpoint of another log is refused. */
  readonly origin: string;
  /** Every key that may have signed (the current and earlier signing keys); at least one must have. */
  readonly publicKeys: readonly KeyObject[];
  /** The key name the signatures are under; the origin unless told. */
  readonly keyName?: string;
}

/**
 * The checkpoint a signed note holds, once a trusted key's signature over it verifies; a string
 * saying why not otherwise.
 */
export function verifyCheckpoint(note: string | Uint8Array, trust: CheckpointTrust): Checkpoint | string {
  const verified = verifyNote(note, trust.keyName ?? trust.origin, trust.publicKeys);
  if (typeof verified === 'string') return verified;
  const checkpoint = parseCheckpointText(verified.text);
  if (typeof checkpoint === 'string') return `not a checkpoint: ${checkpoint}`;
  if (checkpoint.origin !== trust.origin) return `the checkpoint is of ${JSON.stringify(checkpoint.origin)}, not ${JSON.stringify(trust.origin)}`;
  return { origin: checkpoint.origin, size: checkpoint.size, rootHash: checkpoint.rootHash };
}

/**
 * The note, once a signature by one of `publicKeys` under `keyName` verifies; a string saying why
 * not otherwise. As signed-note.md asks: signatures by unknown keys (another name, or another id)
 * are ignored, one by a known key that fails refuses the whole note, and a note no known key signed
 * is refused.
 */
export function verifyNote(note: string | Uint8Array, keyName: string, publicKeys: readonly KeyObject[]): SignedNote | string {
  const parsed = parseSignedNote(note);
  if (typeof parsed === 'string') return `not a signed note: ${parsed}`;
  const known = publicKeys.map((key) => ({ key, id: noteKeyId(keyName, key) }));
  const text = Buffer.from(parsed.text, 'utf8');
  let verified = 0;
  for (const line of parsed.signatures) {
    if (line.keyName !== keyName) continue;
    const signer = known.find(({ id }) => id.equals(line.keyId));
    if (signer === undefined) continue;
    if (line.signature.length !== ED25519_SIGNATURE_BYTES || !verify(null, text, signer.key, line.signature))
      return `the signature by key ${line.keyId.toString('hex')} does not verify`;
    verified++;
  }
  if (verified === 0) return `no signature by a trusted key (${keyName}, ${known.map(({ id }) => id.toString('hex')).join(', ') || 'none given'})`;
  return parsed;
}
