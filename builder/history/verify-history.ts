// `marquee verify`: is an organization's history what its builders published? (docs/design.md
// "History as evidence"). From the current pointer back, every manifest's hash (the pointer, then
// each manifest's `previous`, names the bytes of the one before), its signature by a published
// signing key, its link, and every object it names; then that no manifest stands outside the chain
// (a pointer moved back to an older snapshot leaves the newer ones behind it), and the state
// records' own chain. The first break is named by snapshot id, or by state record, with what is
// wrong. Where the chain ends says why: at its first snapshot, where retention pruned it (the
// manifest before the oldest one kept is gone, and nothing older is there), or where history from
// before signing begins (manifests without `previous`: the chain starts at the first signed one).
//
// Exports: `verifyOrganization(store, orgId, keys?)`, `verifyStore(store)`, `SigningKeys`, and
// `trustsSnapshot(verification, snapshotId)`, what `show --at` and the as-of answers ask.
import { sha256Hex } from '../../snapshot/hash.ts';
import { instantOfName, manifestKey, objectKey } from '../../snapshot/layout.ts';
import type { Manifest } from '../../snapshot/manifest.ts';
import { type ListableSource, listOrganizationIds, listSnapshotIds, parsePointer } from '../../snapshot/reader.ts';
import { parseSigningKeyRecord, type Signature, SIGNING_KEYS_PREFIX, signatureHolds, signingKeyRecordKey } from '../../snapshot/signing.ts';
import { listStateMarks } from '../../snapshot/state-records.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';
import { pointerKey } from '../../snapshot/layout.ts';
import type { KeyObject } from 'node:crypto';
import { mapConcurrently } from '../concurrently.ts';

type BreakKind =
  | 'pointer-malformed'
  | 'manifest-missing'
  | 'manifest-edited'
  | 'signature-invalid'
  | 'unknown-key'
  | 'unsigned'
  | 'object-missing'
  | 'object-edited'
  | 'pointer-moved-back'
  | 'outside-chain'
  | 'state-record-edited'
  | 'state-record-missing';

interface HistoryBreak {
  /** The snapshot (or state record, `states/{name}`) where the history stops holding. */
  snapshotId: string;
  kind: BreakKind;
  detail: string;
}

/** Where the verified chain begins, going back from the current snapshot. */
type ChainBeginning =
  /** The organization's first snapshot (`previous` null). */
  | 'first'
  /** Retention removed what was before: the oldest snapshot kept names one no longer in the store, and none older is there. */
  | 'pruned'
  /** Snapshots from before signing: the chain starts at the first signed one. */
  | 'unsigned'
  /** Nothing published. */
  | 'empty';

export interface OrganizationVerification {
  organizationId: string;
  ok: boolean;
  /** The snapshot the pointer names (the newest one when the organization is suspended or closed). */
  head: { snapshotId: string; manifestHash: string } | null;
  /** Snapshots verified on the chain (manifest, signature, link, objects). */
  snapshots: number;
  stateRecords: number;
  /** Snapshots and state records on the chain that carry no signature (no signing key was published when they were: SNAPSHOT_SIGNING_KEY=none): their hashes and links hold, nothing vouches for their author. */
  unsigned: number;
  beginning: ChainBeginning;
  /** The oldest snapshot verified: where the chain begins. */
  firstSnapshotId: string | null;
  /** Set when `beginning` is 'unsigned': the snapshots older than `firstSnapshotId` predate signing. */
  unsignedBefore?: string;
  break?: HistoryBreak;
  /** Verified snapshot ids; a snapshot outside this set is not answered from (trustsSnapshot). */
  verified: string[];
  /** Manifests a publish wrote and never made current, as a later signed manifest on the chain says (its `supersedes`): never served, never answered from. */
  neverCurrent: string[];
}

/** The public keys published in the store, read once per verification; `validFrom` of the earliest, for unsigned manifests after it. */
export class SigningKeys {
  private readonly keys = new Map<string, Promise<KeyObject | string>>();
  private earliest: Promise<Date | undefined> | undefined;
  constructor(private readonly store: ListableSource) {}

  /** The key, or what is wrong with its record (absent, or not the key its id names). */
  key(keyId: string): Promise<KeyObject | string> {
    let found = this.keys.get(keyId);
    if (found === undefined) {
      found = this.store.get(signingKeyRecordKey(keyId)).then((bytes) => {
        if (bytes === undefined) return `key ${keyId} is not published in ${SIGNING_KEYS_PREFIX}`;
        const parsed = parseSigningKeyRecord(keyId, bytes);
        return typeof parsed === 'string' ? `key ${keyId}'s record: ${parsed}` : parsed.publicKey;
      });
      this.keys.set(keyId, found);
    }
    return found;
  }

