#!/usr/bin/env node
// An independent check of Marquee's publication log, for auditors: plain file reads and node:crypto,
// no Marquee module and no code shared with it (records/publication-log/ is what it checks). The log
// holds every manifest and state record published, every one removed, and the audit trail's heads,
// as leaves of an RFC 9162 Merkle tree; a checkpoint is the tree's size and root hash signed with
// the snapshot signing key, as a C2SP signed note (c2sp.org/tlog-checkpoint, c2sp.org/signed-note).
//
//   node verify-publication-log.mjs checkpoint CHECKPOINT --key KEY_RECORD…
//   node verify-publication-log.mjs inclusion CHECKPOINT PROOF --key KEY_RECORD… [--object FILE]
//   node verify-publication-log.mjs consistency OLD_CHECKPOINT NEW_CHECKPOINT PROOF --key KEY_RECORD…
//   node verify-publication-log.mjs log LEAVES CHECKPOINT… --key KEY_RECORD…
//
// KEY_RECORD is a signing key's record as the store publishes it (signing-keys/{keyId}.json: its
// publicKey, SPKI PEM, must hash to its keyId); --key may be given once per key that may have signed
// (the current one and earlier ones). --origin ORIGIN refuses checkpoints of any other log.
//
//   checkpoint   the note's signature by a given key, under the key name its origin gives.
//   inclusion    and that PROOF (an inclusion proof file) puts its leaf in the checkpoint's tree;
//                prints the leaf's entry; with --object, that FILE's SHA-256 is the entry's hash
//                (the manifest or state record in hand is the one logged).
//   consistency  and that PROOF (a consistency proof file) shows the newer checkpoint's tree extends
//                the older one's: the log only grew, nothing in it was rewritten.
//   log          and that LEAVES, the log's leaves, hash to each CHECKPOINT's root at its size (the
//                kept ones and the newest): the log in hand is the one every checkpoint signed, and
//                extends each older one, with no proof from anyone. Prints its entries by kind.
//
// LEAVES is every leaf of the log, oldest first, one a line: the leaf's bytes, that is its entry's
// canonical JSON, exactly as the log stores and hashes them (every byte is ASCII, none a newline).
// The platform database holds them; with PostgreSQL (Marquee's relations in schema "marquee"):
//   psql "$DATABASE_URL" -Atc "SELECT convert_from(leaf, 'UTF8') FROM marquee.marquee_publication_log ORDER BY seq" > leaves.txt
// and on the embedded database: marquee db sql --json "SELECT convert_from(leaf, 'UTF8') AS leaf
// FROM marquee_publication_log ORDER BY seq", one `leaf` a line. verify-history.mjs --log checks a
// store against the same file.
//
// Proof files are JSON, hashes in standard base64:
//   {"format":1,"kind":"inclusion-proof","origin":O,"treeSize":N,"leafIndex":I,"leaf":base64(leaf bytes),"proof":[base64…]}
//   {"format":1,"kind":"consistency-proof","origin":O,"oldSize":M,"newSize":N,"proof":[base64…]}
//
// Exit status 0 when everything holds, 1 when something does not, 2 on a wrong command line or a
// file that cannot be read. verify-history.mjs imports the checks of keys, notes and leaves from
// here (run, this file checks; imported, it only lends them).
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const USAGE = `usage:
  node verify-publication-log.mjs checkpoint CHECKPOINT --key KEY_RECORD… [--origin ORIGIN]
  node verify-publication-log.mjs inclusion CHECKPOINT PROOF --key KEY_RECORD… [--origin ORIGIN] [--object FILE]
  node verify-publication-log.mjs consistency OLD_CHECKPOINT NEW_CHECKPOINT PROOF --key KEY_RECORD… [--origin ORIGIN]
  node verify-publication-log.mjs log LEAVES CHECKPOINT… --key KEY_RECORD… [--origin ORIGIN]`;

/** What does not hold, said in one line. */
export class Refused extends Error {}
const refuse = (message) => {
  throw new Refused(message);
};

const sha256 = (...parts) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

// ---- command line ----------------------------------------------------------------------------------

