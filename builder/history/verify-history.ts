// `marquee verify`: is an organization's history what its builders published? (docs/design.md
// "History as evidence"). From the current pointer back, every manifest's hash (the pointer, then
// each manifest's `previous`, names the bytes of the one before), its signature by a published
// signing key, its link, its `contentHash` (recomputed from its resources and slugs, as publish
// computes it), and every object it names; then that no manifest stands outside the chain (a
// pointer moved back to an older snapshot leaves the newer ones behind it), and the state records'
// own chain. The first break is named by snapshot id, or by state record, with what is wrong.
// Where the chain ends says why: at its first snapshot, where retention pruned it (the manifest
// before the oldest one kept is gone, and nothing older is there), or where history from before
// signing begins (manifests without `previous`: the chain starts at the first signed one).
//
// The store alone cannot show what was removed whole: an organization's deleted prefix looks like
// an organization never published. So verify also takes what a record outside the store says must
// be in it (`Expectation`, per organization): today the platform database's built versions
// (builder/history/expected-publications.ts), which know that an organization was published into
// this store, not what; the publication log (logged-publications.ts) knows each publication: its
// snapshots must then be on the verified chain, its state records in the store, and a manifest it
// does not know, newer than its first entry of the organization, is `unlogged`; where its rows are
// not its tree's leaves, it is `log-rewritten` instead. What the log expects was read before the
// organization's turn, beside builders still publishing: an `unlogged` or `publication-missing`
// break is confirmed by reading the organization's entries again (`Expectation.again`) before it
// is reported. A store that is missing, cannot be read or holds nothing is refused,
// never verified as "0 organizations".
//
// Exports: `verifyOrganization(store, orgId, keys?, expectations?)`, `verifyStore(store, expected?)`,
// `verifyInStore(store, orgId, expected?)`, `storeOrganizations(store)`, `assertStoreReadable(store)`,
// `SigningKeys`, and `trustsSnapshot(verification, snapshotId)`, what `show --at` and the as-of answers ask.
import { describeError, OperatorError } from '../../runtime/errors.ts';
import { sha256Hex } from '../../snapshot/hash.ts';
import { instantOfName, manifestKey, objectKey, ORGS_PREFIX, stateRecordName } from '../../snapshot/layout.ts';
import { contentHashOf, type Manifest } from '../../snapshot/manifest.ts';
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
  | 'state-record-missing'
  /** Its `contentHash` is not the hash of its own resources and slugs: they were edited, and the manifest signed again. */
  | 'content-hash-mismatch'
  /** A record outside the store says the organization was published into it, and the store holds no pointer and no manifest of it. */
  | 'history-missing'
  /** A record outside the store names a snapshot (or state record) published into it that is not on the verified chain (not in the store). */
  | 'publication-missing'
  /** A manifest in the store that the publication log does not know, newer than the log's first entry of the organization: published around the log. */
  | 'unlogged'
  /** The publication log's rows are not its tree's leaves (a row changed or deleted, the tree left): what it says of the store cannot be taken as it is. */
  | 'log-rewritten';

/**
 * What a record outside the store says must be in it for one organization. The platform
 * database's built versions say only that something was published (no `snapshot`); a source that
 * knows every publication (a publication log) names each snapshot with its manifest's hash.
 */
export interface Expectation {
  /** Who says so and what, for the break's detail: "the platform database records a build of it into this store (…)". */
  says: string;
  /** A manifest published into the store and not removed since (retention's removals are the source's to leave out), and the SHA-256 of its bytes. */
  snapshot?: { snapshotId: string; manifestHash: string };
  /** A state record published into the store and not removed since, by name (`{instant}-{state}`), and the SHA-256 of its bytes. */
  stateRecord?: { name: string; hash: string };
  /** The source knows every manifest published since `since` (the publication log, from its first entry of the organization): one in the store newer than that and not among `manifests` is `unlogged`. */
  logged?: { since: Date; manifests: ReadonlySet<string> };
  /** The source's own record does not hold at this leaf of the publication log (its rows are not its tree's leaves): `log-rewritten`, and `says` what was found. */
  rewritten?: { leaf: number };
  /**
   * The source read again, as it is now: its expectations of this organization, in place of every
   * one that carries this function. Read before any organization was verified, beside builders
   * that go on publishing, so asked once before a break that a publication logged since would
   * explain (`unlogged`, `publication-missing`); the break stands only if it still holds.
   */
  again?: (() => Promise<readonly Expectation[]>) | undefined;
}