  /** When signing began in this store: the earliest `validFrom` of its keys; undefined when none is published. */
  signingBegan(): Promise<Date | undefined> {
    this.earliest ??= (async () => {
      let earliest: Date | undefined;
      for (const key of await this.store.list(SIGNING_KEYS_PREFIX)) {
        const bytes = await this.store.get(key);
        const keyId = key.slice(SIGNING_KEYS_PREFIX.length, -'.json'.length);
        const parsed = bytes === undefined ? 'gone' : parseSigningKeyRecord(keyId, bytes);
        if (typeof parsed === 'string') continue;
        const from = new Date(parsed.record.validFrom);
        if (earliest === undefined || from < earliest) earliest = from;
      }
      return earliest;
    })();
    return this.earliest;
  }
}

type Signed = { signature?: Signature; previous?: string | null; publishedAt?: string };

/**
 * Why a document does not verify; undefined when it does. Unsigned is 'unsigned' when published
 * after signing began in the store (a key's `validFrom`), and holds before, or when no key was
 * ever published (SNAPSHOT_SIGNING_KEY=none): then only its hashes and links are checked.
 */
async function signatureProblem(document: Signed, keys: SigningKeys): Promise<{ kind: BreakKind; detail: string } | 'unsigned' | undefined> {
  const signature = document.signature;
  if (signature === undefined) {
    const began = await keys.signingBegan();
    const at = Date.parse(String(document.publishedAt));
    if (began === undefined || at < began.getTime()) return 'unsigned';
    return { kind: 'unsigned', detail: `it has no signature, yet it was published after signing began (${began.toISOString()})` };
  }
  if (typeof signature !== 'object' || signature === null || typeof signature.keyId !== 'string' || typeof signature.value !== 'string') {
    return { kind: 'signature-invalid', detail: 'its signature is malformed' };
  }
  const key = await keys.key(signature.keyId);
  if (typeof key === 'string') return { kind: 'unknown-key', detail: `it is signed by an unknown key: ${key}` };
  if (!signatureHolds(document, signature, key)) return { kind: 'signature-invalid', detail: `its signature by key ${signature.keyId} does not hold: it was edited or forged` };
  return undefined;
}

const OBJECTS_AT_ONCE = 16;

