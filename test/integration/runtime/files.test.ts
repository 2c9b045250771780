import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLockFile, LockFileBusyError, writeFileAtomically } from '../../../runtime/files.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'marquee-files-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const goneProcess = () => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
const age = async (path: string, ms: number) => {
  const then = new Date(Date.now() - ms);
  await utimes(path, then, then);
};

describe('writeFileAtomically', () => {
  it('replaces the file with its mode, synced or not, and leaves no temporary file', async () => {
    const path = join(dir, 'keys.json');
    await writeFileAtomically(path, 'one', { fsync: true, mode: 0o600 });
    await writeFileAtomically(path, Buffer.from('two'), { fsync: false, mode: 0o600 });
    expect(await readFile(path, 'utf8')).toBe('two');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['keys.json']);
  });

  it('removes its temporary file when the rename fails', async () => {
    const path = join(dir, 'taken');
    await mkdir(join(path, 'inside'), { recursive: true }); // a non-empty folder cannot be renamed over
    await expect(writeFileAtomically(path, 'x', { fsync: false, temporarySuffix: '.partial' })).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['taken']);
  });
});

describe('acquireLockFile', () => {
  it('is exclusive: a second taker is refused at once, naming the holder, until the lock is released', async () => {
    const path = join(dir, 'marquee.lock');
    const release = await acquireLockFile(path, { takeOver: 'ownerGone' });
    expect((await readFile(path, 'utf8')).trim()).toBe(String(process.pid));
    const refused = acquireLockFile(path, { takeOver: 'ownerGone' });
    await expect(refused).rejects.toThrow(LockFileBusyError);
    await expect(refused).rejects.toMatchObject({ owner: process.pid });
    await release();
    await (await acquireLockFile(path, { takeOver: 'ownerGone' }))();
  });

  it('waits up to waitMs for the holder to release it', async () => {
    const path = join(dir, 'keys.json.lock');
    const release = await acquireLockFile(path, { takeOver: { olderThanMs: 30_000 } });
    setTimeout(() => void release(), 30);
    const started = Date.now();
    await (await acquireLockFile(path, { waitMs: 5_000, takeOver: { olderThanMs: 30_000 } }))();
    expect(Date.now() - started).toBeLessThan(2_000);
    await writeFile(path, `${process.pid}\n`);
    await expect(acquireLockFile(path, { waitMs: 50, takeOver: { olderThanMs: 30_000 } })).rejects.toThrow(LockFileBusyError);
  });

  it('takes over a lock whose owner is gone, or one without an owner left for seconds', async () => {
    const path = join(dir, 'marquee.lock');
    await writeFile(path, String(goneProcess()));
    await (await acquireLockFile(path, { takeOver: 'ownerGone' }))();

    await writeFile(path, ''); // a taker between creating the file and writing its id
    await expect(acquireLockFile(path, { takeOver: 'ownerGone' })).rejects.toMatchObject({ owner: undefined });
    await age(path, 60_000);
    await (await acquireLockFile(path, { takeOver: 'ownerGone' }))();
  });

  it('takes over a lock older than olderThanMs, whoever it names', async () => {
    const path = join(dir, 'keys.json.lock');
    await writeFile(path, `${process.pid}\n`);
    await age(path, 60_000);
    await (await acquireLockFile(path, { takeOver: { olderThanMs: 30_000 } }))();
  });
});

describe('isPointerKey (the snapshot files the directory store syncs)', () => {
  it('is true of pointers only', async () => {
    const { isPointerKey, manifestKey, objectKey, pointerKey } = await import('../../../snapshot/layout.ts');
    expect(isPointerKey(pointerKey('a0000000-0000-4000-8000-000000000001'))).toBe(true);
    expect([manifestKey('o', 'current'), objectKey('o', 'current'), 'orgs/o/x/current.json', 'current.json'].map(isPointerKey)).toEqual([false, false, false, false]);
  });
});