function commandLine(argv) {
  const [command, ...rest] = argv;
  const positional = [];
  const keys = [];
  let origin;
  let object;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--key' || arg === '--origin' || arg === '--object') {
      const value = rest[++i];
      if (value === undefined) return undefined;
      if (arg === '--key') keys.push(value);
      else if (arg === '--origin') origin = value;
      else object = value;
    } else positional.push(arg);
  }
  // log: the leaves, then one checkpoint or more.
  const wanted = { checkpoint: 1, inclusion: 2, consistency: 3, log: Math.max(positional.length, 2) }[command];
  if (wanted === undefined || positional.length !== wanted || keys.length === 0 || (object !== undefined && command !== 'inclusion')) return undefined;
  return { command, positional, keys, origin, object };
}

// ---- keys ------------------------------------------------------------------------------------------

/** A key record's public key, once its PEM hashes to its keyId (as verify-history.mjs checks them). */
export function keyOf(file, bytes) {
  let record;
  let key;
  try {
    record = JSON.parse(bytes.toString('utf8'));
    key = createPublicKey(record.publicKey);
  } catch {
    refuse(`${file}: not a signing key record`);
  }
  if (record.algorithm !== 'Ed25519' || key.asymmetricKeyType !== 'ed25519') refuse(`${file}: not an Ed25519 key`);
  const id = sha256(key.export({ type: 'spki', format: 'der' })).toString('hex').slice(0, 16);
  if (record.keyId !== id) refuse(`${file}: its public key does not hash to its keyId ${record.keyId}`);
  return { keyId: id, key, raw: Buffer.from(key.export({ format: 'jwk' }).x, 'base64url') };
}

// ---- signed notes and checkpoints ------------------------------------------------------------------

/** base64 with one spelling: decodes and encodes back to itself. */
function base64(text, what) {
  const bytes = typeof text === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(text) ? Buffer.from(text, 'base64') : undefined;
  if (bytes === undefined || bytes.toString('base64') !== text) refuse(`${what} is not base64`);
  return bytes;
}

function hash32(text, what) {
  const bytes = base64(text, what);
  if (bytes.length !== 32) refuse(`${what} is not a 32-byte hash`);
  return bytes;
}

/**
 * The checkpoint in a note, once a known key's signature over its text verifies (signed-note.md):
 * the key name is the origin; a signature by another name or key id is ignored, one by a known key
 * that fails refuses the note, and a note no known key signed is refused.
 */
export function checkpointOf(file, bytes, keys, origin) {
  let note;
  try {
    note = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    refuse(`${file}: not UTF-8`);
  }
  if (/[\x00-\x09\x0b-\x1f]/.test(note)) refuse(`${file}: a control character other than newline`);
  const blank = note.lastIndexOf('\n\n');
  if (blank < 0 || !note.endsWith('\n')) refuse(`${file}: not a signed note`);
  const text = note.slice(0, blank + 1);
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) refuse(`${file}: a checkpoint has an origin, a size and a root hash`);
  const [name, sizeText, rootText] = lines;
  if (name === '' || /[\s+]/u.test(name)) refuse(`${file}: not an origin: ${JSON.stringify(name)}`);
  if (origin !== undefined && name !== origin) refuse(`${file}: the checkpoint is of ${name}, not ${origin}`);
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) refuse(`${file}: not a tree size: ${JSON.stringify(sizeText)}`);
  const root = hash32(rootText, `${file}: the root hash`);
  let verified;
  for (const line of note.slice(blank + 2, -1).split('\n')) {
    const match = /^\u2014 (\S+) (\S+)$/.exec(line);
    if (match === null) refuse(`${file}: not a signature line: ${JSON.stringify(line)}`);
    if (match[1] !== name) continue;
    const signature = base64(match[2], `${file}: a signature`);
    for (const known of keys) {
      // signed-note.md: key id = SHA-256(key name || 0x0A || 0x01 || 32-byte Ed25519 public key)[:4].
      const id = sha256(Buffer.from(`${name}\n`, 'utf8'), Buffer.from([0x01]), known.raw).subarray(0, 4);
      if (!id.equals(signature.subarray(0, 4))) continue;
      if (signature.length !== 68 || !verify(null, Buffer.from(text, 'utf8'), known.key, signature.subarray(4))) refuse(`${file}: the signature by key ${known.keyId} does not verify`);
      verified ??= known.keyId;
    }
  }
  if (verified === undefined) refuse(`${file}: no signature by a given key under the name ${name}`);
  return { origin: name, size: Number(sizeText), root, keyId: verified };
}

// ---- RFC 9162 ----------------------------------------------------------------------------------------

