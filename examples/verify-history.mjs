#!/usr/bin/env node
// An independent check of Marquee's published history, for auditors: plain file reads or HTTP
// and node:crypto, no Marquee module. It checks what `marquee verify` checks, from the store alone:
// from each organization's current pointer back, every manifest's SHA-256 against the hash that
// names it (the pointer's `manifestHash`, then each manifest's `previous`), its Ed25519 signature
// by a key published at signing-keys/{keyId}.json, its `contentHash` against its resources and
// slugs, every object's SHA-256 against its name, that no manifest stands outside the chain (a
// pointer moved back) but those a later signed manifest names as never current (`supersedes`: a
// publish that stopped before its pointer), and the state records' chain.
//
// With --log, also against the publication log, which knows what the store alone cannot show: the
// newest manifests removed with the pointer moved back, a suspended organization's newest manifest
// or state record removed, an organization's whole prefix removed. LEAVES is the log's leaves, one
// a line, as verify-publication-log.mjs reads them (its header says how to take them from the
// platform database); they are believed only once they hash to the root of the newest checkpoint
// the store keeps (publication-log/checkpoints/), signed by a key the store publishes, and of each
// checkpoint the auditor kept and gives with --checkpoint (else the log was rewritten or forked
// since). Then every manifest and state record the log records and did not record as removed must
// be in the store with the logged hash, the manifests on the chain (`publication-missing`); a
// manifest the log does not know, newer than its first entry of the organization, was written
// around it (`unlogged`); an organization the log knows with nothing in the store lost its history
// (`history-missing`). The log names no store: give the log of the platform database whose builds
// publish into this store alone, as `marquee verify` checks it only then. The checks of notes and
// leaves are verify-publication-log.mjs's: keep the two files together.
//
//   node verify-history.mjs STORE [ORG_ID…] [--log LEAVES [--checkpoint KEPT_CHECKPOINT…]]
//
// STORE is a directory (a copy of the store), or the HTTP base of an S3 store as a path-style
// S3 endpoint or a CDN in front of one serves it (http://host/bucket/prefix), which must answer
// S3 listings (ListObjectsV2) of the bucket. Without ORG_IDs, every organization the store holds
// (and the log knows). Prints one line per organization; exit status 0 only when every history
// holds, 1 when one does not or the store holds none (a wrong path is not "0 verified"), 2 on a
// wrong command line.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { checkpointOf, keyOf, leavesHold, leavesOf, Refused } from './verify-publication-log.mjs';

const USAGE = 'usage: node verify-history.mjs DIRECTORY|HTTP_BASE [ORG_ID…] [--log LEAVES [--checkpoint KEPT_CHECKPOINT…]]';

function commandLine(argv) {
  const positional = [];
  const kept = [];
  let log;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--log' || arg === '--checkpoint') {
      const value = argv[++i];
      if (value === undefined) return undefined;
      if (arg === '--log') log = value;
      else kept.push(value);
    } else if (arg.startsWith('--')) return undefined;
    else positional.push(arg);
  }
  if (positional.length === 0 || (kept.length > 0 && log === undefined)) return undefined;
  const [store, ...orgIds] = positional;
  return { store, orgIds, log, kept };
}

const args = commandLine(process.argv.slice(2));
if (!args) {
  console.error(USAGE);
  process.exit(2);
}
const http = /^https?:\/\//.test(args.store);
const base = args.store.replace(/\/+$/, '');

/** Exit 1 with one line: the store or the log cannot be checked at all. */
function refuse(message) {
  console.error(`verify-history: ${message}`);
  process.exit(1);
}

