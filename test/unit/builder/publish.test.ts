import { describe, expect, it, vi } from 'vitest';
import { auditStore } from '../../../builder/history/audit.ts';
import { PointerConflictError } from '../../../builder/errors.ts';
import { publishSnapshot } from '../../../builder/publish.ts';
import { manifestPrefix, objectPrefix, pointerKey } from '../../../snapshot/layout.ts';
import { listSnapshotIds, readManifest, readPointer } from '../../../snapshot/reader.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { expectCodedForms, resourcesWithLargeOnes } from '../../support/coded-forms.ts';
import { CrashingStore, SimulatedCrash } from '../../support/faulty-store.ts';
import { readWholeSnapshot } from '../../support/snapshot-integrity.ts';

/** The real compress, counted: what a publish compresses is its CPU, which the store does not show. */
const compressions = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../snapshot/codings.ts', async (original) => {
  const codings = await original<typeof import('../../../snapshot/codings.ts')>();
  return {
    ...codings,
    compress: (...args: Parameters<typeof codings.compress>) => {
      compressions.count++;
      return codings.compress(...args);
    },
  };
});

const ORG = '0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11';
const EVENT = '5d1f0c3a-9b7e-4a21-8c44-1e2f3a4b5c6d';
const base = { organizationId: ORG, organizationSlug: 'nordic', trigger: 'manual' as const };

function resources(name: string) {
  return [
    { path: '/organization', value: { id: ORG, name } },
    { path: '/team', value: [] },
    { path: `/events/${EVENT}/sponsors`, value: [] },
  ];
}

