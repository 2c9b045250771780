// Publish stage: atomically per organization. New content-addressed objects first (each with its
// compressed forms, snapshot/codings.ts), then the manifest, then the pointer last, so a reader (or
// a crash) never sees half a snapshot.
// A build whose content equals the current snapshot writes nothing (docs/design.md step 5).
// The pointer is written only if it is still the one this publish read (putIfVersion): another
// builder that published meanwhile is never overwritten with what may be older data.
// A change of the organization's state (suspended, closed, reactivated) also writes a state record
// (snapshot/state-records.ts) after the pointer: history's evidence of it. After, so that a record
// only ever reports a change that happened; a crash between the two loses that one record.
// History is evidence (docs/design.md "History as evidence"): each manifest names the hash of the
// organization's previous one (`previous`) and each state record the previous record's, and both
// are signed by the builders' signing key when the build has one, whose public half is published
// in the store before anything it signs.
// Publication log (docs/design.md "History as evidence"; records/publication-log/): with a log, every
// manifest is appended to it after it is written and before the pointer names it, so a pointer
// never names what the log does not hold, and every state record after it is written. A manifest
// withdrawn after a lost pointer race is logged as removed ('withdrawn'). A publish killed between
// its append and its pointer leaves a logged manifest that never became current: the next publish
// names it in `supersedes` (neverCurrent), which is how verify tells it apart; no further leaf.
// A publish whose append failed (the database restarting) or that was killed before it leaves a
// manifest the log lacks: the next publish of the organization names it in `supersedes` as well and
// logs it in the same append as its own manifest, when this builder's key signed it (docs/design.md
// "Order of writes"); one the key did not sign is left unlogged, for verify to report. A suspension
// logs it likewise, when it is the newest manifest, where verify begins a suspended chain.
import { canonicalJson } from '../snapshot/canonical.ts';
import { sha256Hex, type ContentObject } from '../snapshot/hash.ts';
import { type Coding, compress, STORED_CODINGS, worthCoding } from '../snapshot/codings.ts';
import { codedObjectKey, manifestKey, manifestPrefix, newSnapshotId, objectKey, pointerKey, stateRecordKey, stateRecordName } from '../snapshot/layout.ts';
import {
  contentHashOf,
  SNAPSHOT_FORMAT,
  serializeManifest,
  serializePointer,
  type BuildTrigger,
  type Manifest,
  type OrganizationState,
  type Pointer,
} from '../snapshot/manifest.ts';
import { listSnapshotIds, parsePointer, readManifest } from '../snapshot/reader.ts';
import { listStateMarks, serializeStateRecord, type StateRecord } from '../snapshot/state-records.ts';
import { type Signature, type Signer, signatureHolds, signingKeyRecordKey } from '../snapshot/signing.ts';
import { contentObject } from '../snapshot/hash.ts';
import type { ResourceKind } from '../snapshot/resource-catalog.ts';
import type { LogRecord } from '../records/publication-log/log-entry.ts';
import type { PublicationLog } from '../records/publication-log/log-store.ts';
import type { SnapshotStore, Version } from '../snapshot/store.ts';
import { describeError } from '../runtime/errors.ts';
import { mapConcurrently } from './concurrently.ts';
import { PointerConflictError } from './errors.ts';
import { serializeResources, type SerializedResource } from './serialize.ts';
import type { PublishedChange } from './webhooks/messages.ts';

export type PublishResult = 'published' | 'unchanged' | 'suspended';

export interface PublishOutcome {
  result: PublishResult;
  snapshotId: string | null;
  objectsWritten: number;
  /** Published, but the state change's history record could not be written (see recordStateChange). */
  warning?: string;
  /** When the pointer changed: what the organization served before and serves now (webhooks). */
  change?: PublishedChange;
}

