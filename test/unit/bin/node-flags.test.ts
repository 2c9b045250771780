// bin/marquee's node flags: `serve`, the gateway alone, gets a small young generation, every other
// command V8's own sizing (bin/marquee says why: `start` builds too), and the benchmarks run each with the same flags
// (bench/node-flags.ts), so that what they measure is the program as operators run it. The script
// runs for real, from a copy beside a stand-in dist/ and a `node` that prints what it was given.
import { execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_NODE_FLAGS, PRODUCT_NODE_FLAGS } from '../../../bench/node-flags.ts';

const MARQUEE = fileURLToPath(new URL('../../../bin/marquee', import.meta.url));

describe('bin/marquee node flags', () => {
  let dir: string;
  let cli: string;

  beforeAll(async () => {
    // Real, as bin/marquee resolves its own path with readlink -f.
    dir = await realpath(await mkdtemp(join(tmpdir(), 'marquee-flags-')));
    await mkdir(join(dir, 'bin'));
    await mkdir(join(dir, 'dist/bin'), { recursive: true });
    await mkdir(join(dir, 'fake'));
    await copyFile(MARQUEE, join(dir, 'bin/marquee'));
    cli = join(dir, 'dist/bin/cli.js');
    await writeFile(cli, '');
    await writeFile(join(dir, 'fake/node'), '#!/bin/sh\nfor argument in "$@"; do echo "$argument"; done\n');
    await chmod(join(dir, 'fake/node'), 0o755);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** The flags bin/marquee gives node before the CLI, and what follows the CLI. */
  const run = (...args: string[]) => {
    const given = execFileSync('sh', [join(dir, 'bin/marquee'), ...args], { env: { ...process.env, PATH: `${join(dir, 'fake')}:${process.env.PATH}` } })
      .toString()
      .trimEnd()
      .split('\n');
    const at = given.findIndex((argument) => resolve(argument) === cli);
    expect(at).toBeGreaterThan(-1);
    return { flags: given.slice(0, at), rest: given.slice(at + 1) };
  };

  it('serve, the gateway alone, gets its young generation', () => {
    expect(run('serve', '--json')).toEqual({ flags: [...PRODUCT_NODE_FLAGS, ...GATEWAY_NODE_FLAGS], rest: ['serve', '--json'] });
  });

  it.each([['start', '--sample'], ['builder'], ['keys', 'list'], []])('%s keeps V8 sizing', (...args) => {
    expect(run(...args)).toEqual({ flags: PRODUCT_NODE_FLAGS, rest: args });
  });
});
