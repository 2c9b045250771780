// The chain and its verification in memory (builder/history/verify-history.ts, builder/publish.ts):
// links and signatures as published, each kind of break named by its snapshot, a pruned beginning,
// a history from before signing, a publish that lost its pointer write leaving no second head; and
// what is missing: a contentHash that is not its resources' hash, a history expected and absent.
import { describe, expect, it } from 'vitest';
import { trustsSnapshot, verifyOrganization, verifyStore } from '../../../../builder/history/verify-history.ts';
import { PointerConflictError } from '../../../../builder/errors.ts';
import { publishSnapshot } from '../../../../builder/publish.ts';
import { canonicalJson } from '../../../../snapshot/canonical.ts';
import { sha256Hex } from '../../../../snapshot/hash.ts';
import { manifestKey, manifestPrefix, pointerKey } from '../../../../snapshot/layout.ts';
import { listSnapshotIds } from '../../../../snapshot/reader.ts';
import { newSigningKeyPem, signerFromPem, signingKeyRecordKey } from '../../../../snapshot/signing.ts';
import { MemoryStore } from '../../../../snapshot/stores/memory.ts';

const ORG = '0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11';
const signer = signerFromPem(newSigningKeyPem(), 'test key');
const at = (minute: number) => new Date(Date.UTC(2026, 10, 21, 10, minute));
const input = (name: string, minute: number, state: 'active' | 'suspended' = 'active') => ({
  organizationId: ORG,
  organizationSlug: 'nordic',
  trigger: 'change' as const,
  state,
  resources: state === 'active' ? [{ path: '/organization', value: { id: ORG, name } }] : [],
  slugs: {},
  now: at(minute),
  signer,
});

/** A store with a history of four snapshots, a suspension between the second and third and another after the fourth; their ids, oldest first. */
async function history(): Promise<{ store: MemoryStore; ids: string[] }> {
  const store = new MemoryStore();
  await publishSnapshot(store, input('A', 0));
  await publishSnapshot(store, input('B', 1));
  await publishSnapshot(store, input('B', 2, 'suspended'));
  await publishSnapshot(store, input('C', 3));
  await publishSnapshot(store, input('D', 4));
  await publishSnapshot(store, input('D', 5, 'suspended'));
  await publishSnapshot(store, input('D', 6));
  return { store, ids: await listSnapshotIds(store, ORG) };
}

const json = (store: MemoryStore, key: string) => JSON.parse(store.entries.get(key)!.bytes.toString('utf8'));