describe('publish', () => {
  it('writes objects, then the manifest, then the pointer, conditionally', async () => {
    const store = new MemoryStore();
    const order: string[] = [];
    const [put, putIfVersion] = [store.put.bind(store), store.putIfVersion.bind(store)];
    store.put = async (key, bytes) => {
      order.push(key.split('/')[2]!);
      return put(key, bytes);
    };
    store.putIfVersion = async (key, bytes, expected) => {
      order.push(`${key.split('/')[2]!} if ${expected}`);
      return putIfVersion(key, bytes, expected);
    };
    const outcome = await publishSnapshot(store, { ...base, state: 'active', resources: resources('A'), slugs: { s: EVENT }, now: new Date('2026-11-21T10:00:00Z') });
    expect(outcome.result).toBe('published');
    // `[]` twice is one object: content addressing deduplicates.
    expect(outcome.objectsWritten).toBe(2);
    // The manifest, and the first pointer of the organization: each written only if there is still none.
    expect(order).toEqual(['objects', 'objects', 'snapshots if null', 'current.json if null']);
    expect((await readWholeSnapshot(store, ORG)).resources['/organization']).toEqual({ id: ORG, name: 'A' });
  });

  it('publishes nothing when the content equals the current snapshot', async () => {
    const store = new MemoryStore();
    const first = await publishSnapshot(store, { ...base, state: 'active', resources: resources('A'), slugs: {}, now: new Date('2026-11-21T10:00:00Z') });
    const before = new Map(store.entries);
    const again = await publishSnapshot(store, { ...base, state: 'active', resources: resources('A'), slugs: {}, now: new Date('2026-11-21T11:00:00Z') });
    expect(again).toEqual({ result: 'unchanged', snapshotId: first.snapshotId, objectsWritten: 0 });
    expect(store.entries).toEqual(before);
  });

  it('adds one manifest per change and chains it to the previous one', async () => {
    const store = new MemoryStore();
    const a = await publishSnapshot(store, { ...base, state: 'active', resources: resources('A'), slugs: {}, now: new Date('2026-11-21T10:00:00Z') });
    const b = await publishSnapshot(store, { ...base, state: 'active', resources: resources('B'), slugs: {}, now: new Date('2026-11-21T10:00:01Z') });
    expect(b.objectsWritten).toBe(1);
    expect(await listSnapshotIds(store, ORG)).toEqual([a.snapshotId, b.snapshotId]);
    const manifest = JSON.parse((await store.get(`${manifestPrefix(ORG)}${b.snapshotId}.json`))!.toString());
    expect(manifest.previousSnapshotId).toBe(a.snapshotId);
  });

  it('suspends with a pointer and no content, and comes back to the same snapshot without new history', async () => {
    const store = new MemoryStore();
    const a = await publishSnapshot(store, { ...base, state: 'active', resources: resources('A'), slugs: {}, now: new Date('2026-11-21T10:00:00Z') });
    const suspended = await publishSnapshot(store, { ...base, state: 'suspended', resources: [], slugs: {}, now: new Date('2026-11-21T10:01:00Z') });
    expect(suspended).toMatchObject({ result: 'suspended', snapshotId: null, objectsWritten: 0 });
    // What webhooks are told: the state changed, and nothing is served any more.
    expect(suspended.change).toMatchObject({ state: 'suspended', previousState: 'active', snapshotId: null, before: {}, after: {} });
    expect(await readPointer(store, ORG)).toMatchObject({ state: 'suspended', snapshotId: null, manifestHash: null });
    const version = store.entries.get(pointerKey(ORG))!.version;
    const still = await publishSnapshot(store, { ...base, state: 'suspended', resources: [], slugs: {}, now: new Date('2026-11-21T10:02:00Z') });
    expect(store.entries.get(pointerKey(ORG))!.version).toBe(version);
    expect(still.change).toBeUndefined();
    const back = await publishSnapshot(store, { ...base, state: 'active', resources: resources('A'), slugs: {}, now: new Date('2026-11-21T10:03:00Z') });
    expect(back).toMatchObject({ result: 'published', snapshotId: a.snapshotId, objectsWritten: 0 });
    // Back: everything it serves again is new to a site, since nothing was served while suspended.
    const manifest = (await readManifest(store, ORG, a.snapshotId!))!;
    expect(back.change).toMatchObject({ state: 'active', previousState: 'suspended', before: {}, after: manifest.resources });
    expect(await listSnapshotIds(store, ORG)).toEqual([a.snapshotId]);
    const again = await publishSnapshot(store, { ...base, state: 'active', resources: resources('B'), slugs: {}, now: new Date('2026-11-21T10:04:00Z') });
    expect(again.change).toMatchObject({ state: 'active', previousState: 'active', before: manifest.resources });
  });

  it("stores every object of 1 KB or more also in gzip by default, named by its JSON's hash, decoding to the JSON; smaller ones as JSON alone", async () => {
    const store = new MemoryStore();
    const outcome = await publishSnapshot(store, { ...base, state: 'active', resources: resourcesWithLargeOnes(ORG, 'A'), slugs: {}, now: new Date('2026-11-21T10:00:00Z') });
    expect(outcome.objectsWritten).toBe(3); // counted per object, not per file
    expect(await expectCodedForms(store, ORG, ['gzip'])).toBe(1);
    const names = (await store.list(objectPrefix(ORG))).map((key) => key.slice(objectPrefix(ORG).length));
    expect(names.filter((name) => !name.endsWith('.json'))).toEqual([expect.stringMatching(/^[0-9a-f]{64}\.json\.gz$/)]);
  });

  it('stores only the codings it is given (SNAPSHOT_CODINGS): brotli and gzip, or none', async () => {
    const both = new MemoryStore();
    await publishSnapshot(both, {
      ...base,
      state: 'active',
      resources: resourcesWithLargeOnes(ORG, 'A'),
      slugs: {},
      now: new Date('2026-11-21T10:00:00Z'),
      codings: ['br', 'gzip'],
    });
    expect(await expectCodedForms(both, ORG, ['br', 'gzip'])).toBe(1);
    const names = (await both.list(objectPrefix(ORG))).map((key) => key.slice(objectPrefix(ORG).length));
    expect(names.filter((name) => !name.endsWith('.json'))).toEqual([expect.stringMatching(/^[0-9a-f]{64}\.json\.br$/), expect.stringMatching(/^[0-9a-f]{64}\.json\.gz$/)]);
    const none = new MemoryStore();
    compressions.count = 0;
    await publishSnapshot(none, { ...base, state: 'active', resources: resourcesWithLargeOnes(ORG, 'A'), slugs: {}, now: new Date('2026-11-21T10:00:00Z'), codings: [] });
    expect(await expectCodedForms(none, ORG, [])).toBe(0);
    expect((await none.list(objectPrefix(ORG))).every((key) => key.endsWith('.json'))).toBe(true);
    expect(compressions.count).toBe(0);
  });

  it('compresses only what it writes: a change compresses its changed objects alone, an unchanged publish nothing', async () => {
    const store = new MemoryStore();
    await publishSnapshot(store, { ...base, state: 'active', resources: resourcesWithLargeOnes(ORG, 'A'), slugs: {}, now: new Date('2026-11-21T10:00:00Z') });
    const before = new Map(store.entries);
    compressions.count = 0;
    const unchanged = await publishSnapshot(store, { ...base, state: 'active', resources: resourcesWithLargeOnes(ORG, 'A'), slugs: {}, now: new Date('2026-11-21T11:00:00Z') });
    expect(unchanged).toMatchObject({ result: 'unchanged', objectsWritten: 0 });
    expect(compressions.count).toBe(0);
    expect(store.entries).toEqual(before);
    // Only /organization changes, and it is too small to be coded: the speakers' forms stay as they were.
    const renamed = [{ path: '/organization', value: { id: ORG, name: 'B' } }, ...resourcesWithLargeOnes(ORG, 'A').slice(1)];
    const changed = await publishSnapshot(store, { ...base, state: 'active', resources: renamed, slugs: {}, now: new Date('2026-11-21T12:00:00Z') });
    expect(changed).toMatchObject({ result: 'published', objectsWritten: 1 });
    expect(compressions.count).toBe(0);
    const rewritten = [...store.entries].filter(([key, entry]) => key.startsWith(objectPrefix(ORG)) && before.get(key)?.version !== entry.version);
    expect(rewritten.map(([key]) => key)).toEqual([expect.stringMatching(/[0-9a-f]{64}\.json$/)]);
    await publishSnapshot(store, { ...base, state: 'active', resources: resourcesWithLargeOnes(ORG, 'C'), slugs: {}, now: new Date('2026-11-21T13:00:00Z') });
    expect(compressions.count).toBe(1); // the new speakers, in gzip
    expect(await expectCodedForms(store, ORG)).toBe(1);
  });

  it('a publish killed between any two writes leaves the previous snapshot whole, and the next one completes', async () => {
    const previous = new MemoryStore();
    await publishSnapshot(previous, { ...base, state: 'active', resources: resources('A'), slugs: {}, now: new Date('2026-11-21T10:00:00Z') });
    const expected = await readWholeSnapshot(previous, ORG);
    // The speakers are worth coding: a kill between an object's JSON and its coded forms, or between those, is among the kills.
    const speakers = resourcesWithLargeOnes(ORG, 'B').filter((resource) => resource.path === '/speakers');
    const next = { ...base, state: 'active' as const, resources: [...resources('B'), ...speakers], slugs: {}, now: new Date('2026-11-21T10:00:05Z') };
    for (let crashAfter = 0; ; crashAfter++) {
      const store = new MemoryStore();
      for (const [key, entry] of previous.entries) await store.put(key, entry.bytes);
      const crashing = new CrashingStore(store, crashAfter);
      const attempt = await publishSnapshot(crashing, next).catch((error: unknown) => error);
      if (!(attempt instanceof SimulatedCrash)) {
        expect(crashAfter).toBe(5); // two new objects, the speakers' coded form, a manifest, a pointer
        break;
      }
      expect(await readWholeSnapshot(store, ORG)).toEqual(expected);
      // The JSON goes first: a kill never leaves a coded form without it.
      expect((await auditStore(store)).findings.filter((finding) => finding.kind.includes('coded'))).toEqual([]);
      // Built again in the same millisecond (a fixed clock), at another pace: a manifest the crash
      // left is that snapshot's, adopted as it is, never a rival.
      const recovered = await publishSnapshot(store, { ...next, durationMs: 7 });
      expect(recovered.result).toBe('published');
      expect((await auditStore(store)).findings).toEqual([]);
      expect((await readWholeSnapshot(store, ORG)).resources['/organization']).toEqual({ id: ORG, name: 'B' });
      expect(await expectCodedForms(store, ORG)).toBe(1);
    }
  });
});

