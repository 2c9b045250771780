import { describe, expect, it, vi } from 'vitest';
import { publishSnapshot } from '../../../../builder/publish.ts';
import { CurrentSnapshots, type OrganizationSnapshot } from '../../../../gateway/snapshot-cache/current-snapshots.ts';
import { pointerKey } from '../../../../snapshot/layout.ts';
import type { OrganizationState } from '../../../../snapshot/manifest.ts';
import { StoreUnavailableError, type Version, type VersionedBytes } from '../../../../snapshot/store.ts';
import { MemoryStore } from '../../../../snapshot/stores/memory.ts';
import { RecordingLog } from '../../../support/gateway-fixtures.ts';

const ORG = '00000000-0000-4000-8000-000000000001';
const OTHER_ORG = '00000000-0000-4000-8000-000000000002';

async function publish(store: ObservedStore, name: string, state: OrganizationState = 'active', organizationId = ORG) {
  // The builder reads the pointer too, for its conditional write: only the gateway's reads count.
  const counted = store.pointerReads;
  const outcome = await publishSnapshot(store, {
    organizationId,
    organizationSlug: 'acme',
    state,
    resources: state === 'active' ? [{ path: '/organization', value: { name } }] : [],
    slugs: {},
    trigger: 'manual',
    now: new Date(),
  });
  store.pointerReads = counted;
  return outcome;
}

/** A store that counts pointer reads (attempted ones too) and can be switched off, as a backend that cannot be reached. */
class ObservedStore extends MemoryStore {
  pointerReads = 0;
  down = false;
  /** Until opened, pointer reads do not answer: a store that is slow, not down. */
  slow: Promise<void> | undefined;
  override async getIfChanged(key: string, version: Version | undefined): Promise<VersionedBytes | 'unchanged' | undefined> {
    if (key === pointerKey(ORG)) this.pointerReads++;
    if (this.slow) await this.slow;
    if (this.down) throw new StoreUnavailableError('store unreachable');
    return super.getIfChanged(key, version);
  }
  override async get(key: string): Promise<Buffer | undefined> {
    if (this.down) throw new StoreUnavailableError('store unreachable');
    return super.get(key);
  }
}

