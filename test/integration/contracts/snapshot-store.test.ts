// The SnapshotStore contract (test/contracts/snapshot-store.ts) against the directory store, on a
// fresh temporary directory per test; a second DirectoryStore on the same directory stands for
// another process, and a crashed put is what one leaves behind: its temporary file, never renamed.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publishSnapshot } from '../../../builder/publish.ts';
import { DirectoryStore, LOCK_SUFFIX, TEMP_SUFFIX } from '../../../snapshot/stores/directory.ts';
import { snapshotStoreContract } from '../../contracts/snapshot-store.ts';
import { expectCodedForms, resourcesWithLargeOnes } from '../../support/coded-forms.ts';

snapshotStoreContract('DirectoryStore', {
  async setup() {
    const root = await mkdtemp(join(tmpdir(), 'marquee-store-contract-'));
    return {
      root,
      store: new DirectoryStore(root),
      other: () => new DirectoryStore(root),
      async interruptWrite(key: string, bytes: Uint8Array, at: Date) {
        const target = join(root, key);
        await mkdir(dirname(target), { recursive: true });
        const temp = `${target}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`;
        await writeFile(temp, bytes);
        await utimes(temp, at, at);
      },
    };
  },
  teardown: ({ root }) => rm(root, { recursive: true, force: true }),
  capabilities: ['other', 'interruptWrite'],
});

describe('DirectoryStore beyond the contract', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'marquee-store-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('keeps each key as a file at that path below the root, and leaves no temporary or lock file behind', async () => {
    const store = new DirectoryStore(root);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.put(`orgs/a/objects/${i}.json`, Buffer.from(`${i}`))));
    await store.put('orgs/a/current.json', Buffer.from('p'));
    expect(await store.putIfVersion('orgs/a/current.json', Buffer.from('q'), null)).toBe('conflict');
    expect(await store.putIfVersion('orgs/b/current.json', Buffer.from('q'), null)).toBe('written');
    const names = await readdir(root, { recursive: true });
    expect(names.filter((name) => name.endsWith(TEMP_SUFFIX))).toEqual([]);
    expect(names).toContain(join('orgs', 'a', 'current.json'));
    expect(names.filter((name) => name.startsWith(`${join('orgs', 'a', 'objects')}${sep}`))).toHaveLength(20);
  });

  it("keeps a publish's coded forms as files beside each object's JSON, which decode to it", async () => {
    const store = new DirectoryStore(root);
    const org = '0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11';
    await publishSnapshot(store, {
      organizationId: org,
      organizationSlug: 'nordic',
      state: 'active',
      trigger: 'manual',
      now: new Date(),
      slugs: {},
      resources: resourcesWithLargeOnes(org, 'Nordic'),
      codings: ['br', 'gzip'],
    });
    expect(await expectCodedForms(store, org, ['br', 'gzip'])).toBe(1);
    const files = await readdir(join(root, 'orgs', org, 'objects'));
    expect(files.filter((name) => !name.endsWith('.json')).map((name) => name.slice(64))).toEqual(['.json.br', '.json.gz']);
  });

  it('takes over the lock a conditional writer died holding, hides it from list, and sweeps it', async () => {
    const store = new DirectoryStore(root);
    await store.put('orgs/a/current.json', Buffer.from('one'));
    const hourAgo = new Date(Date.now() - 3_600_000);
    // What a writer killed between taking the lock and releasing it leaves: the lock, named for its process.
    const lock = join(root, 'orgs', 'a', `current.json${LOCK_SUFFIX}`);
    await writeFile(lock, '999999999\n');
    await utimes(lock, hourAgo, hourAgo);
    expect(await store.list('')).toEqual(['orgs/a/current.json']);
    expect(await store.putIfVersion('orgs/a/current.json', Buffer.from('two'), null)).toBe('conflict');
    expect((await store.get('orgs/a/current.json'))?.toString()).toBe('one');
    await expect(stat(lock)).rejects.toMatchObject({ code: 'ENOENT' });

    const leftover = join(root, 'orgs', 'b', `current.json${LOCK_SUFFIX}`);
    await mkdir(dirname(leftover), { recursive: true });
    await writeFile(leftover, '999999999\n');
    await utimes(leftover, hourAgo, hourAgo);
    expect(await store.sweepInterrupted(new Date(Date.now() - 60_000))).toBe(1);
    await expect(stat(leftover)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await store.putIfVersion('orgs/b/current.json', Buffer.from('first'), null)).toBe('written');
  });
});