export interface PublishInput {
  organizationId: string;
  organizationSlug: string;
  state: OrganizationState;
  /** Empty unless the organization is active. */
  objects: readonly SerializedResource[];
  slugs: Record<string, string>;
  trigger: BuildTrigger;
  now: Date;
  builderVersion: string;
  /** What the snapshot is built from, recorded in its manifest (builder/projection-version.ts, builder/platform/versions.ts). */
  projectionVersion?: string;
  sourceVersion?: string;
  durationMs: number;
  /** Signs the manifest and state record this publish writes; absent: unsigned (SNAPSHOT_SIGNING_KEY=none, tests). */
  signer?: Signer;
  /**
   * The compressed forms stored beside each object it writes that is worth coding (SNAPSHOT_CODINGS,
   * snapshot/codings.ts); absent: STORED_CODINGS (gzip); empty: the JSON alone.
   */
  codings?: readonly Coding[];
  /**
   * Where each manifest and state record is logged before anything names it (records/publication-log/).
   * Every process with the platform database gives it (build, builder, start); absent only where
   * there is none (tests and tools publishing into a store alone).
   */
  publicationLog?: PublicationLog;
}

/** Objects written at once; enough to hide store latency without flooding it. */
const WRITE_CONCURRENCY = 16;

/** The pointer as this publish found it, and the version its own pointer write expects. */
export interface CurrentPointer {
  pointer: Pointer | undefined;
  /** null: there was no pointer. */
  version: Version | null;
}

/**
 * Throws PointerConflictError when another publish replaced the organization's pointer after
 * this one read it: nothing of this publish is then current (its objects and manifest, if any,
 * are unreferenced and retention removes them), and the caller builds the organization again.
 * `current`: the pointer as read before the platform's rows (build.ts), so that a publish of rows
 * read before another builder's publish can never replace it; read here when not given.
 */
export async function publish(store: SnapshotStore, input: PublishInput, current?: CurrentPointer): Promise<PublishOutcome> {
  current ??= await readCurrentPointer(store, input.organizationId);
  if (input.state !== 'active') return publishClosedState(store, input, current);

  const resources: Record<string, string> = {};
  for (const object of input.objects) resources[object.path] = object.hash;
  const contentHash = contentHashOf(resources, input.slugs);

  const latest = await latestManifest(store, input.organizationId, current.pointer);
  let left: LeftManifest[] | undefined;
  if (latest && latest.manifest.contentHash === contentHash) {
    if (current.pointer?.state === 'active' && current.pointer.snapshotId === latest.manifest.snapshotId) {
      // Unchanged, unless a publish that stopped before its pointer left a manifest beside this
      // one: with the content back as it was, no new snapshot would ever name it in `supersedes`,
      // and verify would take it for a pointer moved back for good. Then a snapshot of the same
      // content is published to vouch for it. One listing of the manifests, on an unchanged publish.
      left = await neverCurrent(store, input.organizationId, latest);
      if (left.length === 0) return { result: 'unchanged', snapshotId: latest.manifest.snapshotId, objectsWritten: 0 };
    } else {
      // Back from suspension with the content it had: point at that snapshot again, add no snapshot.
      // Logged already unless published before the log existed (and not backfilled): then logged now,
      // as any manifest is, before the pointer names it. A look at the log on a reactivation only.
      await logManifest(store, input, { snapshotId: latest.manifest.snapshotId, hash: latest.hash, wrote: false });
      await writePointer(store, input, current, latest.manifest.snapshotId, latest.hash);
      const warning = await recordStateChange(store, input, current);
      const change = changeOf(input, current, latest.manifest, latest.manifest.snapshotId, latest.manifest.resources);
      return { result: 'published', snapshotId: latest.manifest.snapshotId, objectsWritten: 0, change, ...(warning ? { warning } : {}) };
    }
  }

  const objectsWritten = await writeNewObjects(store, input.organizationId, input.objects, latest?.manifest, input.codings ?? STORED_CODINGS);
  const snapshotId = newSnapshotId(input.now, contentHash);
  // The same snapshot left by a killed publish is not superseded: writeManifest adopts it.
  left ??= latest ? await neverCurrent(store, input.organizationId, latest) : [];
  const supersedes = left.filter((stopped) => stopped.snapshotId !== snapshotId);
  const unsigned: Manifest = {
    format: SNAPSHOT_FORMAT,
    organizationId: input.organizationId,
    organizationSlug: input.organizationSlug,
    snapshotId,
    previousSnapshotId: latest?.manifest.snapshotId ?? null,
    previous: latest?.hash ?? null,
    ...(supersedes.length > 0 ? { supersedes } : {}),
    publishedAt: input.now.toISOString(),
    trigger: input.trigger,
    contentHash,
    resources,
    slugs: input.slugs,
    build: {
      builderVersion: input.builderVersion,
      durationMs: Math.round(input.durationMs),
      ...(input.sourceVersion === undefined ? {} : { sourceVersion: input.sourceVersion }),
      ...(input.projectionVersion === undefined ? {} : { projectionVersion: input.projectionVersion }),
    },
  };
  const manifest = await signed(store, input, unsigned);
  const written = await writeManifest(store, manifest);
  // Before the pointer: an append that fails fails the publish, and no pointer ever names a manifest
  // the log does not hold. The manifest stays, current never; the next publish supersedes it, and
  // logs it with its own if the log lacks it; likewise the manifest it follows when no pointer named
  // that one (a first publish, or one after a suspension, that failed at its append).
  const followed = latest !== undefined && !isCurrent(current, latest) ? [{ snapshotId: latest.manifest.snapshotId, hash: latest.hash }] : [];
  await logManifest(store, input, { snapshotId: manifest.snapshotId, ...written }, [...followed, ...supersedes]);
  try {
    await writePointer(store, input, current, manifest.snapshotId, written.hash);
  } catch (error) {
    // Another publish is current: this manifest never was, and left in place it would be a second
    // head of the chain beside the one the pointer names (docs/design.md "History as evidence").
    // Only a manifest this publish wrote is withdrawn, and only while no pointer names it: a twin
    // (same content, same millisecond) may have adopted it and won the pointer.
    if (error instanceof PointerConflictError && written.wrote) await withdrawManifest(store, manifest, written.hash, input.publicationLog);
    throw error;
  }
  const warning = await recordStateChange(store, input, current);
  const change = changeOf(input, current, latest?.manifest, manifest.snapshotId, resources);
  return { result: 'published', snapshotId: manifest.snapshotId, objectsWritten, change, ...(warning ? { warning } : {}) };
}

