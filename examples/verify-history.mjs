#!/usr/bin/env node
// An independent check of Marquee's published history, for auditors: plain file reads or HTTP
// and node:crypto, no Marquee module. It checks what `marquee verify` checks, from the store alone:
// from each organization's current pointer back, every manifest's SHA-256 against the hash that
// names it (the pointer's `manifestHash`, then each manifest's `previous`), its Ed25519 signature
// by a key published at signing-keys/{keyId}.json, every object's SHA-256 against its name, that
// no manifest stands outside the chain (a pointer moved back) but those a later signed manifest
// names as never current (`supersedes`: a publish that stopped before its pointer), and the state
// records' chain.
//
//   node verify-history.mjs STORE [ORG_ID…]
//
// STORE is a directory (a copy of the store), or the HTTP base of an S3 store as a path-style
// S3 endpoint or a CDN in front of one serves it (http://host/bucket/prefix), which must answer
// S3 listings (ListObjectsV2) of the bucket. Without ORG_IDs, every organization. Prints one line
// per organization; exit status 0 only when every history holds.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const [storeArg, ...orgArgs] = process.argv.slice(2);
if (!storeArg) {
  console.error('usage: node verify-history.mjs DIRECTORY|HTTP_BASE [ORG_ID…]');
  process.exit(2);
}
const http = /^https?:\/\//.test(storeArg);
const base = storeArg.replace(/\/+$/, '');

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
  if (!http) return (await readdir(join(base, folder)).catch(() => [])).filter((name) => !name.startsWith('.')).sort();
  const url = new URL(base);
  const [bucket, ...prefix] = url.pathname.slice(1).split('/');
  const names = [];
  let token;
  do {
    const query = new URLSearchParams({ 'list-type': '2', prefix: [...prefix, folder].join('/'), delimiter: '/' });
    if (token) query.set('continuation-token', token);
    const xml = await (await fetch(`${url.origin}/${bucket}?${query}`)).text();
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

async function verifyOrganization(orgId) {
  const org = `orgs/${orgId}`;
  const ids = (await list(`${org}/snapshots/`)).filter((name) => name.endsWith('.json')).map(snapshotName);
  const pointerBytes = await get(`${org}/current.json`);
  const pointer = pointerBytes ? JSON.parse(pointerBytes.toString('utf8')) : undefined;
  let id = pointer?.snapshotId ?? ids.at(-1);
  const headId = id;
  let expected = pointer?.snapshotId ? pointer.manifestHash : undefined;
  let child;
  let beginning = 'empty';
  let first;
  const chain = new Set();
  const checked = new Set();
  // Manifests a signed manifest on the chain names as written by a publish that never became current.
  const superseded = new Map();
  const broken = (snapshotId, what) => ({ ok: false, line: `${orgId}: BROKEN at ${snapshotId} (${what})` });
  while (id) {
    const bytes = await get(`${org}/snapshots/${id}.json`);
    if (!bytes) {
      if (!child) return broken(id, 'manifest-missing: the pointer names it');
      if (ids.some((other) => other < id)) return broken(id, `manifest-missing: removed from the middle, named by ${child}`);
      beginning = 'pruned';
      break;
    }
    if (expected && sha256(bytes) !== expected) return broken(id, 'manifest-edited: its hash is not the one that names it');
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
    for (const [path, hash] of Object.entries(manifest.resources)) {
      if (checked.has(hash)) continue;
      const object = await get(`${org}/objects/${hash}.json`);
      if (!object) return broken(id, `object-missing: ${path}`);
      if (sha256(object) !== hash) return broken(id, `object-edited: ${path}`);
      checked.add(hash);
    }
    chain.add(id);
    first = id;
    if (manifest.previous == null) {
      beginning = 'first';
      break;
    }
    child = id;
    expected = manifest.previous;
    id = manifest.previousSnapshotId;
  }
  for (const other of ids) {
    if (chain.has(other) || (beginning === 'unsigned' && other <= first)) continue;
    if (superseded.has(other)) {
      const bytes = await get(`${org}/snapshots/${other}.json`);
      if (bytes && sha256(bytes) === superseded.get(other)) continue;
      return broken(other, 'manifest-edited: not the manifest a later snapshot names as never current');
    }
    if (headId && other > headId) return broken(headId, `pointer-moved-back: ${other} is newer`);
    return broken(other, 'outside-chain');
  }
  // State records: each names the hash of the one before it and is signed.
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
  }
  const from = { first: 'from its first snapshot', pruned: 'older snapshots pruned', unsigned: 'older snapshots predate signing', empty: 'nothing published' }[beginning];
  return { ok: true, line: `${orgId}: verified, ${chain.size} snapshots (${from})` };
}

const orgIds = orgArgs.length > 0 ? orgArgs : await list('orgs/');
let ok = true;
for (const orgId of orgIds) {
  const result = await verifyOrganization(orgId);
  ok &&= result.ok;
  console.log(result.line);
}
process.exit(ok ? 0 : 1);
