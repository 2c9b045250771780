// Whether the store keeps a snapshot is the store's answer (gateway/snapshot-cache/retained-snapshots.ts):
// asked at most once per maxAgeMs while it says yes, never again once it says no, and a yes held
// through an outage.
import { describe, expect, it } from 'vitest';
import { RetainedSnapshots } from '../../../../gateway/snapshot-cache/retained-snapshots.ts';
import { manifestKey } from '../../../../snapshot/layout.ts';
import { type SnapshotSource, StoreUnavailableError } from '../../../../snapshot/store.ts';
import { MemoryStore } from '../../../../snapshot/stores/memory.ts';

const ORG = '0b8f2f1e-7c9a-4d2b-9a51-3f1c2b7d9e10';
const KEPT = '20260301T115000000Z-0123456789ab';
const NEVER = '20260301T114000000Z-ba9876543210';

async function world() {
  const store = new MemoryStore();
  await store.put(manifestKey(ORG, KEPT), Buffer.from('{}'));
  let asked = 0;
  let down = false;
  const source: SnapshotSource = {
    description: 'counting',
    get: (key) => store.get(key),
    getIfChanged: (key, version) => store.getIfChanged(key, version),
    has: async (key) => {
      asked++;
      if (down) throw new StoreUnavailableError('the store is down');
      return store.has(key);
    },
  };
  const clock = { now: 0 };
  const retained = new RetainedSnapshots(source, { maxAgeMs: 1000, maxBytes: 1 << 20, monotonicNow: () => clock.now });
  return { store, retained, clock, asked: () => asked, setDown: (value: boolean) => (down = value) };
}

describe('RetainedSnapshots', () => {
  it('asks the store, then holds a yes for maxAgeMs and a no for good', async () => {
    const { retained, clock, asked } = await world();
    expect(await retained.isKept(ORG, KEPT)).toBe(true);
    expect(await retained.isKept(ORG, NEVER)).toBe(false);
    expect(asked()).toBe(2);
    clock.now = 999;
    expect(retained.isKept(ORG, KEPT)).toBe(true);
    clock.now = 60_000;
    expect(retained.isKept(ORG, NEVER)).toBe(false);
    expect(asked()).toBe(2);
  });

  it('sees a snapshot retention removed once its yes is older than maxAgeMs, and joins a question under way', async () => {
    const { store, retained, clock, asked } = await world();
    expect(await retained.isKept(ORG, KEPT)).toBe(true);
    await store.delete(manifestKey(ORG, KEPT));
    expect(retained.isKept(ORG, KEPT)).toBe(true);
    clock.now = 1000;
    const [one, two] = await Promise.all([retained.isKept(ORG, KEPT), retained.isKept(ORG, KEPT)]);
    expect({ one, two, asked: asked() }).toEqual({ one: false, two: false, asked: 2 });
  });

  it('keeps a yes through an outage; a snapshot never asked about fails with the store', async () => {
    const { retained, clock, setDown } = await world();
    expect(await retained.isKept(ORG, KEPT)).toBe(true);
    setDown(true);
    clock.now = 5000;
    expect(await retained.isKept(ORG, KEPT)).toBe(true);
    await expect(retained.isKept(ORG, NEVER)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