describe('a chained, signed history', () => {
  it('links each manifest to the bytes of the one before and signs it; verifies back to the first', async () => {
    const { store, ids } = await history();
    expect(ids).toHaveLength(4);
    const [first, second] = [json(store, manifestKey(ORG, ids[0]!)), json(store, manifestKey(ORG, ids[1]!))];
    expect(first.previous).toBeNull();
    expect(second.previous).toBe(sha256Hex(store.entries.get(manifestKey(ORG, ids[0]!))!.bytes));
    expect(second.signature.keyId).toBe(signer.keyId);
    expect(store.entries.has(signingKeyRecordKey(signer.keyId))).toBe(true);
    const verification = await verifyOrganization(store, ORG);
    expect(verification).toMatchObject({ ok: true, beginning: 'first', snapshots: 4, stateRecords: 4, unsigned: 0, firstSnapshotId: ids[0] });
    expect(ids.every((id) => trustsSnapshot(verification, id))).toBe(true);
  });

  it('names the snapshot at each break, and trusts only what comes after it', async () => {
    const cases: Array<[string, (store: MemoryStore, ids: string[]) => Promise<void> | void, (ids: string[]) => string, string]> = [
      [
        'trigger edited',
        (store, ids) => store.put(manifestKey(ORG, ids[1]!), Buffer.from(canonicalJson({ ...json(store, manifestKey(ORG, ids[1]!)), trigger: 'manual' }))),
        (ids) => ids[1]!,
        'manifest-edited',
      ],
      ['removed from the middle', (store, ids) => store.delete(manifestKey(ORG, ids[1]!)), (ids) => ids[1]!, 'manifest-missing'],
      [
        'signed by another key',
        (store, ids) => {
          const forged = signerFromPem(newSigningKeyPem(), 'forger').sign(json(store, manifestKey(ORG, ids[3]!)));
          const bytes = Buffer.from(canonicalJson(forged));
          store.entries.get(manifestKey(ORG, ids[3]!))!.bytes = bytes;
          const pointer = json(store, pointerKey(ORG));
          store.entries.get(pointerKey(ORG))!.bytes = Buffer.from(canonicalJson({ ...pointer, manifestHash: sha256Hex(bytes) }));
        },
        (ids) => ids[3]!,
        'unknown-key',
      ],
      [
        'pointer moved back',
        (store, ids) => {
          const pointer = json(store, pointerKey(ORG));
          const manifestHash = sha256Hex(store.entries.get(manifestKey(ORG, ids[2]!))!.bytes);
          store.entries.get(pointerKey(ORG))!.bytes = Buffer.from(canonicalJson({ ...pointer, snapshotId: ids[2], manifestHash }));
        },
        (ids) => ids[2]!,
        'pointer-moved-back',
      ],
      [
        'state record removed',
        (store) => store.delete([...store.entries.keys()].find((key) => key.endsWith('T100300000Z-active.json'))!),
        () => 'states/20261121T100500000Z-suspended',
        'state-record-missing',
      ],
    ];
    for (const [name, tamper, brokenAt, kind] of cases) {
      const { store, ids } = await history();
      await tamper(store, ids);
      const verification = await verifyOrganization(store, ORG);
      expect(verification.ok, name).toBe(false);
      expect(verification.break, name).toMatchObject({ snapshotId: brokenAt(ids), kind });
    }
    const { store, ids } = await history();
    await store.delete(manifestKey(ORG, ids[1]!));
    const verification = await verifyOrganization(store, ORG);
    expect(ids.map((id) => trustsSnapshot(verification, id))).toEqual([false, false, true, true]);
  });

  it('says where retention pruned the beginning, and where history from before signing begins', async () => {
    const { store, ids } = await history();
    await store.delete(manifestKey(ORG, ids[0]!));
    expect(await verifyOrganization(store, ORG)).toMatchObject({ ok: true, beginning: 'pruned', firstSnapshotId: ids[1], snapshots: 3 });

    const old = new MemoryStore();
    await publishSnapshot(old, { ...input('A', 0), signer: undefined });
    const [unsignedId] = await listSnapshotIds(old, ORG);
    // As manifests were before this release: no link, no signature.
    const { previous: _previous, ...preRelease } = json(old, manifestKey(ORG, unsignedId!));
    const bytes = Buffer.from(canonicalJson(preRelease));
    await old.put(manifestKey(ORG, unsignedId!), bytes);
    old.entries.get(pointerKey(ORG))!.bytes = Buffer.from(canonicalJson({ ...json(old, pointerKey(ORG)), manifestHash: sha256Hex(bytes) }));
    await publishSnapshot(old, input('B', 1));
    expect(await verifyOrganization(old, ORG)).toMatchObject({ ok: true, beginning: 'unsigned', unsignedBefore: unsignedId, snapshots: 1 });
    // An unsigned manifest published after signing began is a break.
    await publishSnapshot(old, { ...input('C', 2), signer: undefined });
    expect((await verifyOrganization(old, ORG)).break).toMatchObject({ kind: 'unsigned' });
  });

  it('leaves no second head when a publish loses its pointer write', async () => {
    const store = new MemoryStore();
    await publishSnapshot(store, input('A', 0));
    const putIfVersion = store.putIfVersion.bind(store);
    let raced = false;
    // Another builder publishes after this one wrote its manifest, before its pointer.
    store.putIfVersion = async (key, bytes, expected) => {
      if (!raced && key === pointerKey(ORG)) {
        raced = true;
        await publishSnapshot(store, input('C', 2));
      }
      return putIfVersion(key, bytes, expected);
    };
    await expect(publishSnapshot(store, input('B', 1))).rejects.toBeInstanceOf(PointerConflictError);
    expect(await listSnapshotIds(store, ORG)).toHaveLength(2);
    expect(await verifyOrganization(store, ORG)).toMatchObject({ ok: true, snapshots: 2 });
  });

  it('knows a publish killed between its manifest and its pointer once the next publish names it, signed; never one further on, nor an edited one', async () => {
    const store = new MemoryStore();
    await publishSnapshot(store, input('A', 0));
    const putIfVersion = store.putIfVersion.bind(store);
    let killed = true;
    // Killed after its manifest, before its pointer.
    store.putIfVersion = async (key, bytes, expected) => {
      if (killed && key === pointerKey(ORG)) throw new Error('killed');
      return putIfVersion(key, bytes, expected);
    };
    await expect(publishSnapshot(store, input('B', 1))).rejects.toThrow('killed');
    killed = false;
    const [first, left] = await listSnapshotIds(store, ORG);
    // Until a publish says otherwise, it looks like a pointer moved back: the store alone cannot tell.
    expect(await verifyOrganization(store, ORG)).toMatchObject({ ok: false, break: { snapshotId: first, kind: 'pointer-moved-back' } });

    await publishSnapshot(store, input('C', 2));
    const ids = await listSnapshotIds(store, ORG);
    const next = json(store, manifestKey(ORG, ids[2]!));
    expect(next.previous).toBe(sha256Hex(store.entries.get(manifestKey(ORG, first!))!.bytes));
    expect(next.supersedes).toEqual([{ snapshotId: left, hash: sha256Hex(store.entries.get(manifestKey(ORG, left!))!.bytes) }]);
    const verification = await verifyOrganization(store, ORG);
    expect(verification).toMatchObject({ ok: true, snapshots: 2, neverCurrent: [left] });
    expect(trustsSnapshot(verification, left!)).toBe(false);
    // A later publish names nothing again: only a manifest forked from the current one is vouched for.
    await publishSnapshot(store, input('D', 3));
    expect(json(store, manifestKey(ORG, (await listSnapshotIds(store, ORG)).at(-1)!)).supersedes).toBeUndefined();
    expect(await verifyOrganization(store, ORG)).toMatchObject({ ok: true, neverCurrent: [left] });

    store.entries.get(manifestKey(ORG, left!))!.bytes = Buffer.from(canonicalJson({ ...json(store, manifestKey(ORG, left!)), trigger: 'manual' }));
    expect(await verifyOrganization(store, ORG)).toMatchObject({ ok: false, break: { snapshotId: left, kind: 'manifest-edited' } });
  });

  it('vouches for a killed publish when the content comes back as it was: the same content is published once more, then nothing', async () => {
    const store = new MemoryStore();
    await publishSnapshot(store, input('A', 0));
    const putIfVersion = store.putIfVersion.bind(store);
    let killed = true;
    store.putIfVersion = async (key, bytes, expected) => {
      if (killed && key === pointerKey(ORG)) throw new Error('killed');
      return putIfVersion(key, bytes, expected);
    };
    await expect(publishSnapshot(store, input('B', 1))).rejects.toThrow('killed');
    killed = false;
    const left = (await listSnapshotIds(store, ORG))[1];
    // The change was undone: the rebuild has A's content, which the current snapshot has.
    expect((await publishSnapshot(store, input('A', 2))).result).toBe('published');
    expect(await verifyOrganization(store, ORG)).toMatchObject({ ok: true, snapshots: 2, neverCurrent: [left] });
    expect((await publishSnapshot(store, input('A', 3))).result).toBe('unchanged');
  });

  it('vouches for the manifest of a publish that lost the pointer race and stopped before withdrawing it', async () => {
    const store = new MemoryStore();
    await publishSnapshot(store, input('A', 0));
    const putIfVersion = store.putIfVersion.bind(store);
    const remove = store.delete.bind(store);
    let raced = false;
    // Another builder publishes just before this one writes its manifest (too early to see it and
    // name it), and wins the pointer; this one is killed while withdrawing its manifest.
    store.putIfVersion = async (key, bytes, expected) => {
      if (!raced && key.startsWith(manifestPrefix(ORG))) {
        raced = true;
        await publishSnapshot(store, input('C', 2));
      }
      return putIfVersion(key, bytes, expected);
    };
    store.delete = async () => {
      throw new Error('killed');
    };
    await expect(publishSnapshot(store, input('B', 1))).rejects.toThrow('killed');
    store.delete = remove;
    const [, loser] = await listSnapshotIds(store, ORG);
    expect(json(store, manifestKey(ORG, loser!)).organizationId).toBe(ORG);
    // Forked from the winner's predecessor: until a publish names it, nothing vouches for it.
    expect(await verifyOrganization(store, ORG)).toMatchObject({ ok: false, break: { snapshotId: loser, kind: 'outside-chain' } });
    await publishSnapshot(store, input('D', 3));
    expect(await verifyOrganization(store, ORG)).toMatchObject({ ok: true, snapshots: 3, neverCurrent: [loser] });
  });

  it('vouches for no manifest of a pointer moved back by two publishes', async () => {
    const { store, ids } = await history();
    // The pointer moved back to the second snapshot: the third and fourth were current once.
    const second = store.entries.get(manifestKey(ORG, ids[1]!))!.bytes;
    const pointer = json(store, pointerKey(ORG));
    store.entries.get(pointerKey(ORG))!.bytes = Buffer.from(canonicalJson({ ...pointer, snapshotId: ids[1], manifestHash: sha256Hex(second) }));
    await publishSnapshot(store, input('E', 9));
    const verification = await verifyOrganization(store, ORG);
    expect(verification.ok).toBe(false);
    expect(verification.break).toMatchObject({ snapshotId: ids[3], kind: 'outside-chain' });
  });
});