/** The bytes under `key`, or undefined when there are none. */
async function get(key) {
  if (!http) return readFile(join(base, key)).catch((error) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
  const response = await fetch(`${base}/${key}`);
  if (response.status === 404 || response.status === 403) return undefined;
  if (!response.ok) throw new Error(`GET ${key}: ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** The names directly below a folder of the store (`orgs/`, `orgs/{id}/snapshots/`), sorted. */
async function list(folder) {
  if (!http) {
    const names = await readdir(join(base, folder)).catch((error) => (error.code === 'ENOENT' ? [] : refuse(`directory ${join(base, folder)} cannot be read: ${error.code}`)));
    return names.filter((name) => !name.startsWith('.')).sort();
  }
  const url = new URL(base);
  const [bucket, ...prefix] = url.pathname.slice(1).split('/');
  const names = [];
  let token;
  do {
    const query = new URLSearchParams({ 'list-type': '2', prefix: [...prefix, folder].join('/'), delimiter: '/' });
    if (token) query.set('continuation-token', token);
    const response = await fetch(`${url.origin}/${bucket}?${query}`);
    // A listing refused or of a bucket that is not there is no empty store.
    if (!response.ok) refuse(`cannot list ${folder} of ${base}: ${response.status} (the endpoint or CDN must answer ListObjectsV2 of bucket ${bucket})`);
    const xml = await response.text();
    for (const [, key] of xml.matchAll(/<(?:Key|Prefix)>([^<]*)<\/(?:Key|Prefix)>/g)) {
      const name = key.slice([...prefix, folder].join('/').length).replace(/\/$/, '');
      if (name) names.push(name);
    }
    token = /<NextContinuationToken>([^<]*)</.exec(xml)?.[1];
  } while (token);
  return names.sort();
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** RFC 8785 canonical JSON (manifests and records hold strings, integers, objects and arrays). */
const canonical = (value) =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
          .join(',')}}`
      : JSON.stringify(value);

/** The instant a snapshot id or state record name begins with (`20260501T090000123Z-…`). */
function instantOf(name) {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z/.exec(name);
  return match ? Date.parse(`${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}.${match[7]}Z`) : Number.NaN;
}

const keys = new Map();
async function publicKey(keyId) {
  if (!keys.has(keyId)) {
    const bytes = await get(`signing-keys/${keyId}.json`);
    let key;
    if (bytes) {
      const record = JSON.parse(bytes.toString('utf8'));
      key = createPublicKey(record.publicKey);
      const id = sha256(key.export({ type: 'spki', format: 'der' })).slice(0, 16);
      if (id !== keyId || record.keyId !== keyId) key = undefined;
    }
    keys.set(keyId, key);
  }
  return keys.get(keyId);
}

/** Why a signed document does not verify, or undefined. */
async function signatureProblem(document) {
  const { signature, ...signed } = document;
  if (!signature) return 'unsigned: it has no signature';
  const key = await publicKey(signature.keyId);
  if (!key) return `unknown-key: signed by key ${signature.keyId}, which is not published`;
  const holds = verify(null, Buffer.from(canonical(signed)), key, Buffer.from(signature.value, 'base64'));
  return holds ? undefined : `signature-invalid: its signature by key ${signature.keyId} does not hold`;
}

const snapshotName = (name) => name.replace(/\.json$/, '');

// ---- the publication log ---------------------------------------------------------------------------

const REMOVED = 'removed';

/**
 * The leaves of `file`, once they hash to the store's newest checkpoint and to each kept one; what
 * they say each organization published, as `{ since, manifests, stateRecords }` (id → hash, or
 * REMOVED), in the order logged; and a line saying what vouched for them.
 */
async function publicationLog(file, keptFiles) {
  let leaves;
  let keptNotes;
  try {
    leaves = leavesOf(file, await readFile(file));
    keptNotes = await Promise.all(keptFiles.map(async (kept) => ({ name: kept, bytes: await readFile(kept) })));
  } catch (error) {
    if (error instanceof Refused) refuse(`publication log: ${error.message}`);
    console.error(`cannot read ${error.path ?? file}: ${error.message}`);
    process.exit(2);
  }
  // Every key record the store publishes that hashes to its id may have signed a checkpoint.
  const published = [];
  for (const name of (await list('signing-keys/')).filter((n) => n.endsWith('.json'))) {
    try {
      published.push(keyOf(`signing-keys/${name}`, await get(`signing-keys/${name}`)));
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
    }
  }
  const newest = (await list('publication-log/checkpoints/')).filter((name) => /^\d{12}\.txt$/.test(name)).at(-1);
  if (newest === undefined) refuse(`publication log: ${base} keeps no checkpoint (publication-log/checkpoints/), so nothing vouches for ${file}`);
  const newestKey = `publication-log/checkpoints/${newest}`;
  let current;
  try {
    current = { name: newestKey, ...checkpointOf(newestKey, await get(newestKey), published) };
    const kept = keptNotes.map(({ name, bytes }) => ({ name, ...checkpointOf(name, bytes, published, current.origin) }));
    leavesHold(file, leaves, [...kept, current]);
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    console.log(`publication log: BROKEN (${error.message})`);
    process.exit(1);
  }

  const organizations = publications(leaves);
  const keptSaid = keptFiles.length > 0 ? `, extending ${keptFiles.join(', ')}` : '';
  const line = `publication log: ${leaves.length} leaves of ${organizations.size} organizations, the first ${current.size} signed by ${newestKey} (key ${current.keyId})${keptSaid}`;
  return { organizations, line };
}

/** What the leaves say each organization published: `{ since, manifests, stateRecords }` (id → hash, or REMOVED), in the order logged. */
function publications(leaves) {
  const organizations = new Map();
  for (const { entry } of leaves) {
    if (entry.kind === 'trail-head') continue;
    let org = organizations.get(entry.organizationId);
    if (!org) organizations.set(entry.organizationId, (org = { since: instantOf(entry.id), manifests: new Map(), stateRecords: new Map() }));
    if (entry.kind === 'manifest') org.manifests.set(entry.id, entry.hash);
    else if (entry.kind === 'state-record') org.stateRecords.set(entry.id, entry.hash);
    else if (entry.kind === 'removal') (entry.removed === 'manifest' ? org.manifests : org.stateRecords).set(entry.id, REMOVED);
  }
  return organizations;
}

/** The organizations a leaves file names, read as it is (for a refusal's message: nothing vouches for them yet). */
async function loggedOrganizations(file) {
  try {
    return publications(leavesOf(file, await readFile(file)));
  } catch {
    return new Map();
  }
}

// ---- one organization ------------------------------------------------------------------------------

/** `logged`: what the publication log says the organization published, or undefined without --log. */
async function verifyOrganization(orgId, logged) {
  const org = `orgs/${orgId}`;
  const ids = (await list(`${org}/snapshots/`)).filter((name) => name.endsWith('.json')).map(snapshotName);
  const pointerBytes = await get(`${org}/current.json`);
  const broken = (snapshotId, what) => ({ ok: false, line: `${orgId}: BROKEN at ${snapshotId} (${what})` });
  if (!pointerBytes && ids.length === 0 && logged)
    return broken('current', 'history-missing: the store holds no pointer and no manifest of it, yet the publication log records its publications');
  const pointer = pointerBytes ? JSON.parse(pointerBytes.toString('utf8')) : undefined;
  let id = pointer?.snapshotId ?? ids.at(-1);
  const headId = id;
  let expected = pointer?.snapshotId ? pointer.manifestHash : undefined;
  let child;
  let beginning = 'empty';
  let first;
  // Snapshot id → its manifest's hash, for each manifest on the chain.
  const chain = new Map();
  const checked = new Set();
  // Manifests a signed manifest on the chain names as written by a publish that never became current.
  const superseded = new Map();
  const neverCurrent = new Set();
  while (id) {
    const bytes = await get(`${org}/snapshots/${id}.json`);
    if (!bytes) {
      if (!child) return broken(id, 'manifest-missing: the pointer names it');
      if (ids.some((other) => other < id)) return broken(id, `manifest-missing: removed from the middle, named by ${child}`);
      beginning = 'pruned';
      break;
    }
    const hash = sha256(bytes);
    if (expected && hash !== expected) return broken(id, 'manifest-edited: its hash is not the one that names it');
    const manifest = JSON.parse(bytes.toString('utf8'));
    if (manifest.snapshotId !== id || manifest.organizationId !== orgId) return broken(id, 'manifest-edited: it names another snapshot');
    if (!('previous' in manifest) && !manifest.signature) {
      beginning = 'unsigned';
      first = id;
      break;
    }
    const problem = await signatureProblem(manifest);
    if (problem) return broken(id, problem);
    for (const left of manifest.supersedes ?? []) superseded.set(left.snapshotId, left.hash);
    // A signature holds for whoever published the key it names: resources edited and signed again
    // by a key record the forger published are caught here, if the old contentHash was kept.
    if (manifest.contentHash !== sha256(canonical({ resources: manifest.resources ?? {}, slugs: manifest.slugs ?? {} })))
      return broken(id, 'content-hash-mismatch: its resources or slugs do not hash to its contentHash');
    for (const [path, object] of Object.entries(manifest.resources)) {
      if (checked.has(object)) continue;
      const objectBytes = await get(`${org}/objects/${object}.json`);
      if (!objectBytes) return broken(id, `object-missing: ${path}`);
      if (sha256(objectBytes) !== object) return broken(id, `object-edited: ${path}`);
      checked.add(object);
    }
    chain.set(id, hash);
    first = id;
    if (manifest.previous == null) {
      beginning = 'first';
      break;
    }
    child = id;
    expected = manifest.previous;
    id = manifest.previousSnapshotId;
  }
  if (logged) {
    const unlogged = ids.find((other) => !logged.manifests.has(other) && instantOf(other) > logged.since);
    if (unlogged) return broken(unlogged, 'unlogged: the publication log does not know it, though it records every manifest since its first entry of the organization');
  }
  for (const other of ids) {
    if (chain.has(other) || (beginning === 'unsigned' && other <= first)) continue;
    if (superseded.has(other)) {
      const bytes = await get(`${org}/snapshots/${other}.json`);
      if (bytes && sha256(bytes) === superseded.get(other)) {
        neverCurrent.add(other);
        continue;
      }
      return broken(other, 'manifest-edited: not the manifest a later snapshot names as never current');
    }
    if (headId && other > headId) return broken(headId, `pointer-moved-back: ${other} is newer`);
    return broken(other, 'outside-chain');
  }
  // Every manifest the log records and did not record as removed: on the chain with the logged hash,
  // or vouched for as never current, or kept from before signing.
  for (const [snapshotId, hash] of logged?.manifests ?? []) {
    if (hash === REMOVED || neverCurrent.has(snapshotId)) continue;
    if (chain.has(snapshotId)) {
      if (chain.get(snapshotId) === hash) continue;
      return broken(snapshotId, 'manifest-edited: its hash is not the one the publication log records');
    }
    if (beginning === 'unsigned' && snapshotId <= first && ids.includes(snapshotId)) continue;
    return broken(snapshotId, 'publication-missing: the publication log records it and no removal of it, and it is not on the verified chain: it was removed');
  }
  // State records: each names the hash of the one before it and is signed.
  const records = new Map();
  let previous;
  let chained = false;
  for (const name of (await list(`${org}/states/`)).filter((n) => n.endsWith('.json'))) {
    const bytes = await get(`${org}/states/${name}`);
    if (!bytes) continue;
    const record = JSON.parse(bytes.toString('utf8'));
    const at = `states/${snapshotName(name)}`;
    if (!('previous' in record)) {
      if (chained) return broken(at, 'unsigned');
    } else {
      if (previous !== undefined && record.previous !== previous) return broken(at, 'state-record-missing');
      const problem = await signatureProblem(record);
      if (problem) return broken(at, problem.startsWith('unknown-key') ? problem : `state-record-edited: ${problem}`);
      chained = true;
    }
    previous = sha256(bytes);
    records.set(snapshotName(name), previous);
  }
  for (const [name, hash] of logged?.stateRecords ?? []) {
    if (hash === REMOVED || records.get(name) === hash) continue;
    if (records.has(name)) return broken(`states/${name}`, 'state-record-edited: its hash is not the one the publication log records');
    return broken(`states/${name}`, 'publication-missing: the publication log records it and no removal of it, and it is not in the store: it was removed');
  }
  const from = { first: 'from its first snapshot', pruned: 'older snapshots pruned', unsigned: 'older snapshots predate signing', empty: 'nothing published' }[beginning];
  return { ok: true, line: `${orgId}: verified, ${chain.size} snapshots (${from})${logged ? ', with every publication the log records' : ''}` };
}

// ---- the store -------------------------------------------------------------------------------------

if (!http) {
  const found = await stat(base).catch((error) => (error.code === 'ENOENT' ? undefined : refuse(`directory ${base} cannot be read: ${error.code}`)));
  if (!found) refuse(`directory ${base} does not exist`);
  if (!found.isDirectory()) refuse(`${base} is not a directory`);
}
const stored = await list('orgs/');
if (stored.length === 0) {
  const known = args.log === undefined ? '' : `, yet the publication log in ${args.log} records ${(await loggedOrganizations(args.log)).size} organizations published into it`;
  refuse(`${base} holds no organization's history (nothing under orgs/)${known}`);
}
const log = args.log === undefined ? undefined : await publicationLog(args.log, args.kept);
if (log) console.log(log.line);
const orgIds = args.orgIds.length > 0 ? args.orgIds : [...new Set([...stored, ...(log?.organizations.keys() ?? [])])].sort();
let ok = true;
for (const orgId of orgIds) {
  const result = await verifyOrganization(orgId, log?.organizations.get(orgId));
  ok &&= result.ok;
  console.log(result.line);
}
process.exit(ok ? 0 : 1);
