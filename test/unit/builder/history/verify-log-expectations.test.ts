// What verify does with the publication log's expectations in memory (builder/history/verify-history.ts):
// a log rewritten is `log-rewritten`, named by leaf, and is never taken for a publication (nor for
// a history missing); and expectations read before a publish or a removal logged since (a live
// builder beside verify) are read again (`again`, once) before `unlogged` or `publication-missing`
// is reported, which then stands only if it still holds.
import { describe, expect, it } from 'vitest';
import { type Expectation, verifyOrganization, verifyStore } from '../../../../builder/history/verify-history.ts';
import { publishSnapshot } from '../../../../builder/publish.ts';
import { sha256Hex } from '../../../../snapshot/hash.ts';
import { manifestKey, newSnapshotId, objectKey, stateRecordName } from '../../../../snapshot/layout.ts';
import { listSnapshotIds } from '../../../../snapshot/reader.ts';
import { newSigningKeyPem, signerFromPem } from '../../../../snapshot/signing.ts';
import { listStateMarks } from '../../../../snapshot/state-records.ts';
import { MemoryStore } from '../../../../snapshot/stores/memory.ts';

const ORG = '0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11';
const signer = signerFromPem(newSigningKeyPem(), 'test key');
const at = (minute: number) => new Date(Date.UTC(2026, 10, 21, 10, minute));
const publishAt = (store: MemoryStore, name: string, minute: number, state: 'active' | 'suspended' = 'active') =>
  publishSnapshot(store, {
    organizationId: ORG,
    organizationSlug: 'nordic',
    trigger: 'change',
    state,
    resources: state === 'active' ? [{ path: '/organization', value: { id: ORG, name } }] : [],
    slugs: {},
    now: at(minute),
    signer,
  });

/** Two snapshots and a suspension with its state record; what the log says of them, as logged-publications.ts says it. */
async function published() {
  const store = new MemoryStore();
  await publishAt(store, 'A', 0);
  await publishAt(store, 'B', 1);
  await publishAt(store, 'B', 2, 'suspended');
  const ids = await listSnapshotIds(store, ORG);
  const [mark] = await listStateMarks(store, ORG);
  const hashOf = (key: string) => sha256Hex(store.entries.get(key)!.bytes);
  // As logged: a manifest removed later keeps the hash its publication was logged with.
  const logged = new Map(ids.map((id) => [id, hashOf(manifestKey(ORG, id))]));
  const logSays = (manifests: readonly string[], again?: Expectation['again']): Expectation[] => [
    ...manifests.map((snapshotId) => ({
      says: `the log records snapshot ${snapshotId}`,
      snapshot: { snapshotId, manifestHash: logged.get(snapshotId) ?? hashOf(manifestKey(ORG, snapshotId)) },
      again,
    })),
    { says: 'the log records every manifest since its first entry', logged: { since: at(0), manifests: new Set(manifests) }, again },
  ];
  return { store, ids, stateRecord: { name: stateRecordName(mark!.key), hash: hashOf(mark!.key) }, logSays };
}

/** A source read again: counts its reads, answers `now`. */
function readAgain(now: () => Expectation[]) {
  const source = {
    reads: 0,
    again: async () => {
      source.reads += 1;
      return now();
    },
  };
  return source;
}

const rewritten: Expectation = { says: 'the publication log was rewritten or forked: leaf 4 is missing: leaf 5 follows leaf 3', rewritten: { leaf: 4 } };