const leafHash = (leaf) => sha256(Buffer.from([0x00]), leaf);
const nodeHash = (left, right) => sha256(Buffer.from([0x01]), left, right);
const lsb = (n) => n % 2 === 1;
/** Counted, not Math.log2: near 2^50 a logarithm rounds a neighbour of a power of two onto it. */
const isPowerOfTwo = (n) => {
  let power = 1;
  while (power < n) power *= 2;
  return power === n;
};
const shift = (n) => Math.floor(n / 2);

/** RFC 9162 §2.1.3.2. */
function inclusionHolds(index, size, hash, path, root) {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = hash;
  for (const p of path) {
    if (sn === 0) return false;
    if (lsb(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!lsb(fn) && fn !== 0) {
        fn = shift(fn);
        sn = shift(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = shift(fn);
    sn = shift(sn);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 §2.1.4.2, for 0 < first < second; equal sizes need no proof and equal roots. */
function consistencyHolds(first, second, firstHash, secondHash, path) {
  if (first < 1 || first > second) return false;
  if (first === second) return path.length === 0 && firstHash.equals(secondHash);
  if (path.length === 0) return false;
  const nodes = isPowerOfTwo(first) ? [firstHash, ...path] : path;
  let fn = first - 1;
  let sn = second - 1;
  while (lsb(fn)) {
    fn = shift(fn);
    sn = shift(sn);
  }
  let fr = nodes[0];
  let sr = nodes[0];
  for (const c of nodes.slice(1)) {
    if (sn === 0) return false;
    if (lsb(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!lsb(fn) && fn !== 0) {
        fn = shift(fn);
        sn = shift(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = shift(fn);
    sn = shift(sn);
  }
  return fr.equals(firstHash) && sr.equals(secondHash) && sn === 0;
}

/** RFC 9162 §2.1.1: the Merkle Tree Hash of leaves [start, end), from their leaf hashes. */
function treeHash(hashes, start, end) {
  if (end === start) return sha256();
  if (end - start === 1) return hashes[start];
  let split = 1;
  while (split * 2 < end - start) split *= 2;
  return nodeHash(treeHash(hashes, start, start + split), treeHash(hashes, start + split, end));
}

// ---- the log's leaves ------------------------------------------------------------------------------

/** The leaves of a LEAVES file (one a line, each its entry's canonical JSON), with their entries. */
export function leavesOf(file, bytes) {
  const text = bytes.toString('latin1');
  if (/[^\x20-\x7e\n]/.test(text)) refuse(`${file}: a leaf holds a byte that is not printable ASCII (a leaf is its entry's canonical JSON)`);
  if (text !== '' && !text.endsWith('\n')) refuse(`${file}: not one leaf a line (no final newline)`);
  return text
    .split('\n')
    .slice(0, -1)
    .map((line, seq) => {
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {}
      if (entry === null || typeof entry !== 'object' || typeof entry.kind !== 'string' || typeof entry.id !== 'string' || typeof entry.hash !== 'string')
        refuse(`${file}: leaf ${seq} is not a log entry: ${JSON.stringify(line.slice(0, 80))}`);
      return { seq, leaf: Buffer.from(line, 'latin1'), entry };
    });
}

/**
 * That `leaves` are the log each checkpoint signed: its first `size` leaves hash to its root. So the
 * log in hand extends every older checkpoint given, as a consistency proof would show, with no proof.
 */
export function leavesHold(file, leaves, checkpoints) {
  const hashes = leaves.map(({ leaf }) => leafHash(leaf));
  for (const { name, size, root } of checkpoints) {
    if (size > leaves.length)
      refuse(`${file} holds ${leaves.length} leaves, fewer than the ${size} ${name} signed: the publication log was rewritten or forked since ${name}, or the file is not all of it`);
    if (!treeHash(hashes, 0, size).equals(root))
      refuse(`${file}: its first ${size} leaves do not hash to the root ${name} signed: the publication log was rewritten or forked since ${name}`);
  }
}

// ---- proof files -----------------------------------------------------------------------------------

function proofOf(file, bytes, kind) {
  let proof;
  try {
    proof = JSON.parse(bytes.toString('utf8'));
  } catch {
    refuse(`${file}: not JSON`);
  }
  if (proof?.format !== 1 || proof.kind !== kind) refuse(`${file}: not a ${kind} file (format 1)`);
  if (!Array.isArray(proof.proof)) refuse(`${file}: no proof`);
  return { ...proof, path: proof.proof.map((hash, position) => hash32(hash, `${file}: proof[${position}]`)) };
}

const isCount = (value) => Number.isSafeInteger(value) && value >= 0;

// ---- main ------------------------------------------------------------------------------------------

function main(argv) {
  const args = commandLine(argv);
  if (args === undefined) {
    console.error(USAGE);
    return 2;
  }
  const read = (file) => {
    try {
      return readFileSync(file);
    } catch (error) {
      console.error(`cannot read ${file}: ${error.message}`);
      process.exit(2);
    }
  };
  const keys = args.keys.map((file) => keyOf(file, read(file)));
  const checkpoint = (file, origin = args.origin) => {
    const found = checkpointOf(file, read(file), keys, origin);
    console.log(`ok  ${file}: ${found.origin}, ${found.size} leaves, root ${found.root.toString('base64')}, signed by key ${found.keyId}`);
    return found;
  };

  if (args.command === 'checkpoint') {
    checkpoint(args.positional[0]);
  } else if (args.command === 'inclusion') {
    const [checkpointFile, proofFile] = args.positional;
    const head = checkpoint(checkpointFile);
    const proof = proofOf(proofFile, read(proofFile), 'inclusion-proof');
    if (proof.origin !== head.origin) refuse(`${proofFile}: a proof of ${proof.origin}, not ${head.origin}`);
    if (proof.treeSize !== head.size) refuse(`${proofFile}: a proof in the tree of ${proof.treeSize} leaves, not the checkpoint's ${head.size}`);
    if (!isCount(proof.leafIndex)) refuse(`${proofFile}: no leafIndex`);
    const leaf = base64(proof.leaf, `${proofFile}: the leaf`);
    if (!inclusionHolds(proof.leafIndex, head.size, leafHash(leaf), proof.path, head.root)) refuse(`${proofFile}: leaf ${proof.leafIndex} is not in the checkpoint's tree`);
    let entry;
    try {
      entry = JSON.parse(leaf.toString('utf8'));
    } catch {
      refuse(`${proofFile}: the leaf is not an entry`);
    }
    console.log(`ok  ${proofFile}: leaf ${proof.leafIndex} is in the tree: ${leaf.toString('utf8')}`);
    if (args.object !== undefined) {
      const hash = sha256(read(args.object)).toString('hex');
      if (hash !== entry.hash) refuse(`${args.object}: its SHA-256 ${hash} is not the logged ${entry.hash}`);
      console.log(`ok  ${args.object}: its SHA-256 is the logged ${entry.kind}'s hash`);
    }
  } else if (args.command === 'log') {
    const [leavesFile, ...checkpointFiles] = args.positional;
    const leaves = leavesOf(leavesFile, read(leavesFile));
    const first = checkpoint(checkpointFiles[0]);
    const checkpoints = [first, ...checkpointFiles.slice(1).map((file) => checkpoint(file, first.origin))].map((found, n) => ({ name: checkpointFiles[n], ...found }));
    leavesHold(leavesFile, leaves, checkpoints);
    const kinds = new Map();
    for (const { entry } of leaves) kinds.set(entry.kind, (kinds.get(entry.kind) ?? 0) + 1);
    const counted = [...kinds].map(([kind, count]) => `${count} ${kind}`).join(', ');
    console.log(`ok  ${leavesFile}: ${leaves.length} leaves (${counted || 'none'}), the log every checkpoint given signed`);
  } else {
    const [oldFile, newFile, proofFile] = args.positional;
    const older = checkpoint(oldFile);
    const newer = checkpoint(newFile, older.origin);
    const proof = proofOf(proofFile, read(proofFile), 'consistency-proof');
    if (proof.origin !== older.origin) refuse(`${proofFile}: a proof of ${proof.origin}, not ${older.origin}`);
    if (proof.oldSize !== older.size || proof.newSize !== newer.size) refuse(`${proofFile}: a proof from ${proof.oldSize} to ${proof.newSize} leaves, not from ${older.size} to ${newer.size}`);
    if (!consistencyHolds(older.size, newer.size, older.root, newer.root, proof.path)) {
      refuse(`${proofFile}: the tree of ${newer.size} leaves does not extend the tree of ${older.size}: the log was rewritten`);
    }
    console.log(`ok  ${proofFile}: the log of ${newer.size} leaves extends the log of ${older.size}`);
  }
  return 0;
}

const invoked = process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invoked) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    console.log(`FAIL  ${error.message}`);
    process.exitCode = 1;
  }
}
