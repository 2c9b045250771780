import { chmod, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { takeOthersBitsOff } from '../../../runtime/owner-only.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'marquee-owner-only-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

it('takes group and other bits off every directory and file, counts what it changed, and neither follows nor counts a link', async () => {
  const home = join(dir, 'home');
  await mkdir(join(home, 'platform', 'pg_wal'), { recursive: true });
  await writeFile(join(home, 'platform', 'pg_wal', '000000010000000000000001'), '');
  await writeFile(join(home, 'keys.json'), '{}');
  await writeFile(join(home, 'admin-token'), 'x');
  await writeFile(join(dir, 'outside'), '');
  await symlink(join(dir, 'outside'), join(home, 'link'));
  for (const [path, mode] of [
    [home, 0o755],
    [join(home, 'platform'), 0o777],
    [join(home, 'platform', 'pg_wal'), 0o700],
    [join(home, 'platform', 'pg_wal', '000000010000000000000001'), 0o666],
    [join(home, 'keys.json'), 0o644],
    [join(home, 'admin-token'), 0o600],
    [join(dir, 'outside'), 0o644],
  ] as const)
    await chmod(path, mode);

  expect(takeOthersBitsOff(home)).toMatchObject({ root: home, entries: 6, changed: 4, refused: { count: 0 } });
  expect(await Promise.all([home, join(home, 'platform'), join(home, 'platform', 'pg_wal', '000000010000000000000001'), join(home, 'keys.json')].map(modeOf))).toEqual([
    '700',
    '700',
    '600',
    '600',
  ]);
  expect(await modeOf(join(dir, 'outside'))).toBe('644');
  // Nothing left to change: the next walk only looks.
  expect(takeOthersBitsOff(home)).toMatchObject({ entries: 6, changed: 0 });
});

it('is an empty walk where there is no home yet, or a file where its directory should be', async () => {
  expect(takeOthersBitsOff(join(dir, 'none'))).toMatchObject({ entries: 0, changed: 0 });
  await writeFile(join(dir, 'a-file'), '');
  expect(takeOthersBitsOff(join(dir, 'a-file', 'home'))).toMatchObject({ entries: 0, changed: 0 });
});
