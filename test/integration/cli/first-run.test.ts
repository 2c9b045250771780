// What an operator meets first: the version, a MARQUEE_HOME that cannot be created, refused at
// once with its name instead of hanging or failing deep inside, and a MARQUEE_HOME with no
// database, which the commands that only use one refuse instead of making a new, empty one.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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
      new RegExp(
        `^marquee: (MARQUEE_HOME=${home} cannot be created: ENOTDIR|cannot create the embedded database directory ${home}/platform \\(MARQUEE_HOME=${home}\\): ENOTDIR|no embedded database in ${home}/platform \\(MARQUEE_HOME=${home}\\))`,
      ),
    );
    expect(Date.now() - began).toBeLessThan(10_000);
  }
});

it('refuses every command that only uses the database when MARQUEE_HOME has none, naming where it looked, and makes nothing there', async () => {
  const home = join(dir, 'not-the-home');
  const commands = [
    ['keys', 'list'],
    ['keys', 'list', '--json'],
    ['keys', 'create', '--org', 'nordic-dev'],
    ['keys', 'revoke', 'key_x'],
    ['webhooks', 'list'],
    ['webhooks', 'attempts', 'ep_x'],
    ['webhooks', 'add', '--org', 'nordic-dev', '--url', 'https://example.org/'],
    ['history', '--org', 'nordic-dev'],
    ['show', '--org', 'nordic-dev', '--at', '2026-01-01T00:00:00Z', '/events'],
    ['build'],
    ['builder'],
    ['db', 'seed', '--sample'],
    ['db', 'sql', 'SELECT 1'],
  ];
  // All at once: each is a process that starts, looks and refuses; none waits for another.
  const runs = await Promise.all(commands.map(async (args) => ({ args, run: await marquee(args, { MARQUEE_HOME: home, ADMIN_PORT: '0' }) })));
  for (const { args, run } of runs) {
    expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 1, stdout: '' });
    expect(run.stderr.trim()).toBe(
      `marquee: no embedded database in ${home}/platform (MARQUEE_HOME=${home}): set MARQUEE_HOME to the directory \`marquee start\` uses (./var by default, from where it was run), or DATABASE_URL to a PostgreSQL database; \`marquee start\` or \`marquee db migrate\` make a new one`,
    );
  }
  // Not even an empty directory was left behind. (That `db migrate` makes one, which the same
  // commands then answer from, cli/audit-history shows on its own home.)
  expect(await readdir(home).catch(() => [])).not.toContain('platform');
}, 120_000);

it('exits 2 on a wrong command line, after saying what is wrong and the usage line (not the whole help), and 0 for --help', async () => {
  for (const [args, message, usage] of [
    [['nosuch'], "error: unknown command 'nosuch'", 'Usage: marquee [options] [command]'],
    [['gc', '--keep', 'x'], "error: option '--keep <n>' argument 'x' is invalid", 'Usage: marquee gc [options]'],
    [['history'], "error: required option '--org <id|slug>' not specified", 'Usage: marquee history [options]'],
  ] as const) {
    const run = await marquee([...args], {});
    expect({ args, code: run.code }).toEqual({ args, code: 2 });
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain(`\n${usage}\n`);
    expect(run.stderr).not.toContain('Options:');
  }
  expect(await marquee(['keys', '--help'], {})).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: marquee keys') });
});