describe('what is missing', () => {
  const says = 'the test records a publication of it into this store';

  it('recomputes contentHash: resources edited and signed again by a key the forger published is a break at that snapshot', async () => {
    const { store, ids } = await history();
    const forger = signerFromPem(newSigningKeyPem(), 'forger');
    await store.put(signingKeyRecordKey(forger.keyId), Buffer.from(canonicalJson(forger.record(at(0)))));
    const { signature: _signature, ...manifest } = json(store, manifestKey(ORG, ids[3]!));
    // The object of the first snapshot, present and whole: only the manifest's claim is false.
    const edited = forger.sign({ ...manifest, resources: { ...manifest.resources, '/organization': json(store, manifestKey(ORG, ids[0]!)).resources['/organization'] } });
    const bytes = Buffer.from(canonicalJson(edited));
    store.entries.get(manifestKey(ORG, ids[3]!))!.bytes = bytes;
    store.entries.get(pointerKey(ORG))!.bytes = Buffer.from(canonicalJson({ ...json(store, pointerKey(ORG)), manifestHash: sha256Hex(bytes) }));
    expect(await verifyOrganization(store, ORG)).toMatchObject({ ok: false, break: { snapshotId: ids[3], kind: 'content-hash-mismatch' } });
  });

  it('an organization published into the store with nothing there is a break of its own; one never published is not', async () => {
    const { store } = await history();
    for (const key of await store.list(`orgs/${ORG}/`)) await store.delete(key);
    expect(await verifyOrganization(store, ORG)).toMatchObject({ ok: true, beginning: 'empty' });
    expect(await verifyOrganization(store, ORG, undefined, [])).toMatchObject({ ok: true, beginning: 'empty' });
    const verification = await verifyOrganization(store, ORG, undefined, [{ says }]);
    expect(verification).toMatchObject({ ok: false, break: { snapshotId: 'current', kind: 'history-missing', detail: expect.stringContaining(says) } });
  });

  it('an expected snapshot must be on the chain with its hash: a newest manifest removed and the pointer moved back is caught', async () => {
    const { store, ids } = await history();
    const hashOf = (id: string) => sha256Hex(store.entries.get(manifestKey(ORG, id))!.bytes);
    const expected = ids.map((snapshotId) => ({ says, snapshot: { snapshotId, manifestHash: hashOf(snapshotId) } }));
    expect(await verifyOrganization(store, ORG, undefined, expected)).toMatchObject({ ok: true, snapshots: 4 });
    expect((await verifyOrganization(store, ORG, undefined, [{ says, snapshot: { snapshotId: ids[2]!, manifestHash: '0'.repeat(64) } }])).break).toMatchObject({
      snapshotId: ids[2],
      kind: 'manifest-edited',
    });
    const pointer = json(store, pointerKey(ORG));
    store.entries.get(pointerKey(ORG))!.bytes = Buffer.from(canonicalJson({ ...pointer, snapshotId: ids[2], manifestHash: hashOf(ids[2]!) }));
    await store.delete(manifestKey(ORG, ids[3]!));
    // The store alone cannot tell.
    expect(await verifyOrganization(store, ORG)).toMatchObject({ ok: true, snapshots: 3 });
    expect(await verifyOrganization(store, ORG, undefined, expected)).toMatchObject({ ok: false, break: { snapshotId: ids[3], kind: 'publication-missing' } });
  });

  it('verifyStore checks every organization expected, and refuses an empty store', async () => {
    const { store } = await history();
    const other = '5b6d1c2e-7d3f-4c55-9a1e-2f6b8c0d4e12';
    const never = '6c7e1c2e-7d3f-4c55-9a1e-2f6b8c0d4e13';
    const verification = await verifyStore(
      store,
      new Map([
        [other, [{ says }]],
        [never, []],
      ]),
    );
    expect(verification.ok).toBe(false);
    expect(verification.organizations.map(({ organizationId, ok, break: found }) => [organizationId, ok, found?.kind])).toEqual([
      [ORG, true, undefined],
      [other, false, 'history-missing'],
      [never, true, undefined],
    ]);
    await expect(verifyStore(new MemoryStore())).rejects.toThrow(/holds no organization's history/);
    await expect(verifyStore(new MemoryStore(), new Map([[other, [{ says }]]]))).rejects.toThrow(`yet organization ${other} was published into it (${says})`);
    await expect(
      verifyStore(
        new MemoryStore(),
        new Map([
          [other, [{ says }]],
          [ORG, [{ says }]],
        ]),
      ),
    ).rejects.toThrow(`yet 2 organizations were published into it (of ${other}, ${says})`);
  });
});
