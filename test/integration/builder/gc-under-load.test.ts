// Retention while a gateway serves and a builder publishes: every answer is 200 and one of the
// versions published, because retention keeps the current snapshot and any replaced within the
// grace period (longer than a gateway holds a replaced manifest), with every object they name.
// The gateway reads its store with some latency, as from S3, so it is still loading a snapshot's
// manifest and objects well after it read the pointer: with no grace, gc deletes them under it
// (the test then fails: GRACE_MINUTES = 0 makes it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishSnapshot } from '../../../builder/publish.ts';
import { applyRetention, retainOrganization, retentionPolicy } from '../../../builder/retention.ts';
import { listSnapshotIds } from '../../../snapshot/reader.ts';
import type { SnapshotSource } from '../../../snapshot/store.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { API, type GatewayHarness, startHarness } from '../../support/gateway-fixtures.ts';

const ORG = '0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11';
const MEMBER = '5d1f0c3a-9b7e-4a21-8c44-1e2f3a4b5c6d';
const RUN_MS = 8000;
/** Seconds, not an hour: so that snapshots and objects really are deleted during the run. */
const GRACE_MINUTES = 3 / 60;

const version = (n: number) => ({
  organizationId: ORG,
  organizationSlug: 'nordic',
  state: 'active' as const,
  trigger: 'change' as const,
  slugs: {},
  resources: [
    { path: '/organization', value: { id: ORG, name: 'Nordic' } },
    { path: '/team', value: [{ id: MEMBER, fullName: `Member ${n}`, title: 'Host', bio: null, photo: null, linkedInUrl: null, websiteUrl: null, sortOrder: n }] },
  ],
  now: new Date(),
});

/** The gateway's view of the store: each read answers after READ_LATENCY_MS. */
const READ_LATENCY_MS = 40;
class SlowReads implements SnapshotSource {
  readonly description = 'memory, read with latency';
  constructor(private readonly inner: SnapshotSource) {}
  private later<T>(read: () => Promise<T>): Promise<T> {
    return new Promise((resolve) => setTimeout(resolve, READ_LATENCY_MS)).then(read);
  }
  get(key: string) {
    return this.later(() => this.inner.get(key));
  }
  getIfChanged(key: string, version: string | undefined) {
    return this.later(() => this.inner.getIfChanged(key, version));
  }
  has(key: string) {
    return this.later(() => this.inner.has(key));
  }
}

let harness: GatewayHarness;
const store = new MemoryStore();
beforeAll(async () => {
  harness = await startHarness({ store, deps: { snapshots: new SlowReads(store) } });
});
afterAll(async () => {
  await harness?.close();
});

describe('retention under a serving gateway and a publishing builder', () => {
  it('never breaks a request', async () => {
    await publishSnapshot(store, version(0));
    const key = await harness.keyFor(ORG);
    const deadline = Date.now() + RUN_MS;
    let published = 1;
    const publisher = async () => {
      for (; Date.now() < deadline; published++) {
        await publishSnapshot(store, version(published));
        // The build's own retention, for the organization it published.
        await retainOrganization(store, ORG, retentionPolicy({ keep: 1, days: 0, graceMinutes: GRACE_MINUTES }));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    let deleted = 0;
    const collector = async () => {
      while (Date.now() < deadline) {
        deleted += (await applyRetention(store, { keep: 1, days: 0, graceMinutes: GRACE_MINUTES })).manifestsDeleted;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const failures: string[] = [];
    let answered = 0;
    const client = async () => {
      while (Date.now() < deadline) {
        const reply = await harness.call(`${API}/team`, { key });
        answered++;
        const body = reply.status === 200 ? reply.json<Array<{ fullName: string; sortOrder: number }>>() : undefined;
        const n = body?.[0]?.sortOrder ?? -1;
        if (reply.status !== 200 || !(n >= 0 && n <= published) || body?.[0]?.fullName !== `Member ${n}`) failures.push(`${reply.status} ${reply.body.slice(0, 200)}`);
      }
    };
    await Promise.all([publisher(), collector(), ...Array.from({ length: 8 }, client)]);
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(500);
    // Retention really ran: most of the snapshots published are gone, the newest remain.
    const total = (await listSnapshotIds(store, ORG)).length;
    expect(published).toBeGreaterThan(50);
    expect(total).toBeLessThan(published);
    expect(deleted + total).toBeLessThanOrEqual(published);
  }, 60_000);
});
