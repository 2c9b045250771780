// The builder's side of the publication log (docs/design.md "History as evidence"), on PostgreSQL
// 15 and PGlite with a directory store: a build logs exactly the manifests and state records it
// publishes, in order, each with the SHA-256 of its stored bytes; a state change logs its record;
// retention logs its removals before it deletes; two builders at once make one gapless log; a
// publish killed between its append and its pointer is superseded by the next; an append that
// fails leaves no pointer, and the next publish logs the manifest it left when the builders' key
// signed it; a lost pointer race logs its withdrawal; a backfill logs an existing
// store once; the checkpoints written verify.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrganizations } from '../../../builder/build.ts';
import { PointerConflictError } from '../../../builder/errors.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { publish, publishSnapshot, readCurrentPointer } from '../../../builder/publish.ts';
import { applyRetention } from '../../../builder/retention.ts';
import { serializeResources } from '../../../builder/serialize.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { backfillPublicationLog } from '../../../records/publication-log/backfill.ts';
import { publicationLogOrigin } from '../../../records/publication-log/checkpoint.ts';
import { keepCheckpoints } from '../../../records/publication-log/checkpoint-keeping.ts';
import { latestCheckpoint, verifyStoredCheckpoint, writeCheckpoint } from '../../../records/publication-log/checkpoint-store.ts';
import { type LogEntry, storeKeyOf } from '../../../records/publication-log/log-entry.ts';
import { databasePublicationLog, type PublicationLog } from '../../../records/publication-log/log-store.ts';
import { leafHash, rootOf } from '../../../records/publication-log/merkle.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import { manifestKey, pointerKey } from '../../../snapshot/layout.ts';
import type { Manifest } from '../../../snapshot/manifest.ts';
import { listSnapshotIds } from '../../../snapshot/reader.ts';
import { newSigningKeyPem, signerFromPem } from '../../../snapshot/signing.ts';
import type { SnapshotStore } from '../../../snapshot/store.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { platformBackends } from '../../support/platform-backends.ts';
import { logDatabases } from '../../support/publication-log.ts';
import { sampleBuildContext, seeded } from '../../support/sample-build.ts';
import { until } from '../../support/until.ts';

const platforms = platformBackends();
const logs = logDatabases();
let work: string;
let stores = 0;
const newStore = () => new DirectoryStore(join(work, `store-${++stores}`));
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
const signer = signerFromPem(newSigningKeyPem(), 'test key');
const ORIGIN = publicationLogOrigin('https://cdn.example.com/marquee');

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'marquee-builder-log-'));
});
afterAll(async () => {
  await platforms.close();
  await logs.close();
  await rm(work, { recursive: true, force: true });
});

const entries = async (log: PublicationLog): Promise<LogEntry[]> => (await log.entriesSince(0, 100_000)).map(({ entry }) => entry);

/** Every manifest and state record entry's hash is the SHA-256 of the bytes the store holds under its key. */
async function expectHashesOfStored(store: SnapshotStore, logged: readonly LogEntry[]): Promise<void> {
  for (const entry of logged) {
    if (entry.kind !== 'manifest' && entry.kind !== 'state-record') continue;
    const bytes = await store.get(storeKeyOf(entry)!);
    expect(bytes, storeKeyOf(entry)).toBeDefined();
    expect(entry.hash).toBe(sha256(bytes!));
  }
}

/** A store whose pointer writes fail: a builder killed after its log append, before its pointer. */
function pointerFails(store: SnapshotStore): SnapshotStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'putIfVersion')
        return async (key: string, bytes: Uint8Array, expected: Parameters<SnapshotStore['putIfVersion']>[2]) => {
          if (key.endsWith('/current.json')) throw new Error('killed before the pointer');
          return target.putIfVersion(key, bytes, expected);
        };
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const version = (n: number, at: string, organizationId = ORG) => ({
  organizationId,
  organizationSlug: 'nordic',
  state: 'active' as const,
  trigger: 'manual' as const,
  slugs: {},
  resources: [{ path: '/organization', value: { id: organizationId, version: n } }],
  now: new Date(at),
});