/** The snapshot a get() answered from memory, without waiting for a read. */
function fromMemory(answer: OrganizationSnapshot | undefined | Promise<OrganizationSnapshot | undefined>): OrganizationSnapshot | undefined {
  if (answer instanceof Promise) throw new Error('expected an answer from memory, got a read to wait for');
  return answer;
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

  it('fails when the store is down and nothing was read before, and reads it on the next request once the store is back', async () => {
    const { store, snapshots } = setup();
    const published = await publish(store, 'one');
    store.down = true;
    await expect(snapshots.get(ORG)).rejects.toThrow(StoreUnavailableError);
    await expect(snapshots.get(ORG)).rejects.toThrow('store unreachable');
    store.down = false;
    expect((await snapshots.get(ORG))?.manifest?.snapshotId).toBe(published.snapshotId);
  });

  it('while the store stays down, serves the last good snapshot at once and re-reads behind it, pausing longer after each failure', async () => {
    const { store, time, snapshots } = setup();
    const first = await publish(store, 'one');
    await snapshots.get(ORG);
    store.down = true;
    time.now = 1000;
    // The first failure is waited for: nothing said yet that the store is down.
    expect((await snapshots.get(ORG))?.manifest?.snapshotId).toBe(first.snapshotId);
    expect(store.pointerReads).toBe(2);
    // A pause of 1 s follows it: the held snapshot, no read.
    time.now = 1999;
    expect(fromMemory(snapshots.get(ORG))?.manifest?.snapshotId).toBe(first.snapshotId);
    expect(store.pointerReads).toBe(2);
    // After it, one re-read behind the request, which fails: the next pause is 2 s.
    time.now = 2000;
    expect(fromMemory(snapshots.get(ORG))?.manifest?.snapshotId).toBe(first.snapshotId);
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.pointerReads).toBe(3);

    store.down = false;
    const second = await publish(store, 'two');
    time.now = 3999;
    expect(fromMemory(snapshots.get(ORG))?.manifest?.snapshotId).toBe(first.snapshotId);
    expect(store.pointerReads).toBe(3);
    time.now = 4000;
    expect(fromMemory(snapshots.get(ORG))?.manifest?.snapshotId).toBe(first.snapshotId);
    // The re-read behind that request found the new snapshot: served from memory from now on.
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.pointerReads).toBe(4);
    expect(fromMemory(snapshots.get(ORG))?.manifest?.snapshotId).toBe(second.snapshotId);
    // Once a re-read has succeeded, a stale pointer is waited for again.
    time.now = 5000;
    await expect(snapshots.get(ORG)).resolves.toMatchObject({ state: 'active' });
  });

  it('while the store is down, re-reads the snapshots it holds once per pause for the whole gateway, not once a second for each organization', async () => {
    const reads: string[] = [];
    const store = new (class extends MemoryStore {
      down = false;
      override async getIfChanged(key: string, version: Version | undefined): Promise<VersionedBytes | 'unchanged' | undefined> {
        reads.push(key);
        if (this.down) throw new StoreUnavailableError('store unreachable');
        return super.getIfChanged(key, version);
      }
    })();
    const time = { now: 0 };
    const snapshots = new CurrentSnapshots({ store, log: new RecordingLog(), maxAgeMs: 1000, monotonicNow: () => time.now });
    const organizations = Array.from({ length: 50 }, (_, n) => `00000000-0000-4000-8000-${String(n + 100).padStart(12, '0')}`);
    for (const organizationId of organizations) {
      await publishSnapshot(store, {
        organizationId,
        organizationSlug: `org-${organizationId.slice(-3)}`,
        state: 'active',
        resources: [{ path: '/organization', value: { name: organizationId } }],
        slugs: {},
        trigger: 'manual',
        now: new Date(),
      });
      await snapshots.get(organizationId);
    }
    store.down = true;
    reads.length = 0;
    // 20 s of requests for every organization, ten times a second: each is answered from memory.
    for (time.now = 1000; time.now <= 21_000; time.now += 100) {
      for (const organizationId of organizations) {
        const answer = snapshots.get(organizationId);
        const snapshot = answer instanceof Promise ? await answer : answer;
        expect(snapshot?.state).toBe('active');
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Re-reading each stale pointer every second would have been 50 reads a second, a thousand in
    // all. The pauses after each failure (1, 2, 4, 8, then 10 s) leave reads at 1, 2, 4, 8 and 16 s.
    expect(reads.length).toBe(5);

    // Back: the next probe finds it, and every organization is re-read on its next request.
    store.down = false;
    time.now += 10_000;
    for (const organizationId of organizations) await snapshots.get(organizationId);
    await new Promise((resolve) => setImmediate(resolve));
    time.now += 1;
    for (const organizationId of organizations) await snapshots.get(organizationId);
    expect(reads.length).toBeGreaterThanOrEqual(5 + organizations.length);
  });

  it('while announcements arrive, re-reads a pointer when announced or after 30 s; every second while they may not; all once after a gap', async () => {
    const { store, time, log } = setup();
    let epoch: number | undefined = 1;
    const snapshots = new CurrentSnapshots({ store, log, maxAgeMs: 1000, monotonicNow: () => time.now, deliveryEpoch: () => epoch });
    await publish(store, 'one');
    await snapshots.get(ORG);
    const reads = () => store.pointerReads;
    const before = reads();
    time.now = 5_000;
    fromMemory(snapshots.get(ORG));
    expect(reads()).toBe(before);
    snapshots.invalidate(ORG);
    await vi.waitFor(() => expect(reads()).toBe(before + 1));
    time.now = 36_000;
    await snapshots.get(ORG);
    expect(reads()).toBe(before + 2);
    // Announcements may not arrive: back to a re-read every second.
    epoch = undefined;
    time.now = 37_500;
    await snapshots.get(ORG);
    expect(reads()).toBe(before + 3);
    // Delivery resumed after a gap: what was read before it is read again, once.
    epoch = 2;
    time.now = 38_000;
    fromMemory(snapshots.get(ORG));
    time.now = 38_600;
    await snapshots.get(ORG);
    expect(reads()).toBe(before + 4);
    time.now = 45_000;
    fromMemory(snapshots.get(ORG));
    expect(reads()).toBe(before + 4);
    // An announced publish whose re-read failed is not trusted to the channel: retried every second.
    store.down = true;
    snapshots.invalidate(ORG);
    await vi.waitFor(() => expect(reads()).toBe(before + 5));
    store.down = false;
    time.now = 46_100;
    fromMemory(snapshots.get(ORG));
    await vi.waitFor(() => expect(reads()).toBe(before + 6));
  });

  it('answers with the snapshot it holds when a re-read is slow, and serves the new one once the re-read is done', async () => {
    const { store, time, snapshots } = setup();
    const first = await publish(store, 'one');
    await snapshots.get(ORG);
    const second = await publish(store, 'two');
    let open!: () => void;
    store.slow = new Promise((resolve) => (open = resolve));
    time.now = 1000;
    const started = performance.now();
    expect((await snapshots.get(ORG))?.manifest?.snapshotId).toBe(first.snapshotId);
    expect(performance.now() - started).toBeGreaterThanOrEqual(450);
    open();
    store.slow = undefined;
    await vi.waitFor(() => expect(fromMemory(snapshots.get(ORG))?.manifest?.snapshotId).toBe(second.snapshotId));
  });

  it('keeps the last good snapshot when the pointer moved but the new manifest cannot be read', async () => {
    const { store, time, snapshots } = setup();
    const first = await publish(store, 'one');
    await snapshots.get(ORG);
    const second = await publish(store, 'two');
    const get = store.get.bind(store);
    store.get = async (key) => (key.includes('/snapshots/') ? Promise.reject(new StoreUnavailableError('CDN unreachable')) : get(key));
    time.now = 1000;
    expect((await snapshots.get(ORG))?.manifest?.snapshotId).toBe(first.snapshotId);
    store.get = get;
    time.now = 2000;
    expect(fromMemory(snapshots.get(ORG))?.manifest?.snapshotId).toBe(first.snapshotId);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await snapshots.get(ORG))?.manifest?.snapshotId).toBe(second.snapshotId);
  });

  it('logs an outage as one warning without a stack, not one per failed read', async () => {
    const { store, time, log, snapshots } = setup();
    await publish(store, 'one');
    await publish(store, 'other', 'active', OTHER_ORG);
    await snapshots.get(ORG);
    await snapshots.get(OTHER_ORG);
    store.down = true;
    for (let second = 1; second <= 5; second++) {
      time.now = second * 1000;
      await snapshots.get(ORG);
      await snapshots.get(OTHER_ORG);
    }
    const warnings = log.lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toMatchObject({ organizationId: ORG, serving: 'the last good snapshot', reason: 'store unreachable' });
    expect(warnings[0]!.fields).not.toHaveProperty('err');
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
