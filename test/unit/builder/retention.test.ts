import { describe, expect, it } from 'vitest';
import { publishSnapshot } from '../../../builder/publish.ts';
import { applyRetention, deletableStateRecords, retainedSnapshots, retentionPolicy } from '../../../builder/retention.ts';
import { newSnapshotId } from '../../../snapshot/layout.ts';
import type { Pointer } from '../../../snapshot/manifest.ts';
import { listSnapshotIds } from '../../../snapshot/reader.ts';
import { listStateMarks, type StateMark } from '../../../snapshot/state-records.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { readWholeSnapshot } from '../../support/snapshot-integrity.ts';

const ORG = '0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11';
const DAY = 86_400_000;
const NOW = new Date('2026-11-22T12:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY);
const id = (days: number) => newSnapshotId(daysAgo(days), 'abcdef0123456789');
const pointerAt = (snapshotId: string | null, state: Pointer['state'] = 'active'): Pointer => ({
  format: 1,
  organizationId: ORG,
  state,
  snapshotId,
  manifestHash: snapshotId ? 'a'.repeat(64) : null,
  publishedAt: NOW.toISOString(),
});
const mark = (days: number, state: StateMark['state']): StateMark => ({ key: `k${days}`, at: daysAgo(days), state });
const policy = (keep: number, days: number, graceMinutes = 60) => retentionPolicy({ keep, days, graceMinutes, now: NOW });

describe('retainedSnapshots', () => {
  // Snapshots 200, 150, 100, 60, 30 and 1 days old, oldest first.
  const ids = [200, 150, 100, 60, 30, 1].map(id);

  it('keeps everything younger than `days`, however many', () => {
    expect([...retainedSnapshots(ids, [], pointerAt(ids[5]!), policy(1, 90))].sort()).toEqual(ids.slice(3));
  });

  it('keeps at least the newest `keep`, however old', () => {
    expect([...retainedSnapshots(ids, [], pointerAt(ids[5]!), policy(5, 0))].sort()).toEqual(ids.slice(1));
  });

  it('keeps the current snapshot even when it is old and outside `keep`', () => {
    expect([...retainedSnapshots(ids, [], pointerAt(ids[0]!), policy(1, 90))].sort()).toEqual([ids[0], ...ids.slice(3)]);
  });

  it('keeps a snapshot replaced less than the grace period ago, and only that one', () => {
    const recent = [id(300), newSnapshotId(new Date(NOW.getTime() - 10 * 60_000), 'abcdef0123456789')];
    const oldReplacedRecently = [id(400), ...recent];
    // id(300) was replaced 10 minutes ago: a gateway may still serve it. id(400) was replaced 300 days ago.
    expect([...retainedSnapshots(oldReplacedRecently, [], pointerAt(recent[1]!), policy(1, 0))].sort()).toEqual(recent);
  });

  it('counts a suspension as the end of a snapshot being current', () => {
    const old = [id(300)];
    // Suspended 10 minutes ago: the old snapshot was served until then.
    const suspended = [{ key: 's', at: new Date(NOW.getTime() - 10 * 60_000), state: 'suspended' as const }];
    expect(retainedSnapshots(old, suspended, pointerAt(null, 'suspended'), policy(1, 0)).has(old[0]!)).toBe(true);
    // A reactivation at the snapshot's own instant is not its end.
    expect([...retainedSnapshots([id(300), id(200)], [mark(300, 'active')], pointerAt(id(200)), policy(1, 0))]).toEqual([id(200)]);
  });

  it('deletes state records older than `days` beyond the newest `keep`, never the newest', () => {
    const marks = [mark(300, 'suspended'), mark(200, 'active'), mark(100, 'closed'), mark(10, 'active')];
    expect(deletableStateRecords(marks, policy(1, 90)).map((m) => m.key)).toEqual(['k300', 'k200', 'k100']);
    expect(deletableStateRecords(marks, policy(3, 90)).map((m) => m.key)).toEqual(['k300']);
    expect(deletableStateRecords(marks, policy(1, 250)).map((m) => m.key)).toEqual(['k300']);
    expect(deletableStateRecords([mark(300, 'closed')], policy(1, 0))).toEqual([]);
  });
});

describe('applyRetention', () => {
  const version = (n: number, now: Date, state: Pointer['state'] = 'active') => ({
    organizationId: ORG,
    organizationSlug: 'nordic',
    state,
    trigger: 'manual' as const,
    slugs: {},
    resources: state === 'active' ? [{ path: '/organization', value: { id: ORG, version: n } }] : [],
    now,
  });

  async function storeWithHistory() {
    const store = new MemoryStore();
    await publishSnapshot(store, version(1, daysAgo(200)));
    await publishSnapshot(store, version(0, daysAgo(150), 'suspended'));
    await publishSnapshot(store, version(2, daysAgo(120)));
    await publishSnapshot(store, version(3, daysAgo(10)));
    return store;
  }
  // Objects are written now (memory store time): past the grace period only from a later `now`.
  const later = new Date(Date.now() + 2 * 3_600_000);

  it('dry run: reports what would be deleted and deletes nothing', async () => {
    const store = await storeWithHistory();
    const keys = await store.list('orgs/');
    const report = await applyRetention(store, { keep: 1, days: 90, now: later, dryRun: true });
    expect(report).toMatchObject({ dryRun: true, manifestsDeleted: 2, stateRecordsDeleted: 1, objectsDeleted: 2, interruptedWritesDeleted: null });
    expect(report.deleted).toEqual([
      { organizationId: ORG, snapshots: (await listSnapshotIds(store, ORG)).slice(0, 2), stateRecords: [(await listStateMarks(store, ORG))[0]!.key], objects: 2, objectsSpared: 0 },
    ]);
    expect(await store.list('orgs/')).toEqual(keys);
  });

  it('deletes what the dry run named; the current snapshot stays whole', async () => {
    const store = await storeWithHistory();
    const dry = await applyRetention(store, { keep: 1, days: 90, now: later, dryRun: true });
    const report = await applyRetention(store, { keep: 1, days: 90, now: later });
    expect({ ...report, dryRun: true, interruptedWritesDeleted: null }).toEqual(dry);
    expect(await listSnapshotIds(store, ORG)).toHaveLength(1);
    expect((await listStateMarks(store, ORG)).map((m) => m.state)).toEqual(['active']);
    expect((await readWholeSnapshot(store, ORG)).resources['/organization']).toEqual({ id: ORG, version: 3 });
  });

  it('refuses negative days', async () => {
    await expect(applyRetention(new MemoryStore(), { days: -1 })).rejects.toThrow('--days must be ≥ 0');
  });
});