export async function verifyOrganization(store: ListableSource, orgId: string, keys = new SigningKeys(store)): Promise<OrganizationVerification> {
  const result: OrganizationVerification = {
    organizationId: orgId,
    ok: true,
    head: null,
    snapshots: 0,
    stateRecords: 0,
    unsigned: 0,
    beginning: 'empty',
    firstSnapshotId: null,
    verified: [],
    neverCurrent: [],
  };
  const fail = (snapshotId: string, kind: BreakKind, detail: string): OrganizationVerification => {
    result.ok = false;
    result.break = { snapshotId, kind, detail };
    return result;
  };
  const ids = await listSnapshotIds(store, orgId);
  const listed = new Set(ids);

  // Where the chain starts: the pointer's snapshot, or the newest one when none is current.
  let headId: string | undefined = ids.at(-1);
  let expected: { hash: string; by: string } | undefined;
  const pointerBytes = await store.get(pointerKey(orgId));
  if (pointerBytes !== undefined) {
    try {
      const pointer = parsePointer(orgId, pointerBytes);
      if (pointer.snapshotId !== null && pointer.manifestHash !== null) {
        headId = pointer.snapshotId;
        expected = { hash: pointer.manifestHash, by: 'the pointer' };
      }
    } catch (error) {
      return fail('current', 'pointer-malformed', (error as Error).message);
    }
  }

  const checkedObjects = new Set<string>();
  const chain = new Set<string>();
  /** Manifests that a later one on the chain names as written by a publish that never became current, with their hashes. */
  const superseded = new Map<string, string>();
  let child: string | undefined;
  let id = headId;
  while (id !== undefined) {
    const bytes = await store.get(manifestKey(orgId, id));
    if (bytes === undefined) {
      if (child === undefined) return fail(id, 'manifest-missing', `${expected?.by ?? 'the listing'} names snapshot ${id}, whose manifest is not in the store`);
      // Retention removes the oldest snapshots only: a gap with older snapshots behind it is a removal.
      const older = ids.filter((other) => other < id!);
      if (older.length > 0)
        return fail(
          id,
          'manifest-missing',
          `snapshot ${child} follows snapshot ${id}, which is missing from the middle of the history (${older.length} older snapshots are in the store)`,
        );
      result.beginning = 'pruned';
      break;
    }
    const hash = sha256Hex(bytes);
    if (child === undefined) result.head = { snapshotId: id, manifestHash: hash };
    if (expected !== undefined && hash !== expected.hash)
      return fail(id, 'manifest-edited', `its bytes hash to ${hash}, not to ${expected.hash} as ${expected.by} says: it was edited or replaced`);
    let manifest: Manifest;
    try {
      manifest = JSON.parse(bytes.toString('utf8')) as Manifest;
    } catch {
      return fail(id, 'manifest-edited', 'it is not JSON');
    }
    if (manifest.snapshotId !== id || manifest.organizationId !== orgId)
      return fail(id, 'manifest-edited', 'it names another snapshot or organization than its place in the store');

    if (!('previous' in manifest) && manifest.signature === undefined) {
      // From before chaining and signing: the history proves itself from the next snapshot on,
      // provided this one is older than signing and no signed snapshot comes before it.
      const began = await keys.signingBegan();
      if (began !== undefined && instantOfName(id)! >= began)
        return fail(id, 'unsigned', `it has no signature and no link, yet it was published after signing began (${began.toISOString()})`);
      const before = ids.filter((other) => other < id!).at(-1);
      const older = before === undefined ? undefined : await store.get(manifestKey(orgId, before));
      if (older !== undefined && /"signature":/.test(older.toString('utf8')))
        return fail(id, 'unsigned', `it has no signature, yet snapshot ${before} before it is signed: its signature was stripped`);
      result.beginning = 'unsigned';
      result.unsignedBefore = id;
      break;
    }
    const signature = await signatureProblem(manifest, keys);
    if (signature === 'unsigned') result.unsigned += 1;
    else if (signature !== undefined) return fail(id, signature.kind, signature.detail);
    // Vouched for only by a signed manifest: unsigned, anyone could have written it.
    if (signature === undefined) for (const left of manifest.supersedes ?? []) superseded.set(left.snapshotId, left.hash);

    const hashes = [...new Set(Object.values(manifest.resources ?? {}))].filter((object) => !checkedObjects.has(object));
    const objectProblems = await mapConcurrently(hashes, OBJECTS_AT_ONCE, async (object) => {
      const objectBytes = await store.get(objectKey(orgId, object));
      if (objectBytes === undefined) return { kind: 'object-missing' as const, object };
      return sha256Hex(objectBytes) === object ? undefined : { kind: 'object-edited' as const, object };
    });
    const objectProblem = objectProblems.find((problem) => problem !== undefined);
    if (objectProblem !== undefined) {
      const path = Object.entries(manifest.resources).find(([, object]) => object === objectProblem.object)?.[0];
      const what = objectProblem.kind === 'object-missing' ? 'is missing' : 'was edited (its bytes no longer hash to its name)';
      return fail(id, objectProblem.kind, `object ${objectProblem.object} (${path}) ${what}`);
    }
    for (const object of hashes) checkedObjects.add(object);

    chain.add(id);
    result.verified.push(id);
    result.snapshots += 1;
    result.firstSnapshotId = id;
    if (manifest.previous === null || manifest.previous === undefined) {
      if (manifest.previousSnapshotId !== null) return fail(id, 'manifest-edited', `it names no previous manifest's hash, yet follows snapshot ${manifest.previousSnapshotId}`);
      result.beginning = 'first';
      break;
    }
    if (typeof manifest.previousSnapshotId !== 'string' || !(manifest.previousSnapshotId < id)) return fail(id, 'manifest-edited', 'its previous snapshot is not an older one');
    child = id;
    expected = { hash: manifest.previous, by: `snapshot ${id}` };
    id = manifest.previousSnapshotId;
  }

  // Every manifest in the store is on the chain, or older than where it begins (history before
  // signing). One newer than the current snapshot means the pointer was moved back.
  const floor = result.beginning === 'unsigned' ? result.unsignedBefore : undefined;
  for (const other of ids) {
    if (chain.has(other) || (floor !== undefined && other <= floor) || !listed.has(other)) continue;
    const vouched = superseded.get(other);
    if (vouched !== undefined) {
      // A publish that stopped between its manifest and its pointer, as the next one says: never current.
      const bytes = await store.get(manifestKey(orgId, other));
      if (bytes !== undefined && sha256Hex(bytes) === vouched) {
        result.neverCurrent.push(other);
        continue;
      }
      return fail(other, 'manifest-edited', `a later snapshot names it as a publish that never became current, with hash ${vouched}; its bytes no longer hash to that`);
    }
    if (headId !== undefined && other > headId) {
      return fail(
        headId,
        'pointer-moved-back',
        `the pointer names snapshot ${headId}, but snapshot ${other}, published after it, is in the store: the pointer was moved back, or a publish stopped between writing its manifest and its pointer (a crash)`,
      );
    }
    return fail(other, 'outside-chain', 'it is not on the chain from the current snapshot back: forged, or left by a publish that never became current');
  }

  const stateBreak = await verifyStateRecords(store, orgId, keys, result);
  if (stateBreak !== undefined) return fail(stateBreak.snapshotId, stateBreak.kind, stateBreak.detail);
  return result;
}