/** What the organization served before this publish (nothing unless its pointer was active) and serves now. */
function changeOf(input: PublishInput, current: CurrentPointer, latest: Manifest | undefined, snapshotId: string | null, after: Record<string, string>): PublishedChange {
  const wasActive = current.pointer?.state === 'active' && latest !== undefined && current.pointer.snapshotId === latest.snapshotId;
  return {
    organizationId: input.organizationId,
    organizationSlug: input.organizationSlug,
    snapshotId,
    publishedAt: input.now.toISOString(),
    state: input.state,
    previousState: current.pointer?.state ?? null,
    before: wasActive ? latest.resources : {},
    after,
    stored: new Map(input.objects.map((object): [string, Buffer] => [object.path, object.bytes])),
  };
}

/** Whether the pointer this publish read names `latest`: it was current, so it was logged before that pointer (unless before the log). */
const isCurrent = (current: CurrentPointer, latest: { manifest: Manifest; hash: string }): boolean =>
  current.pointer?.snapshotId === latest.manifest.snapshotId && current.pointer.manifestHash === latest.hash;

/**
 * Appends the manifest's leaf: its id and the SHA-256 of its bytes as stored. A manifest this
 * publish did not write (adopted from a killed attempt or a twin, or pointed at again on a
 * reactivation) may be logged already: it is appended only when the organization's entries lack
 * it, so one manifest has one leaf. `named`: the manifests this one names that never became current
 * (its `supersedes`, the one it follows when no pointer named it), each written by a publish that
 * may have stopped before its own append (a database restart, a kill): those the log lacks are
 * appended first, in the same transaction, when this builder's key signed them (signedByThisKey).
 * That look is rare; a publish that wrote its own and names none appends at once.
 */
