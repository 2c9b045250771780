import { describe, expect, it } from 'vitest';
import { PinnedSnapshots } from '../../../../gateway/snapshot-cache/pinned-snapshots.ts';
import { manifestView, type ManifestView } from '../../../../gateway/snapshot-cache/manifest-view.ts';
import { manifestKey } from '../../../../snapshot/layout.ts';
import { readManifest, readPointer, SnapshotIntegrityError } from '../../../../snapshot/reader.ts';
import { MemoryStore } from '../../../../snapshot/stores/memory.ts';
import { publishFixture } from '../../../support/gateway-fixtures.ts';
import { PlatformFixture } from '../../../support/platform-fixture.ts';

const MINUTE = 60_000;
const T0 = Date.parse('2026-03-01T12:00:00Z');

/** Four snapshots of one organization, published a minute apart from T0; their ids oldest first, and the current manifest. */
async function history(store = new MemoryStore()) {
  const fixture = new PlatformFixture();
  const ids: string[] = [];
  for (let n = 0; n < 4; n++) {
    fixture.organization.name = `Version ${n}`;
    ids.push((await publishFixture(store, fixture, { now: new Date(T0 + n * MINUTE) })).snapshotId!);
  }
  const orgId = fixture.organization.id;
  const pointer = (await readPointer(store, orgId))!;
  const current = manifestView((await readManifest(store, orgId, pointer.snapshotId!))!, pointer.manifestHash!);
  return { store, orgId, ids, current };
}

const idOf = (view: ManifestView | undefined) => view?.snapshotId;

describe('PinnedSnapshots', () => {
  it('serves the current snapshot, and each earlier one until the window after its successor was published', async () => {
    const { store, orgId, ids, current } = await history();
    const pins = new PinnedSnapshots(store, 10 * MINUTE, 1 << 20);
    const now = T0 + 5 * MINUTE;
    expect(pins.resolve(orgId, current, ids[3]!, now)).toBe(current);
    expect(idOf(await pins.resolve(orgId, current, ids[2]!, now))).toBe(ids[2]);
    expect(idOf(await pins.resolve(orgId, current, ids[0]!, now))).toBe(ids[0]);
    // ids[0] stopped being current when ids[1] was published, at T0 + 1 min: readable until T0 + 11 min.
    expect(idOf(await pins.resolve(orgId, current, ids[0]!, T0 + 11 * MINUTE - 1))).toBe(ids[0]);
    expect(await pins.resolve(orgId, current, ids[0]!, T0 + 11 * MINUTE)).toBeUndefined();
    // Once known, synchronous: no asynchronous hop for a crawl that keeps its pin.
    expect(idOf(pins.resolve(orgId, current, ids[2]!, now) as ManifestView)).toBe(ids[2]);
  });

  it('refuses an id the organization never had, and everything with a window of 0', async () => {
    const { store, orgId, ids, current } = await history();
    expect(await new PinnedSnapshots(store, 10 * MINUTE, 1 << 20).resolve(orgId, current, '20260301T115900000Z-0123456789ab', T0 + 5 * MINUTE)).toBeUndefined();
    const off = new PinnedSnapshots(store, 0, 1 << 20);
    expect(off.resolve(orgId, current, ids[3]!, T0 + 5 * MINUTE)).toBe(current);
    expect(off.resolve(orgId, current, ids[2]!, T0 + 4 * MINUTE)).toBeUndefined();
  });

  it('reads no further back than the window: a walk stops at the first snapshot published before it', async () => {
    const { store, orgId, ids, current } = await history();
    let reads = 0;
    const counting = {
      description: store.description,
      get: (key: string) => {
        reads++;
        return store.get(key);
      },
      getIfChanged: store.getIfChanged.bind(store),
      has: store.has.bind(store),
    };
    // At T0 + 12.5 min only ids[2] (ended T0 + 3 min) is within a 10-minute window; reading ids[2] is enough to know ids[1] is not.
    const pins = new PinnedSnapshots(counting, 10 * MINUTE, 1 << 20);
    expect(await pins.resolve(orgId, current, ids[0]!, T0 + 12.5 * MINUTE)).toBeUndefined();
    expect(reads).toBe(1);
  });

  it('refuses a pinned manifest whose bytes are not those its successor names', async () => {
    const { store, orgId, ids, current } = await history();
    const key = manifestKey(orgId, ids[2]!);
    const forged = JSON.parse((await store.get(key))!.toString('utf8')) as { organizationSlug: string };
    forged.organizationSlug = 'forged';
    await store.put(key, Buffer.from(JSON.stringify(forged)));
    await expect(new PinnedSnapshots(store, 10 * MINUTE, 1 << 20).resolve(orgId, current, ids[2]!, T0 + 5 * MINUTE)).rejects.toBeInstanceOf(SnapshotIntegrityError);
  });

  it('treats a pruned snapshot as not readable', async () => {
    const { store, orgId, ids, current } = await history();
    await store.delete(manifestKey(orgId, ids[1]!));
    expect(await new PinnedSnapshots(store, 10 * MINUTE, 1 << 20).resolve(orgId, current, ids[1]!, T0 + 5 * MINUTE)).toBeUndefined();
  });
});
