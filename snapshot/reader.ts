// Reading a published snapshot: pointer → manifest → objects, each verified against its hash.
import { sha256Hex } from './hash.ts';
import { codedObjectKey, isSnapshotId, manifestKey, manifestPrefix, objectKey, ORGS_PREFIX, pointerKey } from './layout.ts';
import { type Coding, decodeOffLoop } from './codings.ts';
import { ORGANIZATION_STATES, SNAPSHOT_FORMAT, type Manifest, type OrganizationState, type Pointer } from './manifest.ts';
import type { SnapshotSource, SnapshotStore } from './store.ts';

export class SnapshotIntegrityError extends Error {
  override name = 'SnapshotIntegrityError';
}

export async function readPointer(store: SnapshotSource, orgId: string): Promise<Pointer | undefined> {
  const bytes = await store.get(pointerKey(orgId));
  return bytes ? parsePointer(orgId, bytes) : undefined;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * The pointer of organization `orgId` from its bytes, checked field by field as
 * schemas/pointer.schema.json describes it: the pointer is the one object in the store that is
 * replaced, not named by its hash, so nothing else vouches for it. Throws SnapshotIntegrityError.
 */
export function parsePointer(orgId: string, bytes: Uint8Array): Pointer {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    throw new SnapshotIntegrityError(`pointer of organization ${orgId} is malformed: not JSON`, { cause: error });
  }
  const pointer = (typeof value === 'object' && value !== null ? value : {}) as Partial<Record<keyof Pointer, unknown>>;
  const problem =
    pointer.format !== SNAPSHOT_FORMAT
      ? `format is not ${SNAPSHOT_FORMAT}`
      : pointer.organizationId !== orgId
        ? 'it names another organization'
        : !ORGANIZATION_STATES.includes(pointer.state as OrganizationState)
          ? 'unknown state'
          : !(pointer.snapshotId === null || (typeof pointer.snapshotId === 'string' && isSnapshotId(pointer.snapshotId)))
            ? 'bad snapshotId'
            : !(pointer.manifestHash === null || (typeof pointer.manifestHash === 'string' && SHA256_HEX.test(pointer.manifestHash)))
              ? 'bad manifestHash'
              : typeof pointer.publishedAt !== 'string'
                ? 'no publishedAt'
                : undefined;
  if (problem !== undefined) throw new SnapshotIntegrityError(`pointer of organization ${orgId} is malformed: ${problem}`);
  return pointer as Pointer;
}

export async function readManifest(store: SnapshotSource, orgId: string, snapshotId: string, expectedHash?: string): Promise<Manifest | undefined> {
  const bytes = await store.get(manifestKey(orgId, snapshotId));
  if (!bytes) return undefined;
  if (expectedHash && sha256Hex(bytes) !== expectedHash) {
    throw new SnapshotIntegrityError(`manifest ${snapshotId} of organization ${orgId} does not match hash ${expectedHash}`);
  }
  return JSON.parse(bytes.toString('utf8')) as Manifest;
}

/** The bytes of one object, verified: content addressing makes a torn or swapped object detectable. */
export async function readObjectBytes(store: SnapshotSource, orgId: string, hash: string): Promise<Buffer | undefined> {
  const bytes = await store.get(objectKey(orgId, hash));
  if (!bytes) return undefined;
  if (sha256Hex(bytes) !== hash) throw new SnapshotIntegrityError(`object ${hash} of organization ${orgId} is corrupt`);
  return bytes;
}

/**
 * The stored form of object `hash` in `coding`, checked to decode to the object's JSON (`json`, read
 * and verified before): undefined when the store has none (published before coded forms were, or
 * with SNAPSHOT_CODINGS=none). Throws SnapshotIntegrityError for a form that decodes to anything else.
 */
export async function readCodedObject(store: SnapshotSource, orgId: string, hash: string, coding: Coding, json: Buffer): Promise<Buffer | undefined> {
  const coded = await store.get(codedObjectKey(orgId, hash, coding));
  if (!coded) return undefined;
  const decoded = await decodeOffLoop(coding, coded, json.length).catch(() => undefined);
  if (decoded === undefined || !decoded.equals(json)) throw new SnapshotIntegrityError(`object ${hash} of organization ${orgId} is corrupt in ${coding}`);
  return coded;
}

/** A source that can also list keys, for reading history: every SnapshotStore is one. */
export type ListableSource = SnapshotSource & Pick<SnapshotStore, 'list'>;

/** Snapshot ids of an organization, oldest first (ids sort by time). */
export async function listSnapshotIds(store: ListableSource, orgId: string): Promise<string[]> {
  const prefix = manifestPrefix(orgId);
  return (await store.list(prefix))
    .map((key) => key.slice(prefix.length))
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length));
}

/**
 * Organization ids that have anything in the store, pointer or not (a first publish that died
 * before its pointer still leaves objects behind).
 */
export async function listOrganizationIds(store: SnapshotStore): Promise<string[]> {
  const ids = new Set<string>();
  for (const key of await store.list(ORGS_PREFIX)) {
    const id = key.split('/')[1];
    if (id) ids.add(id);
  }
  return [...ids].sort();
}