async function logManifest(
  store: SnapshotStore,
  input: PublishInput,
  /** The manifest this publish points at; undefined for a suspension, which logs only what it names. */
  own: (LeftManifest & { wrote: boolean }) | undefined,
  named: readonly LeftManifest[] = [],
): Promise<void> {
  const log = input.publicationLog;
  if (log === undefined || (own === undefined && named.length === 0)) return;
  const record = ({ snapshotId: id, hash }: LeftManifest): LogRecord => ({ kind: 'manifest', organizationId: input.organizationId, id, hash });
  if (own?.wrote && named.length === 0) {
    await log.append([record(own)]);
    return;
  }
  const logged = new Set<string>();
  for (const { entry } of await log.entriesOf(input.organizationId)) if (entry.kind === 'manifest') logged.add(`${entry.id} ${entry.hash}`);
  const lacking = ({ snapshotId: id, hash }: LeftManifest) => !logged.has(`${id} ${hash}`);
  const earlier = await signedByThisKey(store, input, named.filter(lacking));
  const mine = own !== undefined && (own.wrote || lacking(own)) ? [own] : [];
  await log.append([...earlier, ...mine].map(record));
}

/**
 * A suspension or a closure points at no manifest, and verify begins the chain of an organization
 * with no current snapshot at its newest manifest: one a publish left there before its log append
 * (the append failed, the builder was killed) would stay unlogged until a reactivation, so it is
 * logged now, as the next active publish would log it (logManifest). After the pointer, which must
 * not wait on it: failing, it is the publish's warning. One listing of the manifests per suspension.
 */
async function logNewestManifest(store: SnapshotStore, input: PublishInput, current: CurrentPointer): Promise<string | undefined> {
  if (input.publicationLog === undefined) return undefined;
  try {
    const newest = (await listSnapshotIds(store, input.organizationId)).at(-1);
    if (newest === undefined || newest === current.pointer?.snapshotId) return undefined;
    const bytes = await store.get(manifestKey(input.organizationId, newest));
    if (bytes !== undefined) await logManifest(store, input, undefined, [{ snapshotId: newest, hash: sha256Hex(bytes) }]);
    return undefined;
  } catch (error) {
    return `the organization is ${input.state}; its newest manifest could not be checked against the publication log: ${describeError(error)}`;
  }
}

/**
 * Of `manifests`, those whose bytes in the store are still the ones hashed and carry a signature
 * by this publish's own key. Only those are logged for a publish that stopped before its append:
 * a manifest in the store that the log does not know may as well have been put there by someone
 * else, which verify must go on reporting (`unlogged`), and nobody but the builders holds the key
 * (docs/design.md "Order of writes"). Without a signer, none: nothing tells the builders' apart.
 */
async function signedByThisKey(store: SnapshotStore, input: PublishInput, manifests: readonly LeftManifest[]): Promise<LeftManifest[]> {
  const signer = input.signer;
  if (signer === undefined) return [];
  const ours: LeftManifest[] = [];
  for (const left of manifests) {
    const bytes = await store.get(manifestKey(input.organizationId, left.snapshotId));
    if (bytes === undefined || sha256Hex(bytes) !== left.hash) continue;
    let document: { signature?: Partial<Signature> };
    try {
      document = JSON.parse(bytes.toString('utf8')) as typeof document;
    } catch {
      continue;
    }
    const { signature } = document;
    if (signature?.keyId !== signer.keyId || typeof signature.value !== 'string') continue;
    if (signatureHolds(document, { keyId: signature.keyId, value: signature.value }, signer.publicKey)) ours.push(left);
  }
  return ours;
}

/**
 * Deletes the manifest unless a pointer names it, its removal logged first ('withdrawn'). When that
 * append fails the manifest stays: logged, never current, the next publish supersedes it.
 */
async function withdrawManifest(store: SnapshotStore, manifest: Manifest, hash: string, log: PublicationLog | undefined): Promise<void> {
  const now = await readCurrentPointer(store, manifest.organizationId);
  if (now.pointer?.snapshotId === manifest.snapshotId) return;
  if (log !== undefined) {
    const removal = { kind: 'removal', organizationId: manifest.organizationId, removed: 'manifest', reason: 'withdrawn', id: manifest.snapshotId, hash } as const;
    const logged = await log.append([removal]).then(
      () => true,
      () => false,
    );
    if (!logged) return;
  }
  await store.delete(manifestKey(manifest.organizationId, manifest.snapshotId));
}

