// Another account on the machine gets nothing from a running `marquee start` that an anonymous
// client would not (docs/reliability.md "What an attacker on the machine can do"): tried as
// `nobody`, not read off mode bits. One start serves every case: its home was open to everyone
// before (0777, with a 0666 file), which that start must tighten, saying so in one line; a webhook
// endpoint then puts a `whsec_` secret into the database's WAL.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { marquee, marqueeProcess } from '../../support/cli.ts';

/** nobody:nogroup on Debian; libuv drops the supplementary groups when it changes the ids. */
const NOBODY = { uid: 65534, gid: 65534 };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A shell command as `nobody`, with a HOME it can write (psql wants one). */
const asNobody = (command: string) =>
  new Promise<Run>((resolve) => {
    execFile('sh', ['-c', command], { ...NOBODY, cwd: '/tmp', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp' }, timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });

const asRoot = (command: string) =>
  new Promise<Run>((resolve) => {
    execFile('sh', ['-c', command], (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }));
  });

let dir: string;
let home: string;
let env: Record<string, string>;
let start: Awaited<ReturnType<typeof marqueeProcess>>;
let secret: string;

beforeAll(async () => {
  // The home's parent is open to everyone, as /srv or a home directory may be: what keeps others
  // out must be the home's own modes.
  dir = await mkdtemp(join(tmpdir(), 'marquee-hostile-'));
  await chmod(dir, 0o755);
  home = join(dir, 'home');
  env = { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0', WEBHOOK_ALLOW_INSECURE: '1', WEBHOOK_ALLOW_PRIVATE: '1' };
  // A home as an earlier release, a copy or a loose umask left it: open to everyone, with a file
  // that must not be read; and a link out of it, which the tightening must not follow.
  await mkdir(join(home, 'notes'), { recursive: true });
  await writeFile(join(home, 'notes', 'secret.txt'), 'whsec_planted\n');
  await writeFile(join(dir, 'outside.txt'), 'not the home\n');
  await symlink(join(dir, 'outside.txt'), join(home, 'link-out'));
  for (const [path, mode] of [
    [home, 0o777],
    [join(home, 'notes'), 0o777],
    [join(home, 'notes', 'secret.txt'), 0o666],
    [join(dir, 'outside.txt'), 0o644],
  ] as const)
    await chmod(path, mode);
  // No latency is under test here: a loaded machine may take its time to start.
  start = await marqueeProcess(['start'], env, /console: http:\/\/\S+\/ \(/, { readyTimeoutMs: 150_000 });
  const added = await marquee(['webhooks', 'add', '--org', 'nordic-dev', '--url', 'http://127.0.0.1:9/hook', '--json'], env);
  expect(added.code, added.stderr).toBe(0);
  secret = (JSON.parse(added.stdout) as { secret: string }).secret;
});

afterAll(async () => {
  await start?.stop();
  await rm(dir, { recursive: true, force: true });
});

it('a home open to everyone is made owner-only by the next start, which says so in one line, and a link out of it is not followed', async () => {
  const lines = start
    .output()
    .split('\n')
    .filter((line) => line.includes(`MARQUEE_HOME=${home}:`));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/"message":"MARQUEE_HOME=[^"]+: 3 of 3 entries had group or other permissions; made owner-only \(directories 0700, files 0600\) in \d+ ms"/);
  expect(((await stat(join(home, 'notes', 'secret.txt'))).mode & 0o777).toString(8)).toBe('600');
  expect(((await stat(join(dir, 'outside.txt'))).mode & 0o777).toString(8)).toBe('644');
});

it('everything under MARQUEE_HOME is owner-only while start runs, also what it and the commands beside it made since', async () => {
  // The secret is on the disk (the premise of the next case), and nothing there has group or other bits.
  const onDisk = await asRoot(`grep -rlaF '${secret}' '${home}/platform'`);
  expect(onDisk.stdout).not.toBe('');
  const loose = await asRoot(`find '${home}' ! -type l -perm /077 -printf '%m %p\\n'`);
  expect(loose).toMatchObject({ code: 0, stdout: '' });
  expect(((await stat(home)).mode & 0o777).toString(8)).toBe('700');
});

it('another account can list, read and write nothing there: no token, no key, no signing key, no snapshot, no webhook secret from the WAL', async () => {
  const token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
  expect(token.length).toBeGreaterThan(16);
  for (const command of [
    `ls '${home}'`,
    `cat '${home}/admin-token'`,
    `cat '${home}/demo-key.json'`,
    `cat '${home}/keys.json'`,
    `cat '${home}/signing-key.pem'`,
    `ls '${home}/snapshots'`,
    `ls '${home}/platform'`,
    `cat '${home}/platform/pg_hba.conf'`,
    `cat '${home}/notes/secret.txt'`,
    `touch '${home}/planted'`,
    `mkdir '${home}/planted'`,
  ]) {
    const tried = await asNobody(command);
    expect({ command, code: tried.code, stdout: tried.stdout }).toEqual({ command, code: expect.any(Number), stdout: '' });
    expect(tried.code, command).not.toBe(0);
    expect(tried.stderr, command).toContain('Permission denied');
  }
  const grep = await asNobody(`grep -rao 'whsec_[A-Za-z0-9]*' '${home}'`);
  expect(grep.stdout).toBe('');
  expect(grep.code).toBe(2);
  expect(grep.stderr).toContain('Permission denied');
});

// Fails until the embedded database is served on a Unix socket in an owner-only directory: a
// loopback TCP port admits every account on the machine.
it('another account cannot reach the embedded database start serves', async () => {
  const { url } = JSON.parse(await readFile(join(home, 'platform', 'served.json'), 'utf8')) as { url: string };
  const psql = await asNobody(`psql '${url.replaceAll("'", "'\\''")}' -X -At -c 'select 1'`);
  expect({ code: psql.code, stdout: psql.stdout }).toEqual({ code: expect.any(Number), stdout: '' });
  expect(psql.code).not.toBe(0);
});
