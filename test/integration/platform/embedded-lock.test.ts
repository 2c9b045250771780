import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openPglite } from '../../../records/database/pglite.ts';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('one process at a time: a second opener is refused with the owner named, until the first closes', async () => {
  dir = await mkdtemp(join(tmpdir(), 'marquee-lock-'));
  const first = await openPglite(dir);
  await expect(openPglite(dir)).rejects.toThrow(`the embedded database ${dir} is in use by process ${process.pid}`);
  await first.close();
  const second = await openPglite(dir);
  expect(await second.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  await second.close();
});

it('takes over a lock left by a process that is gone', async () => {
  dir = await mkdtemp(join(tmpdir(), 'marquee-lock-'));
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  await writeFile(join(dir, 'marquee.lock'), gone);
  const db = await openPglite(dir);
  await db.close();
});
