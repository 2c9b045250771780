// What a new operator tripped on, refused before anything is made: `SNAPSHOT_STORE=s3://… marquee
// start` made and seeded a database and wrote an admin token under a fresh MARQUEE_HOME, then
// stopped with exit 1 over the missing signing key; and `keys create --origin` with a path opened
// the database first, exited 1, and other wrong values printed the whole help. Through the real
// program: bad configuration exits 2 naming every bad variable, a wrong value or combination of
// options exits 2 with what is wrong and the command's usage line, and the home stays unmade.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marquee } from '../../support/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'marquee-refusals-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What is left of `home` after a command: nothing when it was never made. */
const leftIn = (home: string) => readdir(home).catch(() => 'never made');

describe('bad configuration', () => {
  it('stops start, builder and build with exit 2 naming every bad variable, before MARQUEE_HOME is made', async () => {
    const runs = [['start'], ['builder'], ['build']].map(async (args, n) => {
      const home = join(dir, `s3-${n}`);
      const run = await marquee(args, { MARQUEE_HOME: home, SNAPSHOT_STORE: 's3://nobucket', LOG_FORMAT: 'text', PORT: '0', ADMIN_PORT: '0' });
      return { args, run, left: await leftIn(home) };
    });
    for (const { args, run, left } of await Promise.all(runs)) {
      expect({ args, code: run.code, stdout: run.stdout, left }).toEqual({ args, code: 2, stdout: '', left: 'never made' });
      expect(run.stderr).toMatch(/^marquee: invalid configuration:\n {2}- SNAPSHOT_SIGNING_KEY is not set: builders publishing to an s3:\/\/ store sign history/);
      expect(run.stderr).toContain('\n  - LOG_FORMAT must be json or pretty, got "text"\n');
    }
  });

  it('names a signing key file that does not exist, and one port given to both PORT and ADMIN_PORT, all at once', async () => {
    const home = join(dir, 'ports');
    const missing = join(dir, 'no-such-key.pem');
    const run = await marquee(['start'], { MARQUEE_HOME: home, SNAPSHOT_SIGNING_KEY: missing, PORT: '18291', ADMIN_PORT: '18291' });
    expect({ code: run.code, left: await leftIn(home) }).toEqual({ code: 2, left: 'never made' });
    expect(run.stderr).toBe(
      `marquee: invalid configuration:\n  - SNAPSHOT_SIGNING_KEY (${missing}) does not exist (make one with: marquee signing-key create FILE)\n  - PORT and ADMIN_PORT must be two ports, both are 18291\n`,
    );
  });

  it('leaves the commands that do not build alone with an s3:// store and no signing key', async () => {
    const home = join(dir, 'reader');
    // keys reads no signing key: it gets as far as looking for the database.
    const run = await marquee(['keys', 'list'], { MARQUEE_HOME: home, SNAPSHOT_STORE: 's3://nobucket' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^marquee: no embedded database in /);
  });
});

describe('a wrong command line', () => {
  const home = () => join(dir, 'arguments');
  /** The command line as a test's name, a long value cut short. */
  const named = <T extends { args: string[] }>(cases: T[]) => cases.map((c) => ({ ...c, line: c.args.map((arg) => (arg.length > 40 ? `${arg.slice(0, 8)}…` : arg)).join(' ') }));

  it.each(
    named([
      {
        args: ['keys', 'create', '--org', 'x', '--origin', 'http://127.0.0.1:18290/'],
        says: `error: option '--origin <origin>' argument 'http://127.0.0.1:18290/' is invalid. "http://127.0.0.1:18290/" is not an origin: only scheme://host[:port], without path, query, user or spaces`,
        usage: 'Usage: marquee keys create [options]',
      },
      { args: ['keys', 'update', 'key_x', '--origin', 'https://x.example/path'], says: 'is not an origin', usage: 'Usage: marquee keys update [options] <key-id>' },
      { args: ['keys', 'create', '--org', 'x', '--expires', 'soon'], says: 'marquee: --expires "soon" is neither a duration', usage: 'Usage: marquee keys create [options]' },
      {
        args: ['keys', 'create', '--org', 'x', '--expires', '2020-01-01T00:00:00Z'],
        says: 'marquee: --expires 2020-01-01T00:00:00.000Z is not in the future',
        usage: 'Usage: marquee keys create [options]',
      },
      { args: ['keys', 'roll', 'key_x', '--grace', 'a while'], says: 'marquee: --grace "a while" is not a duration', usage: 'Usage: marquee keys roll [options] <key-id>' },
      {
        args: ['keys', 'update', 'key_x', '--no-origins', '--origin', 'https://a.example'],
        says: 'marquee: --no-origins and --origin contradict each other',
        usage: 'Usage: marquee keys update [options] <key-id>',
      },
      { args: ['keys', 'update', 'key_x'], says: 'marquee: nothing to change for key key_x', usage: 'Usage: marquee keys update [options] <key-id>' },
      {
        args: ['webhooks', 'add', '--org', 'x', '--url', 'not a url'],
        says: 'marquee: url must be an absolute https URL, got "not a url"',
        usage: 'Usage: marquee webhooks add [options]',
      },
      {
        args: ['webhooks', 'update', 'ep_x', '--enable', '--disable'],
        says: 'marquee: --enable and --disable contradict each other',
        usage: 'Usage: marquee webhooks update [options] <endpoint-id>',
      },
      {
        args: ['webhooks', 'update', 'ep_x', '--description', 'x'.repeat(501)],
        says: 'marquee: --description must be at most 500 characters',
        usage: 'Usage: marquee webhooks update [options] <endpoint-id>',
      },
      { args: ['audit-log', '--limit', '0'], says: `error: option '--limit <n>' argument '0' is invalid.`, usage: 'Usage: marquee audit-log [options] [command]' },
      { args: ['diff', '--org', 'x'], says: 'marquee: give either FROM and TO, or --since INSTANT', usage: 'Usage: marquee diff [options] [from] [to]' },
      { args: ['verify'], says: 'marquee: give either --org ID|SLUG or --all', usage: 'Usage: marquee verify [options]' },
      { args: ['db', 'seed'], says: 'marquee: say what to seed: marquee db seed --sample', usage: 'Usage: marquee db seed [options]' },
      { args: ['gc', '--keep', 'x'], says: `error: option '--keep <n>' argument 'x' is invalid.`, usage: 'Usage: marquee gc [options]' },
    ]),
  )('marquee $line: exit 2, what is wrong and the usage line, nothing opened', async ({ args, says, usage }) => {
    const run = await marquee(args, { MARQUEE_HOME: home() });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    const [first, ...rest] = run.stderr.trimEnd().split('\n');
    expect(first).toContain(says);
    const command = usage.replace(/^Usage: /, '').replace(/ \[options\].*$/, '');
    // The usage line, not the whole help (which listed every option and buried the line above).
    expect(rest).toEqual([usage, `(${command} --help for more)`]);
    expect(await leftIn(home())).toBe('never made');
  });
});