/** Suspended and closed organizations publish a pointer in that state and no content. */
async function publishClosedState(store: SnapshotStore, input: PublishInput, current: CurrentPointer): Promise<PublishOutcome> {
  if (current.pointer?.state === input.state && current.pointer.snapshotId === null) return { result: 'suspended', snapshotId: null, objectsWritten: 0 };
  await writePointer(store, input, current, null, null);
  const warnings = [await recordStateChange(store, input, current), await logNewestManifest(store, input, current)].filter((warning) => warning !== undefined);
  const change = changeOf(input, current, undefined, null, {});
  return { result: 'suspended', snapshotId: null, objectsWritten: 0, change, ...(warnings.length > 0 ? { warning: warnings.join('; ') } : {}) };
}

/** A state record when the pointer just written is in another state than the one it replaced; none for a first active publish. */
async function recordStateChange(store: SnapshotStore, input: PublishInput, current: CurrentPointer): Promise<string | undefined> {
  const previousState = current.pointer?.state ?? null;
  if (previousState === input.state || (previousState === null && input.state === 'active')) return undefined;
  // The pointer, written just before, is the commit: what the API serves has changed, so the
  // publish succeeded whatever happens here. A record that cannot be written leaves a gap in
  // history, which is reported rather than passed off as a failed build that changed nothing.
  let logged: { id: string; hash: string };
  try {
    const unsigned: StateRecord = {
      format: SNAPSHOT_FORMAT,
      organizationId: input.organizationId,
      state: input.state,
      previousState,
      publishedAt: input.now.toISOString(),
      trigger: input.trigger,
      previous: await newestStateRecordHash(store, input.organizationId),
    };
    const record = await signed(store, input, unsigned);
    const key = stateRecordKey(input.organizationId, input.now, input.state);
    const bytes = serializeStateRecord(record);
    await store.put(key, bytes);
    logged = { id: stateRecordName(key), hash: sha256Hex(bytes) };
  } catch (error) {
    return `the organization is ${input.state} since ${input.now.toISOString()}, but history has no record of it: ${describeError(error)}`;
  }
  // Logged after it is written, unlike a manifest (which no pointer names until it is logged): the
  // log vouches only for what the store holds. A builder killed between the two leaves a record the
  // log lacks, never a logged record that was never written, which verify would take for a deletion.
  try {
    await input.publicationLog?.append([{ kind: 'state-record', organizationId: input.organizationId, ...logged }]);
    return undefined;
  } catch (error) {
    return `the organization is ${input.state} since ${input.now.toISOString()}; its state record ${logged.id} is written, but the publication log does not have it: ${describeError(error)}`;
  }
}

/** The hash of the organization's newest state record's bytes, the link the next record names; null when it has none. */
async function newestStateRecordHash(store: SnapshotStore, orgId: string): Promise<string | null> {
  const newest = (await listStateMarks(store, orgId)).at(-1);
  const bytes = newest === undefined ? undefined : await store.get(newest.key);
  return bytes === undefined ? null : sha256Hex(bytes);
}

/** `document` signed by the publish's signer (its public key published first), or as it is without one. */
async function signed<T extends object>(store: SnapshotStore, input: PublishInput, document: T): Promise<T> {
  if (input.signer === undefined) return document;
  await publishSigningKey(store, input.signer, input.now);
  return input.signer.sign(document);
}

const publishedKeys = new WeakMap<SnapshotStore, Map<string, Promise<void>>>();

/**
 * Publishes the signer's public key in the store once per store and process, before the first
 * document it signs: written only where no record of it is (another builder with the same key may
 * have written it first), so its `validFrom` is the first publication's and is never moved.
 */
function publishSigningKey(store: SnapshotStore, signer: Signer, now: Date): Promise<void> {
  let byKey = publishedKeys.get(store);
  if (byKey === undefined) publishedKeys.set(store, (byKey = new Map()));
  let publishing = byKey.get(signer.keyId);
  if (publishing === undefined) {
    publishing = store.putIfVersion(signingKeyRecordKey(signer.keyId), contentObject(signer.record(now)).bytes, null).then(() => undefined);
    // A failed write is tried again by the next publish.
    publishing.catch(() => byKey.delete(signer.keyId));
    byKey.set(signer.keyId, publishing);
  }
  return publishing;
}