/** The state records' chain, oldest first: each names the previous record's hash and is signed. */
async function verifyStateRecords(store: ListableSource, orgId: string, keys: SigningKeys, result: OrganizationVerification): Promise<HistoryBreak | undefined> {
  let previousHash: string | undefined;
  let chained = false;
  for (const mark of await listStateMarks(store, orgId)) {
    const name = `states/${mark.key.split('/').at(-1)!.slice(0, -'.json'.length)}`;
    const bytes = await store.get(mark.key);
    if (bytes === undefined) continue; // removed by retention since the listing
    let record: Signed & { publishedAt?: string };
    try {
      record = JSON.parse(bytes.toString('utf8')) as typeof record;
    } catch {
      return { snapshotId: name, kind: 'state-record-edited', detail: 'it is not JSON' };
    }
    const hash = sha256Hex(bytes);
    if (!('previous' in record)) {
      if (chained) return { snapshotId: name, kind: 'unsigned', detail: 'it has no link nor signature, yet records before it have them' };
      previousHash = hash;
      continue;
    }
    // The oldest record kept may name one retention removed; any later one names the record before it.
    if (previousHash !== undefined && record.previous !== previousHash) {
      return { snapshotId: name, kind: 'state-record-missing', detail: 'it does not name the record before it: a state record was removed or edited' };
    }
    const signature = await signatureProblem(record, keys);
    if (signature === 'unsigned') result.unsigned += 1;
    else if (signature !== undefined) return { snapshotId: name, kind: signature.kind === 'unknown-key' ? 'unknown-key' : 'state-record-edited', detail: signature.detail };
    chained = true;
    previousHash = hash;
    result.stateRecords += 1;
  }
  return undefined;
}

export interface StoreVerification {
  ok: boolean;
  organizations: OrganizationVerification[];
}

const ORGANIZATIONS_AT_ONCE = 8;

/** Every organization in the store. */
export async function verifyStore(store: SnapshotStore): Promise<StoreVerification> {
  const keys = new SigningKeys(store);
  const organizations = await mapConcurrently(await listOrganizationIds(store), ORGANIZATIONS_AT_ONCE, (orgId) => verifyOrganization(store, orgId, keys));
  return { ok: organizations.every((organization) => organization.ok), organizations };
}

/**
 * Whether an answer may come from `snapshotId`: it was verified on the chain, or it is older than
 * where the verified chain begins because its history predates signing (said, not refused).
 */
export function trustsSnapshot(verification: OrganizationVerification, snapshotId: string): boolean {
  if (verification.verified.includes(snapshotId)) return verification.break?.kind !== 'pointer-moved-back';
  return verification.ok && verification.beginning === 'unsigned' && verification.unsignedBefore !== undefined && snapshotId <= verification.unsignedBefore;
}

/** One line for people: what holds, or the first break. */
export function describeVerification(verification: OrganizationVerification): string {
  const org = verification.organizationId;
  if (verification.break !== undefined) return `${org}: BROKEN at ${verification.break.snapshotId} (${verification.break.kind}): ${verification.break.detail}`;
  if (verification.beginning === 'empty') return `${org}: nothing published`;
  const beginning =
    verification.beginning === 'first'
      ? `from its first snapshot ${verification.firstSnapshotId}`
      : verification.beginning === 'pruned'
        ? `from ${verification.firstSnapshotId}; older snapshots were pruned by retention`
        : verification.firstSnapshotId === null
          ? `nothing signed yet: its snapshots up to ${verification.unsignedBefore} predate signing and are not verified`
          : `from the first signed snapshot ${verification.firstSnapshotId}; snapshots up to ${verification.unsignedBefore} predate signing and are not verified`;
  const unsigned = verification.unsigned === 0 ? '' : ` (${verification.unsigned} unsigned: no signing key was published in the store then, so only their hashes and links hold)`;
  return `${org}: verified, ${verification.snapshots} snapshots and ${verification.stateRecords} state records, ${beginning}${unsigned}`;
}
