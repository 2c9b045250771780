import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { publishSnapshot } from '../../../builder/publish.ts';
import { applyRetention } from '../../../builder/retention.ts';
import { objectOfName, objectPrefix } from '../../../snapshot/layout.ts';
import { listSnapshotIds, readManifest, readPointer } from '../../../snapshot/reader.ts';
import { DirectoryStore, TEMP_SUFFIX } from '../../../snapshot/stores/directory.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { expectCodedForms, resourcesWithLargeOnes } from '../../support/coded-forms.ts';
import { CrashingStore } from '../../support/faulty-store.ts';
import { readWholeSnapshot } from '../../support/snapshot-integrity.ts';

const ORG = '0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11';
const HOURS_LATER = new Date(Date.now() + 3 * 3_600_000);
const version = (n: number, at: string) => ({
  organizationId: ORG,
  organizationSlug: 'nordic',
  state: 'active' as const,
  trigger: 'manual' as const,
  slugs: {},
  resources: [
    { path: '/organization', value: { id: ORG, version: n } },
    { path: '/team', value: [] },
  ],
  now: new Date(at),
});

describe('applyRetention', () => {
  it('keeps the newest N snapshots and every object they name; the current snapshot stays whole', async () => {
    const store = new MemoryStore();
    for (let n = 1; n <= 4; n++) await publishSnapshot(store, version(n, `2026-11-21T10:00:0${n}Z`));
    const ids = await listSnapshotIds(store, ORG);
    const report = await applyRetention(store, { keep: 2, days: 0, now: HOURS_LATER });
    expect(report).toMatchObject({ organizations: 1, manifestsDeleted: 2, objectsDeleted: 2, objectsSpared: 0 });
    expect(await listSnapshotIds(store, ORG)).toEqual(ids.slice(2));
    expect((await readWholeSnapshot(store, ORG)).resources['/organization']).toEqual({ id: ORG, version: 4 });
    expect(await store.list(objectPrefix(ORG))).toHaveLength(3); // two /organization versions and the shared []
  });

  it('spares the objects of a publish under way, whose manifest is not written yet', async () => {
    const store = new MemoryStore();
    await publishSnapshot(store, version(1, '2026-11-21T10:00:00Z'));
    // A builder that has written its new object and not yet its manifest (crash before write 2).
    await publishSnapshot(new CrashingStore(store, 1), version(2, '2026-11-21T10:00:01Z')).catch(() => undefined);
    const report = await applyRetention(store, { keep: 1, days: 0 });
    expect(report).toMatchObject({ objectsDeleted: 0, objectsSpared: 1 });
    // The publish completes after gc: its snapshot is whole.
    await publishSnapshot(store, version(2, '2026-11-21T10:00:01Z'));
    expect((await readWholeSnapshot(store, ORG)).resources['/organization']).toEqual({ id: ORG, version: 2 });
    // Hours later, the superseded object goes.
    expect(await applyRetention(store, { keep: 1, days: 0, now: HOURS_LATER })).toMatchObject({ manifestsDeleted: 1, objectsDeleted: 1 });
  });

  it("deletes an unreferenced object's coded forms with it and spares them with it, counting each object once", async () => {
    const store = new MemoryStore();
    await publishSnapshot(store, { ...version(1, '2026-11-21T10:00:00Z'), resources: resourcesWithLargeOnes(ORG, 'first'), codings: ['br', 'gzip'] });
    const firstKeys = await store.list(objectPrefix(ORG));
    await publishSnapshot(store, { ...version(2, '2026-11-21T10:00:01Z'), resources: resourcesWithLargeOnes(ORG, 'second'), codings: ['br', 'gzip'] });
    const pointer = await readPointer(store, ORG);
    const current = new Set(Object.values((await readManifest(store, ORG, pointer!.snapshotId!))!.resources));
    // Once the first snapshot goes, its /organization and its speakers (with their two coded forms) are unreferenced.
    const gone = firstKeys.filter((key) => !current.has(objectOfName(key.slice(objectPrefix(ORG).length))!.hash));
    expect(gone).toHaveLength(4);
    // Within the grace period: spared, every file of them.
    expect(await applyRetention(store, { keep: 1, days: 0 })).toMatchObject({ manifestsDeleted: 1, objectsDeleted: 0, objectsSpared: 2 });
    expect(await store.list(objectPrefix(ORG))).toEqual(expect.arrayContaining(gone));
    // Past it: deleted, every file of them; the current snapshot's objects and coded forms stay.
    expect(await applyRetention(store, { keep: 1, days: 0, now: HOURS_LATER })).toMatchObject({ objectsDeleted: 2, objectsSpared: 0 });
    const left = await store.list(objectPrefix(ORG));
    expect(left.filter((key) => gone.includes(key))).toEqual([]);
    expect(left).toHaveLength(5); // /organization, [], the speakers and their two coded forms
    expect(await expectCodedForms(store, ORG, ['br', 'gzip'])).toBe(1);
    expect((await readWholeSnapshot(store, ORG)).resources['/organization']).toEqual({ id: ORG, name: 'second' });
  });

  it('refuses a keep below one', async () => {
    await expect(applyRetention(new MemoryStore(), { keep: 0 })).rejects.toThrow('--keep must be a whole number ≥ 1');
  });
});

describe('interrupted writes in a directory store', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('are removed once older than the grace period, never complete objects', async () => {
    dir = await mkdtemp(join(tmpdir(), 'marquee-retention-'));
    const store = new DirectoryStore(dir);
    await publishSnapshot(store, version(1, '2026-11-21T10:00:00Z'));
    const objects = join(dir, objectPrefix(ORG));
    const stale = join(objects, `abc.json.0123456789ab${TEMP_SUFFIX}`);
    const fresh = join(objects, `def.json.ba9876543210${TEMP_SUFFIX}`);
    await writeFile(stale, '{"half');
    await writeFile(fresh, '{"half');
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await utimes(stale, twoHoursAgo, twoHoursAgo);
    const report = await applyRetention(store);
    expect(report.interruptedWritesDeleted).toBe(1);
    expect((await readdir(objects)).filter((name) => name.endsWith(TEMP_SUFFIX))).toEqual([`def.json.ba9876543210${TEMP_SUFFIX}`]);
    expect((await readWholeSnapshot(store, ORG)).snapshotId).not.toBeNull();
  });
});
