// What an operator meets first: the version, and a MARQUEE_HOME that cannot be created, refused at
// once with its name instead of hanging or failing deep inside.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { marquee } from '../../support/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'marquee-first-run-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('prints the version of the package', async () => {
  const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
  expect(await marquee(['--version'], {})).toMatchObject({ code: 0, stdout: `${version}\n` });
});

it('names a MARQUEE_HOME that cannot be created, at once, for start and the commands that keep files there', async () => {
  const file = join(dir, 'a-file');
  await writeFile(file, '');
  const home = join(file, 'home');
  for (const args of [['start'], ['keys', 'list'], ['build']]) {
    const began = Date.now();
    const run = await marquee(args, { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0' });
    expect({ args, code: run.code }).toEqual({ args, code: 1 });
    expect(run.stderr).toMatch(
      new RegExp(`^marquee: (MARQUEE_HOME=${home} cannot be created|cannot create the embedded database directory ${home}/platform \\(MARQUEE_HOME=${home}\\)): ENOTDIR`),
    );
    expect(Date.now() - began).toBeLessThan(10_000);
  }
});

it('exits 2 on a wrong command line, after saying what is wrong, and 0 for --help', async () => {
  for (const [args, message] of [
    [['nosuch'], "error: unknown command 'nosuch'"],
    [['gc', '--keep', 'x'], "error: option '--keep <n>' argument 'x' is invalid"],
    [['history'], "error: required option '--org <id|slug>' not specified"],
  ] as const) {
    const run = await marquee([...args], {});
    expect({ args, code: run.code }).toEqual({ args, code: 2 });
    expect(run.stderr).toContain(message);
  }
  expect(await marquee(['keys', '--help'], {})).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: marquee keys') });
});
