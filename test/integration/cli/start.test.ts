// `npm start` runs `bin/marquee start`: on an empty MARQUEE_HOME it migrates, seeds, builds,
// serves, and prints a demo key with a curl line that works exactly as printed; the other
// commands work beside it, and a change made with one is served within a second; a second start
// on the same home is refused, naming the first.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { marquee, marqueeProcess } from '../../support/cli.ts';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-start-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const bin = fileURLToPath(new URL('../../../bin/marquee', import.meta.url));

/** A command that should end by itself, bounded: a second start that did not refuse would serve until killed. */
const run = (command: string, args: string[], env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(command, args, { env: { ...process.env, ...env }, timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });

const shell = (command: string) =>
  new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile('sh', ['-c', command], (error, stdout) => resolve({ code: error ? 1 : 0, stdout }));
  });

/** Whether a TCP connection to host:port is accepted. */
const connects = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, host, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

const gatewayUrl = (output: string) => /gateway listening on (http:\/\/\S+)/.exec(output)![1]!;

it('starts from nothing and prints a curl line that works as printed; commands work beside it; a restart prints the same key', async () => {
  const first = await marqueeProcess(['start'], { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0' }, /try: (curl .*)\n/);
  let key: string;
  try {
    const output = first.output();
    // On loopback unless GATEWAY_HOST says otherwise, and the address printed is the one bound
    // (docs/design.md "Process model and configuration"): another interface of this machine is not listened on.
    const printed = new URL(gatewayUrl(output));
    expect(printed.hostname).toBe('127.0.0.1');
    expect(output).not.toContain('on every interface');
    const external = Object.values(networkInterfaces())
      .flat()
      .find((nic) => nic !== undefined && !nic.internal && nic.family === 'IPv4');
    if (external !== undefined) expect(await connects(external.address, Number(printed.port))).toBe(false);
    expect(await connects('127.0.0.1', Number(printed.port))).toBe(true);
    expect(output).toContain('sample data loaded: nordic-dev, pacific-oss, harbor-games, old-town-meetups');
    expect(output).toMatch(/start run over 4 organizations in \d+\.\d s: 4 built \(2 published, 2 suspended\)/);
    key = /demo key for nordic-dev: (mqk_\w+)/.exec(output)![1]!;
    const curl = await shell(first.match[1]!);
    expect(curl.code).toBe(0);
    const page = JSON.parse(curl.stdout);
    expect(page).toMatchObject({ page: 1, pageSize: 20, hasMore: false });
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((event: { timing: string }) => event.timing === 'upcoming')).toBe(true);
    // Beside the running start, every command works: it reaches the embedded database through
    // start's loopback port (records/database/embedded-server.ts). README's walkthrough, as written:
    // hide a team member, and /team no longer lists them within a second.
    const team = async () => (await fetch(`${gatewayUrl(first.output())}/api/integration/v1/team`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(JSON.stringify(await team())).toContain('Astrid Lindqvist');
    const hide = await marquee(['db', 'sql', "UPDATE team_members SET show_on_website = false WHERE full_name = 'Astrid Lindqvist'"], { MARQUEE_HOME: home });
    expect(hide).toMatchObject({ code: 0, stdout: 'UPDATE 1: 1 row changed\n' });
    const changed = Date.now();
    await expect.poll(async () => JSON.stringify(await team()), { timeout: 1_000, interval: 50 }).not.toContain('Astrid Lindqvist');
    expect(Date.now() - changed).toBeLessThan(1_000);
    const history = await marquee(['history', '--org', 'nordic-dev'], { MARQUEE_HOME: home });
    expect(history.code).toBe(0);
    expect(history.stdout.split('\n')[0]).toMatch(/ change .*\(current\)$/);
    const build = await marquee(['build', '--org', 'nordic-dev'], { MARQUEE_HOME: home });
    expect(build).toMatchObject({ code: 0 });
    expect(build.stdout).toContain('1 organizations: 0 published, 1 unchanged');
    // A statement whose WHERE matched nothing says so, where it printed what a change did.
    const nobody = await marquee(['db', 'sql', "UPDATE team_members SET show_on_website = false WHERE full_name = 'Nobody Here'"], { MARQUEE_HOME: home });
    expect(nobody).toMatchObject({ code: 0, stdout: 'UPDATE 0: no rows changed\n' });
    // A second start on this home with other ports was a second gateway and builder on the embedded
    // database, started without a word: refused, naming the one running.
    const second = await run(bin, ['start'], { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0' });
    const consoleUrl = /console: (http:\/\/\S+)\/ \(/.exec(first.output())![1]!;
    expect({ code: second.code, stdout: second.stdout }).toEqual({ code: 1, stdout: '' });
    expect(second.stderr).toBe(
      `marquee: another marquee start is running on MARQUEE_HOME=${home}: process ${first.child.pid} (gateway ${gatewayUrl(first.output())}, console ${consoleUrl}/); it holds the embedded database there and serves it to every other command. Use that one, stop it first, or give this start another MARQUEE_HOME (or DATABASE_URL, to run several)\n`,
    );
  } finally {
    await first.stop();
  }
  const again = await marqueeProcess(['start'], { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0' }, /try: (curl .*)\n/);
  try {
    expect(again.output()).not.toContain('sample data loaded');
    // Nothing changed since the change build and the `build` above: a restart reads no organization.
    expect(again.output()).toMatch(/start run over 4 organizations in \d+\.\d s: 4 skipped as unchanged, 0 built, 0 verified/);
    expect(again.output()).toContain(`demo key for nordic-dev: ${key}`);
    expect((await shell(again.match[1]!)).code).toBe(0);
  } finally {
    await again.stop();
  }
});