describe('publish when another builder publishes the same organization meanwhile', () => {
  const at = (second: number) => new Date(`2026-11-21T10:00:${String(second).padStart(2, '0')}Z`);
  const active = (name: string, second: number) => ({ ...base, state: 'active' as const, resources: resources(name), slugs: {}, now: at(second) });

  /** A store in which `rival` publishes just before this builder's first conditional write (its manifest's): after its read, before its swap. */
  function raceBeforePointerWrite(store: MemoryStore, rival: () => Promise<unknown>): MemoryStore {
    const putIfVersion = store.putIfVersion.bind(store);
    let raced = false;
    store.putIfVersion = async (key, bytes, expected) => {
      if (!raced) {
        raced = true;
        await rival();
      }
      return putIfVersion(key, bytes, expected);
    };
    return store;
  }

  it('refuses to replace a pointer replaced after it was read: PointerConflictError, and the other publish stays current', async () => {
    const store = new MemoryStore();
    await publishSnapshot(store, active('A', 0));
    let rivalSnapshot: string | null = null;
    raceBeforePointerWrite(store, async () => {
      rivalSnapshot = (await publishSnapshot(store, active('B', 2))).snapshotId;
    });
    const attempt = await publishSnapshot(store, active('C', 1)).catch((error: unknown) => error);
    expect(attempt).toBeInstanceOf(PointerConflictError);
    expect((attempt as PointerConflictError).organizationId).toBe(ORG);
    const whole = await readWholeSnapshot(store, ORG);
    expect(whole.snapshotId).toBe(rivalSnapshot);
    expect(whole.resources['/organization']).toEqual({ id: ORG, name: 'B' });
  });

  it('refuses a first pointer when another builder wrote one meanwhile', async () => {
    const store = raceBeforePointerWrite(new MemoryStore(), () => publishSnapshot(store, active('B', 2)));
    await expect(publishSnapshot(store, active('A', 1))).rejects.toBeInstanceOf(PointerConflictError);
    expect((await readWholeSnapshot(store, ORG)).resources['/organization']).toEqual({ id: ORG, name: 'B' });
  });

  it('refuses a suspension, and a return from one, that would overwrite a publish made meanwhile', async () => {
    const store = new MemoryStore();
    await publishSnapshot(store, active('A', 0));
    raceBeforePointerWrite(store, () => publishSnapshot(store, active('B', 2)));
    await expect(publishSnapshot(store, { ...base, state: 'suspended', resources: [], slugs: {}, now: at(1) })).rejects.toBeInstanceOf(PointerConflictError);
    expect(await readPointer(store, ORG)).toMatchObject({ state: 'active' });

    await publishSnapshot(store, { ...base, state: 'suspended', resources: [], slugs: {}, now: at(3) });
    raceBeforePointerWrite(store, () => publishSnapshot(store, { ...base, state: 'closed', resources: [], slugs: {}, now: at(5) }));
    await expect(publishSnapshot(store, active('B', 4))).rejects.toBeInstanceOf(PointerConflictError);
    expect(await readPointer(store, ORG)).toMatchObject({ state: 'closed', snapshotId: null });
  });

  it('never replaces a manifest: a rival publishing the same content in the same millisecond is refused, and the first stays whole', async () => {
    const store = new MemoryStore();
    await publishSnapshot(store, active('A', 0));
    let rival: string | null = null;
    // Both read the same pointer and name the same snapshot; the rival's build took a moment longer.
    raceBeforePointerWrite(store, async () => {
      rival = (await publishSnapshot(store, { ...active('B', 1), durationMs: 5 })).snapshotId;
    });
    await expect(publishSnapshot(store, active('B', 1))).rejects.toBeInstanceOf(PointerConflictError);
    const whole = await readWholeSnapshot(store, ORG);
    expect(whole.snapshotId).toBe(rival);
    expect(whole.resources['/organization']).toEqual({ id: ORG, name: 'B' });
    // Built again, it finds the content current.
    expect(await publishSnapshot(store, active('B', 1))).toMatchObject({ result: 'unchanged', snapshotId: rival });
  });

  it('publishes on the next attempt, after the snapshot that won', async () => {
    const store = new MemoryStore();
    await publishSnapshot(store, active('A', 0));
    let rival: string | null = null;
    raceBeforePointerWrite(store, async () => {
      rival = (await publishSnapshot(store, active('B', 2))).snapshotId;
    });
    await expect(publishSnapshot(store, active('C', 1))).rejects.toBeInstanceOf(PointerConflictError);
    const retried = await publishSnapshot(store, active('C', 3));
    expect(retried.result).toBe('published');
    const manifest = JSON.parse((await store.get(`${manifestPrefix(ORG)}${retried.snapshotId}.json`))!.toString());
    expect(manifest.previousSnapshotId).toBe(rival);
    expect((await readWholeSnapshot(store, ORG)).resources['/organization']).toEqual({ id: ORG, name: 'C' });
  });

  it('counts a suspension as published once its pointer is written, and reports a history record it could not write', async () => {
    class NoStateRecords extends MemoryStore {
      override async put(key: string, bytes: Uint8Array): Promise<void> {
        if (key.includes('/states/')) throw new Error('disk full');
        return super.put(key, bytes);
      }
    }
    const store = new NoStateRecords();
    await publishSnapshot(store, { ...base, state: 'active', resources: resources('A'), slugs: {}, now: new Date('2026-11-21T10:00:00Z') });
    const suspended = await publishSnapshot(store, { ...base, state: 'suspended', resources: [], slugs: {}, now: new Date('2026-11-21T10:01:00Z') });
    expect(suspended).toMatchObject({ result: 'suspended', warning: 'the organization is suspended since 2026-11-21T10:01:00.000Z, but history has no record of it: disk full' });
    expect((await readPointer(store, ORG))?.state).toBe('suspended');
  });
});