describe('a publication log rewritten', () => {
  it('is log-rewritten, named by its leaf, with what was found', async () => {
    const { store, ids, logSays } = await published();
    const verification = await verifyOrganization(store, ORG, undefined, [...logSays(ids), rewritten]);
    expect(verification).toMatchObject({ ok: false, break: { snapshotId: 'publication-log/4', kind: 'log-rewritten', detail: rewritten.says } });
    // The same history, the log whole: verified.
    expect(await verifyOrganization(store, ORG, undefined, logSays(ids))).toMatchObject({ ok: true });
  });

  it("comes after the store's own breaks, which the log does not change", async () => {
    const { store, ids, logSays } = await published();
    const manifest = JSON.parse(store.entries.get(manifestKey(ORG, ids[1]!))!.bytes.toString('utf8'));
    const object = Object.values(manifest.resources as Record<string, string>)[0]!;
    store.entries.get(objectKey(ORG, object))!.bytes = Buffer.from('edited');
    expect((await verifyOrganization(store, ORG, undefined, [...logSays(ids), rewritten])).break).toMatchObject({ snapshotId: ids[1], kind: 'object-edited' });
  });

  it('says nothing was published: an organization with nothing in the store is not history-missing for it, nor a store refused in its name', async () => {
    const store = new MemoryStore();
    expect(await verifyOrganization(store, ORG, undefined, [rewritten])).toMatchObject({ ok: false, break: { kind: 'log-rewritten' } });
    await expect(verifyStore(store, new Map([[ORG, [rewritten]]]))).rejects.toThrow(/holds no organization's history \(nothing under orgs\/\); is SNAPSHOT_STORE/);
  });
});

describe('expectations read before a publish or a removal logged since', () => {
  it('a manifest published since is read again, and is no break; one the log still does not know is unlogged', async () => {
    const { store, logSays } = await published();
    const before = await listSnapshotIds(store, ORG);
    // What the log said when verify read it, before this organization's turn; then a publish, logged.
    await publishAt(store, 'C', 3);
    const ids = await listSnapshotIds(store, ORG);
    const source = readAgain(() => logSays(ids));
    expect(await verifyOrganization(store, ORG, undefined, logSays(before, source.again))).toMatchObject({ ok: true, snapshots: 3 });
    expect(source.reads).toBe(1);
    // Without a way to read it again, the same stale expectations are a break: what the reading is for.
    expect((await verifyOrganization(store, ORG, undefined, logSays(before))).break).toMatchObject({ snapshotId: ids[2], kind: 'unlogged' });
    // Read again, and still unknown to the log: written around it.
    const still = readAgain(() => logSays(before));
    expect((await verifyOrganization(store, ORG, undefined, logSays(before, still.again))).break).toMatchObject({ snapshotId: ids[2], kind: 'unlogged' });
    expect(still.reads).toBe(1);
  });

  it('reading again excuses, never accuses: what was logged after the history was read from the store is left to the next verification', async () => {
    const { store, logSays } = await published();
    const before = await listSnapshotIds(store, ORG);
    await publishAt(store, 'C', 3);
    const ids = await listSnapshotIds(store, ORG);
    // Read again, the log also knows a snapshot published after this organization's chain was read: not in what verify read.
    const newer = newSnapshotId(at(4), 'a'.repeat(64));
    const source = readAgain(() => [...logSays(ids), { says: `the log records snapshot ${newer}`, snapshot: { snapshotId: newer, manifestHash: 'a'.repeat(64) } }]);
    expect(await verifyOrganization(store, ORG, undefined, logSays(before, source.again))).toMatchObject({ ok: true, snapshots: 3 });
    // Expected from the first read, it would be publication-missing.
    const atFirst = [...logSays(ids), { says: `the log records snapshot ${newer}`, snapshot: { snapshotId: newer, manifestHash: 'a'.repeat(64) } }];
    expect((await verifyOrganization(store, ORG, undefined, atFirst)).break).toMatchObject({ snapshotId: newer, kind: 'publication-missing' });
  });

  it('a manifest removed since, its removal logged, is read again and no break; one removed unlogged is publication-missing', async () => {
    const { store, ids, logSays } = await published();
    // Retention's order: the removal logged, then the oldest manifest deleted.
    store.entries.delete(manifestKey(ORG, ids[0]!));
    const source = readAgain(() => logSays(ids.slice(1)));
    expect(await verifyOrganization(store, ORG, undefined, logSays(ids, source.again))).toMatchObject({ ok: true, beginning: 'pruned' });
    expect(source.reads).toBe(1);
    const still = readAgain(() => logSays(ids));
    expect((await verifyOrganization(store, ORG, undefined, logSays(ids, still.again))).break).toMatchObject({ snapshotId: ids[0], kind: 'publication-missing' });
  });

  it('a state record removed since is read again too; the database’s expectations are kept as they were', async () => {
    const { store, ids, stateRecord, logSays } = await published();
    const recordKey = (await listStateMarks(store, ORG))[0]!.key;
    store.entries.delete(recordKey);
    const database: Expectation = { says: 'the platform database records a build of it into this store' };
    const expecting = (again?: Expectation['again']): Expectation[] => [database, ...logSays(ids, again), { says: 'the log records the state record', stateRecord, again }];
    const source = readAgain(() => logSays(ids));
    expect(await verifyOrganization(store, ORG, undefined, expecting(source.again))).toMatchObject({ ok: true });
    const still = readAgain(() => expecting().slice(1));
    expect((await verifyOrganization(store, ORG, undefined, expecting(still.again))).break).toMatchObject({
      snapshotId: `states/${stateRecord.name}`,
      kind: 'publication-missing',
    });
  });

  it('reads again once, and never for a break a later publication cannot explain', async () => {
    const { store, ids, logSays } = await published();
    // A manifest the log records with another hash: the bytes logged are not these, whatever is logged later.
    const source = readAgain(() => logSays(ids));
    const edited = logSays(ids, source.again).map((expectation) =>
      expectation.snapshot?.snapshotId === ids[0] ? { ...expectation, snapshot: { snapshotId: ids[0]!, manifestHash: '0'.repeat(64) } } : expectation,
    );
    expect((await verifyOrganization(store, ORG, undefined, edited)).break).toMatchObject({ snapshotId: ids[0], kind: 'manifest-edited' });
    expect(source.reads).toBe(0);
  });

  it('a source that cannot be read again leaves the break as found, saying so', async () => {
    const { store, logSays } = await published();
    const before = await listSnapshotIds(store, ORG);
    await publishAt(store, 'C', 3);
    const gone = async (): Promise<Expectation[]> => {
      throw new Error('the database is away');
    };
    expect((await verifyOrganization(store, ORG, undefined, logSays(before, gone))).break).toMatchObject({
      kind: 'unlogged',
      detail: expect.stringMatching(/\(not confirmed: its source could not be read again: the database is away\)$/),
    });
  });
});
