// A build lock lost while held (docs/design.md "A run never lies"): two builders on one real Redis
// and one directory store. Builder A holds an organization's lock and has read its changed rows;
// Redis is flushed, so the lock is gone; builder B takes it afresh, reads rows changed once more and
// publishes; then A publishes what it read. A's pointer write expects the version A read before its
// rows, which B's publish replaced, so the store refuses it: A builds again from a fresh read and
// finds nothing to change. The organization serves B's content, its snapshot whole, and A's older
// rows are never published over B's newer ones.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrganizations } from '../../../builder/build.ts';
import type { PlatformSource } from '../../../builder/platform/rows.ts';
import { RedisBuildLocks } from '../../../builder/redis-build-locks.ts';
import { readManifest, readObjectBytes, readPointer } from '../../../snapshot/reader.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { setup } from '../../support/memory-platform.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

let redis: TestRedis;
let dir: string;
beforeAll(async () => {
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), 'marquee-lock-lost-'));
});
afterAll(async () => {
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('a build lock lost while its build runs', () => {
  it('lets no build publish rows read before another builder published newer ones', async () => {
    const { fixture, source, context, orgId } = setup();
    const store = new DirectoryStore(dir);
    const log = new RecordingLog();
    const [locksA, locksB] = [new RedisBuildLocks(redis.url, { log }), new RedisBuildLocks(redis.url, { log })];
    await buildOrganizations({ ...context, store }, { trigger: 'start' });
    fixture.teamMembers[0]!.fullName = 'Grace Brewster';
    source.data.set(orgId, fixture.data());

    // The rows change; builder A reads them as they are now, then stalls before publishing them.
    let readByA: () => void = () => {};
    const aHasRead = new Promise<void>((resolve) => {
      readByA = resolve;
    });
    let resumeA: () => void = () => {};
    const stalled = new Promise<void>((resolve) => {
      resumeA = resolve;
    });
    const sourceA: PlatformSource = {
      listOrganizations: () => source.listOrganizations(),
      async readOrganization(id) {
        const rows = structuredClone(source.data.get(id));
        readByA();
        await stalled;
        return rows;
      },
      close: async () => {},
    };
    const buildA = buildOrganizations({ ...context, store, source: sourceA, locks: locksA }, { trigger: 'change', organizationIds: [orgId] });
    await aHasRead;

    // Redis loses its data: A's lock with it. The rows change again, and builder B builds them.
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();
    fixture.teamMembers[0]!.fullName = 'Grace Hopper';
    source.data.set(orgId, fixture.data());
    const [byB] = await buildOrganizations({ ...context, store, locks: locksB }, { trigger: 'change', organizationIds: [orgId] });
    expect(byB).toMatchObject({ result: 'published' });

    resumeA();
    const [byA] = await buildA;
    // Refused at the pointer, built again from a fresh read: what B published is what the rows say.
    expect(byA, byA?.error).toMatchObject({ result: 'unchanged', snapshotId: byB!.snapshotId });

    const pointer = (await readPointer(store, orgId))!;
    expect(pointer.snapshotId).toBe(byB!.snapshotId);
    const manifest = (await readManifest(store, orgId, pointer.snapshotId!, pointer.manifestHash!))!;
    for (const hash of Object.values(manifest.resources)) expect(await readObjectBytes(store, orgId, hash)).toBeDefined();
    const team = JSON.parse((await readObjectBytes(store, orgId, manifest.resources['/team']!))!.toString('utf8')) as Array<{ fullName: string }>;
    expect(team.map((member) => member.fullName)).toEqual(['Grace Hopper']);
    await Promise.all([locksA.close(), locksB.close()]);
  });
});