export async function readCurrentPointer(store: SnapshotStore, orgId: string): Promise<CurrentPointer> {
  const read = await store.getIfChanged(pointerKey(orgId), undefined);
  if (read === undefined) return { pointer: undefined, version: null };
  // No version was given, so there is none to be unchanged from.
  if (read === 'unchanged') throw new Error(`${store.description}: answered "unchanged" to a read of ${pointerKey(orgId)} without a version`);
  return { pointer: parsePointer(orgId, read.bytes), version: read.version };
}

/** The snapshot a new build compares with: the current one, or the newest in history when none is current. */
async function latestManifest(store: SnapshotStore, orgId: string, current: Pointer | undefined): Promise<{ manifest: Manifest; hash: string } | undefined> {
  if (current?.snapshotId && current.manifestHash) {
    const manifest = await readManifest(store, orgId, current.snapshotId, current.manifestHash);
    if (manifest) return { manifest, hash: current.manifestHash };
  }
  const ids = await listSnapshotIds(store, orgId);
  const newest = ids[ids.length - 1];
  if (!newest) return undefined;
  // Hashed as stored: the chain's link is to these bytes.
  const bytes = await store.get(`${manifestPrefix(orgId)}${newest}.json`);
  return bytes ? { manifest: JSON.parse(bytes.toString('utf8')) as Manifest, hash: sha256Hex(bytes) } : undefined;
}

/** A manifest a publish wrote and never made current, as the next manifest's `supersedes` names it. */
interface LeftManifest {
  snapshotId: string;
  hash: string;
}

/**
 * The manifests a publish wrote and never made current, which the next manifest names each with its
 * hash, signed, so that verify knows them for publishes that stopped (docs/design.md "History as
 * evidence"):
 * - forked from the current manifest: a publish killed between its manifest and its pointer left
 *   one newer than the current snapshot and linked to it (which is also what a pointer moved back
 *   by one publish looks like);
 * - forked from the current manifest's predecessor: a publish that lost the pointer race to the
 *   current one and was killed, or could not log its withdrawal, before it deleted its manifest.
 * Only those: a manifest further on (a pointer moved back by more than one publish) is never
 * vouched for, and verify reports it. One listing of the organization's manifests.
 */
async function neverCurrent(store: SnapshotStore, orgId: string, latest: { manifest: Manifest; hash: string }): Promise<LeftManifest[]> {
  const forkedFrom = new Set([latest.hash, ...(typeof latest.manifest.previous === 'string' ? [latest.manifest.previous] : [])]);
  const since = latest.manifest.previousSnapshotId ?? '';
  // Those the current manifest vouches for already are not named again: an unchanged publish would publish again and again.
  const vouched = new Set((latest.manifest.supersedes ?? []).map((stopped) => stopped.snapshotId));
  const candidates = (await listSnapshotIds(store, orgId)).filter((id) => id > since && id !== latest.manifest.snapshotId && !vouched.has(id));
  const left: LeftManifest[] = [];
  for (const snapshotId of candidates) {
    const bytes = await store.get(manifestKey(orgId, snapshotId));
    if (bytes === undefined) continue;
    let previous: unknown;
    try {
      previous = (JSON.parse(bytes.toString('utf8')) as Partial<Manifest>).previous;
    } catch {
      continue;
    }
    if (typeof previous === 'string' && forkedFrom.has(previous)) left.push({ snapshotId, hash: sha256Hex(bytes) });
  }
  return left;
}

/**
 * Writes every object the latest manifest does not name, each with its coded forms. Those it names
 * are in the store (and retention keeps them: it keeps the newest snapshot), so an unchanged run
 * compresses nothing; any other object may be one that retention is about to delete as
 * unreferenced and old, so it is written again, which makes it young and spares it
 * (builder/retention.ts). Objects are immutable: writing one again changes no byte of its JSON.
 */