describe.each(platforms.backends)('on $name', (backend) => {
  let db: SqlClient;
  let log: PublicationLog;
  beforeAll(async () => {
    db = await seeded(await backend.open());
    await migrateMarquee(db);
  });

  it('a build logs exactly what it publishes, in order, each leaf with its stored bytes’ SHA-256; a state change logs its record', async () => {
    const fresh = await seeded(await backend.open());
    await migrateMarquee(fresh);
    log = databasePublicationLog(fresh);
    const store = newStore();
    const context = { ...sampleBuildContext(fresh, store), publicationLog: log, concurrency: 1 };
    const results = await buildOrganizations(context, { trigger: 'manual' });
    expect(results.map((r) => r.result)).toEqual(['published', 'published', 'suspended', 'suspended']);
    const logged = await entries(log);
    // Built one at a time: each organization's leaf in the order it was built.
    expect(logged.map((entry) => [entry.kind, 'organizationId' in entry ? entry.organizationId : null])).toEqual(
      results.map((r) => [r.result === 'published' ? 'manifest' : 'state-record', r.id]),
    );
    for (const r of results.filter((r) => r.result === 'published')) expect(logged).toContainEqual(expect.objectContaining({ kind: 'manifest', id: r.snapshotId }));
    await expectHashesOfStored(store, logged);

    // Unchanged: nothing published, nothing logged.
    await buildOrganizations(context, { trigger: 'schedule' });
    expect(await log.size()).toBe(logged.length);

    // A suspension: its state record is logged, and nothing else.
    const nordic = SAMPLE.organizations.nordic.id;
    await fresh.query(`UPDATE organizations SET status = 'suspended' WHERE id = $1`, [nordic]);
    await buildOrganizations(context, { trigger: 'manual', organizationIds: [nordic] });
    const after = await entries(log);
    expect(after.slice(logged.length)).toEqual([expect.objectContaining({ kind: 'state-record', organizationId: nordic, id: expect.stringMatching(/-suspended$/) })]);
    await expectHashesOfStored(store, after);
  });

  it('gc logs its removals, one append per organization, before it deletes them', async () => {
    const store = newStore();
    const publicationLog = databasePublicationLog(db);
    for (let n = 1; n <= 4; n++) await publish(store, { ...toInput(version(n, `2026-11-21T10:00:0${n}Z`)), publicationLog });
    const ids = await listSnapshotIds(store, ORG);
    const before = await publicationLog.size();
    const hashes = new Map<string, string>();
    for (const id of ids) hashes.set(id, sha256((await store.get(manifestKey(ORG, id)))!));
    // Each deletion checks that the log already holds its removal.
    const watched = new Proxy(store, {
      get(target, property) {
        if (property === 'delete')
          return async (key: string) => {
            const removals = (await entries(publicationLog)).filter((entry) => entry.kind === 'removal');
            if (key.includes('/snapshots/')) expect(removals.map((entry) => storeKeyOf(entry))).toContain(key);
            return target.delete(key);
          };
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const report = await applyRetention(watched, { keep: 2, days: 0, now: new Date(Date.now() + 3 * 3_600_000), publicationLog });
    expect(report.manifestsDeleted).toBe(2);
    const removals = (await entries(publicationLog)).slice(before);
    // One append: one instant.
    expect(new Set(removals.map((entry) => entry.at)).size).toBe(1);
    expect(removals).toEqual(
      ids.slice(0, 2).map((id) => expect.objectContaining({ kind: 'removal', organizationId: ORG, removed: 'manifest', reason: 'retention', id, hash: hashes.get(id) })),
    );
    expect(await listSnapshotIds(store, ORG)).toEqual(ids.slice(2));
  });

  it('a publish killed between its append and its pointer is superseded by the next, which names the logged hash', async () => {
    const store = newStore();
    const org = '1b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
    const publicationLog = databasePublicationLog(db);
    await publish(store, { ...toInput(version(1, '2026-11-21T10:00:01Z', org)), publicationLog });
    await expect(publish(pointerFails(store), { ...toInput(version(2, '2026-11-21T10:00:02Z', org)), publicationLog })).rejects.toThrow(/killed before the pointer/);
    const logged = await publicationLog.entriesOf(org);
    expect(logged.map(({ entry }) => entry.kind)).toEqual(['manifest', 'manifest']);
    const killed = logged[1]!.entry;
    expect((await readCurrentPointer(store, org)).pointer?.snapshotId).toBe(logged[0]!.entry.id);
    const next = await publish(store, { ...toInput(version(3, '2026-11-21T10:00:03Z', org)), publicationLog });
    const manifest = JSON.parse((await store.get(manifestKey(org, next.snapshotId!)))!.toString('utf8')) as Manifest;
    expect(manifest.supersedes).toEqual([{ snapshotId: killed.id, hash: killed.hash }]);
    expect((await publicationLog.entriesOf(org)).map(({ entry }) => entry.id)).toEqual([logged[0]!.entry.id, killed.id, next.snapshotId]);
  });

  it('an append that fails fails the publish before its pointer', async () => {
    const store = newStore();
    const org = '2b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
    const broken: PublicationLog = { ...databasePublicationLog(db), append: () => Promise.reject(new Error('the database is away')) };
    await expect(publish(store, { ...toInput(version(1, '2026-11-21T10:00:01Z', org)), publicationLog: broken })).rejects.toThrow('the database is away');
    expect(await store.get(pointerKey(org))).toBeUndefined();
  });

  it('a manifest whose append failed is logged by the next publish, before its own, in one append, when the builders’ key signed it', async () => {
    const store = newStore();
    const org = '8b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
    const publicationLog = databasePublicationLog(db);
    const broken: PublicationLog = { ...publicationLog, append: () => Promise.reject(new Error('the database is away')) };
    const signed = (n: number, at: string) => ({ ...toInput(version(n, at, org)), signer, publicationLog });
    // A first publish that failed at its append: the next one follows its manifest, which no pointer names.
    await expect(publish(store, { ...signed(1, '2026-11-21T10:00:01Z'), publicationLog: broken })).rejects.toThrow('the database is away');
    const [first] = await listSnapshotIds(store, org);
    await publish(store, signed(2, '2026-11-21T10:00:02Z'));
    // One that failed beside a current snapshot: the next one supersedes it.
    await expect(publish(store, { ...signed(3, '2026-11-21T10:00:03Z'), publicationLog: broken })).rejects.toThrow('the database is away');
    const next = await publish(store, signed(4, '2026-11-21T10:00:04Z'));
    const ids = await listSnapshotIds(store, org);
    expect(ids).toHaveLength(4);
    expect(ids[0]).toBe(first);
    const logged = (await publicationLog.entriesOf(org)).map(({ entry }) => entry);
    expect(logged.map((entry) => entry.id)).toEqual(ids);
    // Each late leaf shares its instant with the leaf of the publish that logged it: one append.
    expect([logged[0]!.at, logged[2]!.at]).toEqual([logged[1]!.at, logged[3]!.at]);
    await expectHashesOfStored(store, logged);
    const manifest = JSON.parse((await store.get(manifestKey(org, next.snapshotId!)))!.toString('utf8')) as Manifest;
    expect(manifest.supersedes).toEqual([{ snapshotId: ids[2], hash: logged[2]!.hash }]);

    // Unsigned, or signed by another key: anyone's; named in supersedes all the same, never logged.
    for (const [n, other] of [
      [5, undefined],
      [7, signerFromPem(newSigningKeyPem(), 'another key')],
    ] as const) {
      await expect(publish(store, { ...signed(n, `2026-11-21T10:00:0${n}Z`), signer: other, publicationLog: broken })).rejects.toThrow('the database is away');
      await publish(store, signed(n + 1, `2026-11-21T10:00:0${n + 1}Z`));
    }
    const all = await listSnapshotIds(store, org);
    expect((await publicationLog.entriesOf(org)).map(({ entry }) => entry.id)).toEqual([...ids, all[5], all[7]]);
  });

  it('a suspension logs the newest manifest, where verify begins a suspended chain, when a failed append left it unlogged', async () => {
    const store = newStore();
    const org = '9b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
    const publicationLog = databasePublicationLog(db);
    const broken: PublicationLog = { ...publicationLog, append: () => Promise.reject(new Error('the database is away')) };
    await publish(store, { ...toInput(version(1, '2026-11-21T10:00:01Z', org)), signer, publicationLog });
    await expect(publish(store, { ...toInput(version(2, '2026-11-21T10:00:02Z', org)), signer, publicationLog: broken })).rejects.toThrow('the database is away');
    const suspension = { ...toInput(version(2, '2026-11-21T10:00:03Z', org)), state: 'suspended' as const, objects: [], signer, publicationLog };
    const suspended = await publish(store, suspension);
    expect([suspended.result, suspended.warning]).toEqual(['suspended', undefined]);
    const ids = await listSnapshotIds(store, org);
    expect(ids).toHaveLength(2);
    const logged = (await publicationLog.entriesOf(org)).map(({ entry }) => entry);
    expect(logged.map((entry) => [entry.kind, entry.id])).toEqual([
      ['manifest', ids[0]],
      ['state-record', expect.stringMatching(/-suspended$/)],
      ['manifest', ids[1]],
    ]);
    await expectHashesOfStored(store, logged);
  });

  it('a publish that loses the pointer race logs its manifest’s withdrawal, then deletes it', async () => {
    const store = newStore();
    const org = '3b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
    const publicationLog = databasePublicationLog(db);
    const stale = await readCurrentPointer(store, org);
    await publish(store, { ...toInput(version(1, '2026-11-21T10:00:01Z', org)), publicationLog });
    await expect(publish(store, { ...toInput(version(2, '2026-11-21T10:00:02Z', org)), publicationLog }, stale)).rejects.toThrow(PointerConflictError);
    const logged = (await publicationLog.entriesOf(org)).map(({ entry }) => entry);
    expect(logged.map((entry) => (entry.kind === 'removal' ? `removal:${entry.reason}` : entry.kind))).toEqual(['manifest', 'manifest', 'removal:withdrawn']);
    expect(logged[2]).toMatchObject({ id: logged[1]!.id, hash: logged[1]!.hash, removed: 'manifest' });
    expect(await listSnapshotIds(store, org)).toEqual([logged[0]!.id]);
  });

  it('a reactivation pointing at a manifest again logs it only if the log lacks it (published before the log)', async () => {
    const store = newStore();
    const publicationLog = databasePublicationLog(db);
    const [logged, older] = ['6b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b', '7b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b'];
    const suspended = (at: string, org: string) => ({ ...toInput(version(1, at, org)), state: 'suspended' as const, objects: [] });
    // One organization published with the log all along, one before the log existed.
    await publish(store, { ...toInput(version(1, '2026-11-21T10:00:01Z', logged)), publicationLog });
    await publish(store, { ...suspended('2026-11-21T10:00:02Z', logged), publicationLog });
    await publishSnapshot(store, version(1, '2026-11-21T10:00:01Z', older));
    await publishSnapshot(store, { ...version(1, '2026-11-21T10:00:02Z', older), state: 'suspended', resources: [] });
    for (const org of [logged, older]) await publish(store, { ...toInput(version(1, '2026-11-21T10:00:03Z', org)), publicationLog });
    const kinds = async (org: string) => (await publicationLog.entriesOf(org)).map(({ entry }) => entry.kind);
    expect(await kinds(logged)).toEqual(['manifest', 'state-record', 'state-record']);
    expect(await kinds(older)).toEqual(['manifest', 'state-record']);
    const pointer = (await readCurrentPointer(store, older)).pointer!;
    expect((await publicationLog.entriesOf(older))[0]!.entry).toMatchObject({ id: pointer.snapshotId, hash: pointer.manifestHash });
  });

  it('a backfill logs what the store held before the log, once, oldest first', async () => {
    const store = newStore();
    const org = '4b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
    const publicationLog = databasePublicationLog(db);
    await publishSnapshot(store, version(1, '2026-11-21T10:00:01Z', org));
    await publishSnapshot(store, { ...version(1, '2026-11-21T10:00:02Z', org), state: 'suspended', resources: [] });
    await publishSnapshot(store, version(2, '2026-11-21T10:00:03Z', org));
    expect(await backfillPublicationLog(store, publicationLog)).toMatchObject({ manifests: 2, stateRecords: 2 });
    const logged = (await publicationLog.entriesOf(org)).map(({ entry }) => entry);
    expect(logged.map((entry) => entry.kind)).toEqual(['manifest', 'state-record', 'manifest', 'state-record']);
    expect(logged.map((entry) => entry.id).slice(1)).toEqual([
      expect.stringMatching(/^20261121T100002000Z-suspended$/),
      expect.stringMatching(/^20261121T100003000Z-/),
      expect.stringMatching(/^20261121T100003000Z-active$/),
    ]);
    await expectHashesOfStored(store, logged);
    expect(await backfillPublicationLog(store, publicationLog)).toMatchObject({ manifests: 0, stateRecords: 0 });
    expect(await publicationLog.entriesOf(org)).toHaveLength(4);
  });

  it('checkpoints: written once per size, signed, and kept within the interval while the log grows', async () => {
    const store = newStore();
    const publicationLog = databasePublicationLog(db);
    const first = await writeCheckpoint(store, publicationLog, signer, ORIGIN);
    expect(first!.key).toMatch(/^publication-log\/checkpoints\/\d{12}\.txt$/);
    expect(await writeCheckpoint(store, publicationLog, signer, ORIGIN)).toEqual(first);
    const verified = await verifyStoredCheckpoint(store, (await latestCheckpoint(store))!, ORIGIN);
    expect(verified).toMatchObject({ size: await publicationLog.size(), keyId: signer.keyId, origin: ORIGIN });
    await expect(writeCheckpoint(store, publicationLog, signer, 'other.example/publication-log')).rejects.toThrow(/PUBLICATION_LOG_ORIGIN/);

    const errors: unknown[] = [];
    const keeping = keepCheckpoints({ store, log: publicationLog, signer, origin: ORIGIN, onError: (error) => errors.push(error), intervalMs: 20 });
    try {
      await publish(store, { ...toInput(version(9, '2026-11-21T11:00:00Z', '5b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b')), publicationLog });
      const grown = await publicationLog.size();
      const kept = await until('a checkpoint of the grown log', async () => {
        const latest = await latestCheckpoint(store);
        return latest !== undefined && latest.size >= grown && latest;
      });
      expect(await verifyStoredCheckpoint(store, kept, ORIGIN)).toMatchObject({ rootHash: await publicationLog.root(kept.size) });
    } finally {
      await keeping.stop();
    }
    expect(errors).toEqual([]);
  });
});

describe('two builders publishing at once', () => {
  it('make one gapless log, each manifest logged once, on PostgreSQL', async () => {
    // Two connections to one database: two builders' processes.
    const [first, second] = await logs.backends.find((b) => b.name === 'PostgreSQL')!.open(2);
    const [a, b] = [databasePublicationLog(first!), databasePublicationLog(second!)];
    const store = newStore();
    const organizations = Array.from({ length: 16 }, (_, n) => `${n.toString(16).padStart(8, '0')}-6f1a-4d7e-9a1b-2c3d4e5f6a7b`);
    // Each builder publishes three versions of every organization of its half, at once.
    await Promise.all(
      [a, b].map((publicationLog, builder) =>
        Promise.all(
          organizations
            .filter((_, n) => n % 2 === builder)
            .map(async (org) => {
              for (let n = 1; n <= 3; n++) await publish(store, { ...toInput(version(n, `2026-11-21T10:00:0${n}Z`, org)), publicationLog });
            }),
        ),
      ),
    );
    const leaves = await a.entriesSince(0, 100_000);
    expect(leaves.map((leaf) => leaf.seq)).toEqual(leaves.map((_, n) => n));
    expect(leaves).toHaveLength(48);
    expect(new Set(leaves.map((leaf) => leaf.entry.id)).size).toBe(48);
    expect(await b.root()).toEqual(rootOf(leaves.map((leaf) => leafHash(leaf.leaf))));
    await expectHashesOfStored(
      store,
      leaves.map((leaf) => leaf.entry),
    );
  });
});

/** publishSnapshot's input as publish takes it. */
function toInput(input: ReturnType<typeof version>) {
  const { resources, ...rest } = input;
  return { ...rest, objects: serializeResources(resources), builderVersion: 'test', durationMs: 0 };
}