/**
 * Organization id → what must be in the store for it. Its keys are every organization the
 * record knows: one with no expectation is known and was never published into this store, and is
 * verified all the same (whatever the store holds of it must hold).
 */
export type Expectations = ReadonlyMap<string, readonly Expectation[]>;

interface HistoryBreak {
  /** The snapshot (or state record, `states/{name}`; or the publication log's leaf, `publication-log/{seq}`) where the history stops holding. */
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

/**
 * One organization's history in the store. `expectations`: what records outside the store say must be
 * in it (Expectation); with none, what the store holds is checked and nothing else.
 */
export async function verifyOrganization(
  store: ListableSource,
  orgId: string,
  keys = new SigningKeys(store),
  expectations: readonly Expectation[] = [],
): Promise<OrganizationVerification> {
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
  // Nothing the API could serve, yet something was published: not an organization never built,
  // whose store holds nothing either, but one whose history was removed (its prefix deleted).
  const published = publishedSays(expectations);
  if (pointerBytes === undefined && ids.length === 0 && published !== undefined) {
    return fail('current', 'history-missing', `the store holds no pointer and no manifest of it, yet ${published}: its history is missing from the store`);
  }

  const checkedObjects = new Set<string>();
  /** Snapshot id → its manifest's hash, for each manifest on the chain. */
  const chain = new Map<string, string>();
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
    // A signature holds for whoever published the key it names: a forger who edits `resources`
    // and signs again with a key record of their own is caught here if they keep the old
    // `contentHash` (publish computes it so, builder/publish.ts). One who recomputes it is not.
    const contentHash = contentHashOf(manifest.resources ?? {}, manifest.slugs ?? {});
    if (manifest.contentHash !== contentHash)
      return fail(
        id,
        'content-hash-mismatch',
        `its contentHash ${manifest.contentHash} is not ${contentHash}, the hash of its resources and slugs: they were edited after it was published`,
      );

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

    chain.set(id, hash);
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

  // What the log says of the store holds only where its rows are its tree's leaves.
  const rewritten = expectations.find((expectation) => expectation.rewritten !== undefined);
  if (rewritten !== undefined) return fail(`publication-log/${rewritten.rewritten!.leaf}`, 'log-rewritten', rewritten.says);

  const confirmed = confirming(expectations);
  // A manifest the log does not know was written around it: named before it is told apart as outside the chain.
  const unlogged = await confirmed((expecting) => unloggedManifest(expecting, ids));
  if (unlogged !== undefined) return fail(unlogged.snapshotId, unlogged.kind, unlogged.detail);

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

  const expectationBreak = await confirmed((expecting) => unmetExpectation(expecting, chain, listed, result));
  if (expectationBreak !== undefined) return fail(expectationBreak.snapshotId, expectationBreak.kind, expectationBreak.detail);

  /** State record name → the SHA-256 of its bytes, of each record verifyStateRecords read. */
  const records = new Map<string, string>();
  const stateBreak = (await verifyStateRecords(store, orgId, keys, result, records)) ?? (await confirmed((expecting) => missingStateRecord(expecting, records)));
  if (stateBreak !== undefined) return fail(stateBreak.snapshotId, stateBreak.kind, stateBreak.detail);
  return result;
}

/** The first thing an expectation says was published into the store; the log's rewritten leaves say nothing was. */
const publishedSays = (expectations: readonly Expectation[]): string | undefined => expectations.find((expectation) => expectation.rewritten === undefined)?.says;

/** Breaks a publication logged after the expectations were read would explain: a manifest not yet known, a document since removed. */
const RACING: ReadonlySet<BreakKind> = new Set(['unlogged', 'publication-missing']);

/**
 * A finder of breaks over the expectations, which confirms a break that a publication since would
 * explain (RACING) by reading its source again (`again`, once per organization) and finding
 * again: beside a live builder, a publish or a removal logged after the expectations were read
 * is no break. A source that cannot be read again leaves the break as found, saying so.
 *
 * Reading again excuses, never accuses: a document the source expects now and did not at first
 * was published after this organization's history was read from the store (the chain, the
 * listing), so it is left to the next verification rather than reported missing.
 */
function confirming(expectations: readonly Expectation[]) {
  let expecting = expectations;
  return async (find: (expecting: readonly Expectation[]) => HistoryBreak | undefined): Promise<HistoryBreak | undefined> => {
    const found = find(expecting);
    const again = expecting.find((expectation) => expectation.again !== undefined)?.again;
    if (found === undefined || !RACING.has(found.kind) || again === undefined) return found;
    let fresh: readonly Expectation[];
    try {
      fresh = await again();
    } catch (error) {
      return { ...found, detail: `${found.detail} (not confirmed: its source could not be read again: ${describeError(error)})` };
    }
    const replaced = expecting.filter((expectation) => expectation.again === again);
    const expectedAtFirst = new Set(replaced.map(expectedDocument));
    expecting = [
      ...expecting.filter((expectation) => expectation.again !== again),
      ...fresh
        .filter((expectation) => expectedDocument(expectation) === undefined || expectedAtFirst.has(expectedDocument(expectation)))
        .map((expectation) => ({ ...expectation, again: undefined })),
    ];
    return find(expecting);
  };
}

/** The document an expectation says must be in the store, by kind and name; undefined for one that names none. */
const expectedDocument = ({ snapshot, stateRecord }: Expectation): string | undefined =>
  snapshot !== undefined ? `snapshot ${snapshot.snapshotId}` : stateRecord !== undefined ? `state record ${stateRecord.name}` : undefined;

/** The first manifest in the store, newer than the log's first entry, that the log does not know. */
function unloggedManifest(expectations: readonly Expectation[], ids: readonly string[]): HistoryBreak | undefined {
  for (const { says, logged } of expectations) {
    if (logged === undefined) continue;
    const other = ids.find((id) => !logged.manifests.has(id) && (instantOfName(id)?.getTime() ?? 0) > logged.since.getTime());
    if (other !== undefined)
      return { snapshotId: other, kind: 'unlogged', detail: `${says} (${logged.since.toISOString()}), and not this one: it was written into the store around the log` };
  }
  return undefined;
}

/** The first expected state record that is not among those read from the store (`records`) with its hash; verifyStateRecords checked their chain. */
function missingStateRecord(expectations: readonly Expectation[], records: ReadonlyMap<string, string>): HistoryBreak | undefined {
  for (const { says, stateRecord } of expectations) {
    if (stateRecord === undefined) continue;
    const hash = records.get(stateRecord.name);
    const snapshotId = `states/${stateRecord.name}`;
    if (hash === undefined) return { snapshotId, kind: 'publication-missing', detail: `${says}, and it is not in the store: it was removed` };
    if (hash !== stateRecord.hash) return { snapshotId, kind: 'state-record-edited', detail: `its bytes hash to ${hash}, not to ${stateRecord.hash} as ${says}` };
  }
  return undefined;
}

/**
 * The first expected snapshot the verified history does not hold: every one must be on the chain
 * with its hash, or a publish that never became current that a later manifest vouches for, or in
 * the store from before signing, older than where the chain begins. A snapshot retention removed
 * is not expected: the source says so (a publication log records removals).
 */
function unmetExpectation(
  expectations: readonly Expectation[],
  chain: ReadonlyMap<string, string>,
  listed: ReadonlySet<string>,
  result: OrganizationVerification,
): HistoryBreak | undefined {
  for (const { says, snapshot } of expectations) {
    if (snapshot === undefined) continue;
    const hash = chain.get(snapshot.snapshotId);
    if (hash !== undefined) {
      if (hash === snapshot.manifestHash) continue;
      return { snapshotId: snapshot.snapshotId, kind: 'manifest-edited', detail: `its bytes hash to ${hash}, not to ${snapshot.manifestHash} as ${says}` };
    }
    if (result.neverCurrent.includes(snapshot.snapshotId)) continue;
    const beforeSigning = result.beginning === 'unsigned' && result.unsignedBefore !== undefined && snapshot.snapshotId <= result.unsignedBefore;
    if (beforeSigning && listed.has(snapshot.snapshotId)) continue;
    return { snapshotId: snapshot.snapshotId, kind: 'publication-missing', detail: `${says}, and it is not on the verified chain from the current snapshot back: it was removed` };
  }
  return undefined;
}

/**
 * The state records' chain, oldest first: each names the previous record's hash and is signed.
 * Each record read is put in `records` (its name → the SHA-256 of its bytes), for what is expected of them.
 */
async function verifyStateRecords(
  store: ListableSource,
  orgId: string,
  keys: SigningKeys,
  result: OrganizationVerification,
  records: Map<string, string>,
): Promise<HistoryBreak | undefined> {
  let previousHash: string | undefined;
  let chained = false;
  for (const mark of await listStateMarks(store, orgId)) {
    const recordName = stateRecordName(mark.key);
    const name = `states/${recordName}`;
    const bytes = await store.get(mark.key);
    if (bytes === undefined) continue; // removed by retention since the listing
    const hash = sha256Hex(bytes);
    records.set(recordName, hash);
    let record: Signed & { publishedAt?: string };
    try {
      record = JSON.parse(bytes.toString('utf8')) as typeof record;
    } catch {
      return { snapshotId: name, kind: 'state-record-edited', detail: 'it is not JSON' };
    }
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

/** Progress of verifyStore: `done` of `total` organizations verified. */
export type VerificationProgress = (done: number, total: number) => void;

/**
 * Every organization in the store, and every one `expected` knows (the platform database's
 * organizations, deleted ones in the store kept), each with what is expected of it, a bounded
 * number at once, in id order; `progress` is told the total once it is known and then after each
 * (an admin verification job shows it). Refuses a store that is missing, cannot be read or holds
 * nothing (UnverifiableStoreError).
 */
export async function verifyStore(store: SnapshotStore, expected: Expectations = new Map(), progress: VerificationProgress = () => {}): Promise<StoreVerification> {
  const inStore = await storeOrganizations(store, expected);
  const keys = new SigningKeys(store);
  const ids = [...new Set([...inStore, ...expected.keys()])].sort();
  let done = 0;
  progress(done, ids.length);
  const organizations = await mapConcurrently(ids, ORGANIZATIONS_AT_ONCE, async (orgId) => {
    const verification = await verifyOrganization(store, orgId, keys, expected.get(orgId));
    progress(++done, ids.length);
    return verification;
  });
  return { ok: organizations.every((organization) => organization.ok), organizations };
}

/**
 * One organization, after the refusals verifyStore makes: a store that is missing or cannot be
 * read, or one that holds nothing of any organization (asked only when it holds nothing of this one).
 */
export async function verifyInStore(store: SnapshotStore, orgId: string, expected: readonly Expectation[] = []): Promise<OrganizationVerification> {
  await assertStoreReadable(store);
  const verification = await verifyOrganization(store, orgId, new SigningKeys(store), expected);
  if ((verification.ok && verification.beginning === 'empty' && verification.stateRecords === 0) || verification.break?.kind === 'history-missing') {
    await storeOrganizations(store, new Map([[orgId, expected]]));
  }
  return verification;
}

/**
 * A store verify and audit refuse to check: it is not there, cannot be read, or holds no
 * organization's history. Each would otherwise read as nothing published (every key absent), and
 * "0 organizations: 0 verified, 0 broken" is no verdict: SNAPSHOT_STORE (MARQUEE_HOME) is likely
 * not the store builders publish into.
 */
class UnverifiableStoreError extends OperatorError {
  override name = 'UnverifiableStoreError';
}

const STORE_HINT = 'is SNAPSHOT_STORE (MARQUEE_HOME/snapshots by default) the store builders publish into?';

/** Rejects, naming the store, when it is not there or cannot be read; one small listing (the signing keys) proves it can. */
export async function assertStoreReadable(store: SnapshotStore): Promise<void> {
  try {
    await store.assertExists?.();
    await store.list(SIGNING_KEYS_PREFIX);
  } catch (error) {
    const reason = describeError(error);
    const what = reason.includes(store.description) ? reason : `${store.description} cannot be read: ${reason}`;
    throw new UnverifiableStoreError(`${what}; ${STORE_HINT}`, { cause: error });
  }
}

/**
 * The organizations with anything in the store; refuses (UnverifiableStoreError) a store that is
 * missing, cannot be read, or holds no organization's history, saying how many organizations
 * `expected` says were published into it.
 */
export async function storeOrganizations(store: SnapshotStore, expected: Expectations = new Map()): Promise<string[]> {
  await assertStoreReadable(store);
  let ids: string[];
  try {
    ids = await listOrganizationIds(store);
  } catch (error) {
    throw new UnverifiableStoreError(`${store.description} cannot be read: ${describeError(error)}; ${STORE_HINT}`, { cause: error });
  }
  if (ids.length > 0) return ids;
  const published = [...expected].flatMap(([id, expectations]) => {
    const says = publishedSays(expectations);
    return says === undefined ? [] : [{ id, says }];
  });
  const [first] = published;
  const says =
    first === undefined
      ? ''
      : published.length === 1
        ? `, yet organization ${first.id} was published into it (${first.says})`
        : `, yet ${published.length} organizations were published into it (of ${first.id}, ${first.says})`;
  throw new UnverifiableStoreError(`${store.description} holds no organization's history (nothing under ${ORGS_PREFIX})${says}; ${STORE_HINT}`);
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
  if (verification.beginning === 'empty')
    return verification.stateRecords === 0
      ? `${org}: nothing published`
      : `${org}: no snapshot published; its ${verification.stateRecords} state records verify (suspended or closed before its first snapshot)`;
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