async function writeNewObjects(
  store: SnapshotStore,
  orgId: string,
  objects: readonly SerializedResource[],
  latest: Manifest | undefined,
  codings: readonly Coding[],
): Promise<number> {
  const present = new Set(Object.values(latest?.resources ?? {}));
  const pending = new Map<string, SerializedResource>();
  for (const object of objects) if (!present.has(object.hash)) pending.set(object.hash, object);
  await mapConcurrently([...pending.values()], WRITE_CONCURRENCY, (object) => writeObject(store, orgId, object, codings));
  return pending.size;
}

/**
 * The object's JSON, then its coded forms (compressed on libuv's thread pool while the JSON is
 * written). All of them are in the store before the manifest that names the object, which is when
 * a gateway may first ask for one. The JSON first: a publish killed between the two leaves an
 * object without coded forms, which gateways serve as JSON and audit accepts, never a coded form
 * without its JSON; and the JSON's write is what makes the object young to retention, which judges
 * an object and its coded forms by it.
 */
async function writeObject(store: SnapshotStore, orgId: string, object: SerializedResource, codings: readonly Coding[]): Promise<void> {
  const wanted = worthCoding(object.bytes.length) ? codings : [];
  const [, ...coded] = await Promise.all([store.put(objectKey(orgId, object.hash), object.bytes), ...wanted.map((coding) => compress(coding, object.bytes))]);
  await Promise.all(wanted.map((coding, i) => store.put(codedObjectKey(orgId, object.hash, coding), coded[i]!)));
}

/**
 * Written only where no other manifest is: two builders that publish the same content in the same
 * millisecond (their locks lost, as when Redis is flushed) name the same snapshot, and the second
 * manifest would replace the one the first pointer vouches for by hash. A manifest already there
 * that says everything this one says but how it was built (its duration, its trigger) is the same
 * snapshot — left by an attempt that stopped before its pointer, or by a twin — and is pointed at
 * as it is: its hash is returned. Any other is a rival: this publish is refused, as its pointer
 * write would be, and builds again.
 */
async function writeManifest(store: SnapshotStore, manifest: Manifest): Promise<{ hash: string; wrote: boolean }> {
  const serialized = serializeManifest(manifest);
  const key = manifestKey(manifest.organizationId, manifest.snapshotId);
  if ((await store.putIfVersion(key, serialized.bytes, null)) === 'written') return { hash: serialized.hash, wrote: true };
  const present = await store.get(key);
  if (present && sameSnapshot(JSON.parse(present.toString('utf8')) as Manifest, manifest)) return { hash: sha256Hex(present), wrote: false };
  throw new PointerConflictError(manifest.organizationId);
}

/** The signature covers the build and the trigger, so it differs between twins too; `previous` does not. */
function sameSnapshot(a: Manifest, b: Manifest): boolean {
  const { build: _a, trigger: _ta, signature: _sa, ...restA } = a;
  const { build: _b, trigger: _tb, signature: _sb, ...restB } = b;
  return canonicalJson(restA) === canonicalJson(restB);
}

async function writePointer(store: SnapshotStore, input: PublishInput, current: CurrentPointer, snapshotId: string | null, manifestHash: string | null): Promise<void> {
  const pointer: Pointer = {
    format: SNAPSHOT_FORMAT,
    organizationId: input.organizationId,
    state: input.state,
    snapshotId,
    manifestHash,
    publishedAt: input.now.toISOString(),
  };
  const serialized: ContentObject = serializePointer(pointer);
  const written = await store.putIfVersion(pointerKey(input.organizationId), serialized.bytes, current.version);
  if (written === 'conflict') throw new PointerConflictError(input.organizationId);
}

/** Convenience for tests and tools: serialize plain resources and publish them. */
export async function publishSnapshot(
  store: SnapshotStore,
  input: Omit<PublishInput, 'objects' | 'builderVersion' | 'durationMs'> & {
    resources: ReadonlyArray<{ path: string; kind?: ResourceKind; value: unknown }>;
    builderVersion?: string;
    durationMs?: number;
  },
): Promise<PublishOutcome> {
  const { resources, ...rest } = input;
  return publish(store, {
    ...rest,
    objects: serializeResources(resources),
    builderVersion: input.builderVersion ?? 'test',
    durationMs: input.durationMs ?? 0,
  });
}
