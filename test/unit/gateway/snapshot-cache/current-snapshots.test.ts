import { describe, expect, it } from 'vitest';
import { publishSnapshot } from '../../../../builder/publish.ts';
import { CurrentSnapshots } from '../../../../gateway/snapshot-cache/current-snapshots.ts';
import { pointerKey } from '../../../../snapshot/layout.ts';
import type { OrganizationState } from '../../../../snapshot/manifest.ts';
import type { SnapshotStore, Version, VersionedBytes } from '../../../../snapshot/store.ts';
import { MemoryStore } from '../../../../snapshot/stores/memory.ts';
import { RecordingLog } from '../../../support/gateway-fixtures.ts';

const ORG = '00000000-0000-4000-8000-000000000001';

async function publish(store: SnapshotStore, name: string, state: OrganizationState = 'active') {
  return publishSnapshot(store, {
    organizationId: ORG,
    organizationSlug: 'acme',
    state,
    resources: state === 'active' ? [{ path: '/organization', value: { name } }] : [],
    slugs: {},
    trigger: 'manual',
    now: new Date(),
  });
}

/** A store that counts pointer reads and can be switched off. */
class ObservedStore extends MemoryStore {
  pointerReads = 0;
  down = false;
  override async getIfChanged(key: string, version: Version | undefined): Promise<VersionedBytes | 'unchanged' | undefined> {
    if (this.down) throw new Error('store unreachable');
    if (key === pointerKey(ORG)) this.pointerReads++;
    return super.getIfChanged(key, version);
  }
  override async get(key: string): Promise<Buffer | undefined> {
    if (this.down) throw new Error('store unreachable');
    return super.get(key);
  }
}

function setup() {
  const store = new ObservedStore();
  const time = { now: 0 };
  const log = new RecordingLog();
  const snapshots = new CurrentSnapshots({ store, log, maxAgeMs: 1000, monotonicNow: () => time.now });
  return { store, time, log, snapshots };
}

describe('CurrentSnapshots', () => {
  it('reports no snapshot for an organization without a pointer', async () => {
    const { snapshots } = setup();
    expect(await snapshots.get(ORG)).toBeUndefined();
  });

  it('re-reads the pointer only when it is older than maxAgeMs', async () => {
    const { store, time, snapshots } = setup();
    const first = await publish(store, 'one');
    expect((await snapshots.get(ORG))?.manifest?.snapshotId).toBe(first.snapshotId);
    const second = await publish(store, 'two');
    time.now = 999;
    expect((await snapshots.get(ORG))?.manifest?.snapshotId).toBe(first.snapshotId);
    time.now = 1000;
    expect((await snapshots.get(ORG))?.manifest?.snapshotId).toBe(second.snapshotId);
    expect(store.pointerReads).toBe(2);
  });

  it('re-reads at once when notified of a publish', async () => {
    const { store, snapshots } = setup();
    await publish(store, 'one');
    await snapshots.get(ORG);
    const second = await publish(store, 'two');
    snapshots.invalidate(ORG);
    expect((await snapshots.get(ORG))?.manifest?.snapshotId).toBe(second.snapshotId);
  });

  it('shares one pointer read among concurrent requests', async () => {
    const { store, snapshots } = setup();
    await publish(store, 'one');
    await Promise.all(Array.from({ length: 20 }, () => snapshots.get(ORG)));
    expect(store.pointerReads).toBe(1);
  });

  it('reports suspension without a manifest, and the return to active', async () => {
    const { store, time, snapshots } = setup();
    await publish(store, 'one');
    await snapshots.get(ORG);
    await publish(store, 'one', 'suspended');
    time.now = 1000;
    expect(await snapshots.get(ORG)).toEqual({ state: 'suspended', manifest: null });
    await publish(store, 'one');
    time.now = 2000;
    expect((await snapshots.get(ORG))?.state).toBe('active');
  });

  it('keeps serving the last good snapshot while the store is down, and logs it', async () => {
    const { store, time, log, snapshots } = setup();
    const first = await publish(store, 'one');
    await snapshots.get(ORG);
    store.down = true;
    time.now = 5000;
    expect((await snapshots.get(ORG))?.manifest?.snapshotId).toBe(first.snapshotId);
    expect(log.lines.some((line) => line.level === 'warn')).toBe(true);
  });

  it('fails when the store is down and nothing was read before', async () => {
    const { store, snapshots } = setup();
    store.down = true;
    await expect(snapshots.get(ORG)).rejects.toThrow('store unreachable');
    store.down = false;
    expect(await snapshots.get(ORG)).toBeUndefined();
  });

  it('refuses a pointer that names another organization', async () => {
    const { store, snapshots } = setup();
    await store.put(
      pointerKey(ORG),
      Buffer.from(
        JSON.stringify({
          format: 1,
          organizationId: '00000000-0000-4000-8000-000000000002',
          state: 'active',
          snapshotId: null,
          manifestHash: null,
          publishedAt: '2026-01-01T00:00:00Z',
        }),
      ),
    );
    await expect(snapshots.get(ORG)).rejects.toThrow(/malformed/);
  });
});
