// The release as an operator installs it: `npm pack` makes a tarball of compiled JavaScript,
// schemas, templates, migrations, docs and the systemd units (no sources, no tests), which
// `npm install -g` installs without the repository, without a development dependency and without
// a warning about Marquee (a `prepare` script, which scripts/ does not ship with, made one); the
// installed `marquee start` then works from an empty directory, keeping its state under ./var
// there, and the other commands work beside it. The units of deploy/ pass systemd-analyze verify
// with ExecStart pointing at the installed command.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marqueeProcess } from '../../support/cli.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const INSTALL_TIMEOUT_MS = 240_000;

function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, timeout: options.timeout ?? 60_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The environment of an operator's shell: nothing of this checkout's configuration. */
function operatorEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/^(MARQUEE_|DATABASE_URL|REDIS_URL|SNAPSHOT_|ADMIN_|PORT$)/.test(name)) delete env[name];
  return env;
}

let work: string;
let tarball: string;
let packed: string[];
let marquee: string;
let installedPackage: string;
/** What `npm install -g` printed, at npm's default log level (warnings included). */
let installOutput: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'marquee-release-'));
  const pack = await run('npm', ['pack', '--json', '--pack-destination', work], { timeout: INSTALL_TIMEOUT_MS });
  expect(pack.code, pack.stderr).toBe(0);
  const [result] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(work, result!.filename);
  packed = result!.files.map((file) => file.path);
  const prefix = join(work, 'prefix');
  // --prefer-offline: the packages are the lock file's, already in npm's cache from this checkout's install.
  const install = await run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], {
    cwd: work,
    timeout: INSTALL_TIMEOUT_MS,
  });
  expect(install.code, install.stderr).toBe(0);
  installOutput = `${install.stdout}\n${install.stderr}`;
  marquee = join(prefix, 'bin', 'marquee');
  installedPackage = join(prefix, 'lib', 'node_modules', 'marquee');
}, INSTALL_TIMEOUT_MS * 2);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('packs the compiled product, schemas, templates, migrations, docs and units: no sources, no tests', () => {
    for (const path of [
      'bin/marquee',
      'dist/bin/cli.js',
      'dist/gateway/server.js',
      'schemas/openapi.json',
      'schemas/organization.schema.json',
      'templates/console.css',
      'builder/platform/migrations/001-platform-relations.sql',
      'records/schema/migrations/001-versions.sql',
      'docs/api.md',
      'docs/production.md',
      'deploy/marquee-gateway.service',
      'deploy/marquee-builder.service',
      'deploy/marquee.env.example',
      'README.md',
      'package.json',
    ]) {
      expect(packed).toContain(path);
    }
    expect(packed.filter((path) => /^(test|bench|scripts|examples|node_modules)\//.test(path) || (path.endsWith('.ts') && !path.endsWith('.d.ts')))).toEqual([]);
  });
});

describe('npm install -g of the tarball', () => {
  it('says nothing of Marquee beyond its own output: no warning names the package or a script of ours', () => {
    // Warnings about dependencies (a blocked postinstall of one of them) are npm's to show and the operator's to judge.
    const ours = installOutput
      .replaceAll(work, '<work>')
      .split('\n')
      .filter((line) => /^npm (warn|error)/i.test(line) && /marquee|scripts\//.test(line));
    expect(ours).toEqual([]);
  });

  it('installs the runtime dependencies only', () => {
    expect(existsSync(join(installedPackage, 'node_modules', 'express'))).toBe(true);
    for (const development of ['typescript', 'vitest', 'tsx', '@biomejs/biome']) expect(existsSync(join(installedPackage, 'node_modules', development)), development).toBe(false);
  });

  it('prints its version', async () => {
    const version = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const answer = await run(marquee, ['--version'], { cwd: work, env: operatorEnv() });
    expect(answer).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('starts from an empty directory with its state under ./var there, serves the API and lets the other commands work beside it', async () => {
    const site = join(work, 'site');
    await mkdir(site);
    const started = await marqueeProcess(['start'], { ...operatorEnv(), PORT: '0', ADMIN_PORT: '0' } as Record<string, string>, /try: (curl .*)\n/, {
      command: marquee,
      cwd: site,
      readyTimeoutMs: 120_000,
    });
    try {
      const key = /demo key for nordic-dev: (mqk_\w+)/.exec(started.output())![1]!;
      const gateway = /gateway listening on (http:\/\/[^\s,]+)/.exec(started.output())![1]!;
      const answer = await fetch(`${gateway}/api/integration/v1/organization`, { headers: { authorization: `Bearer ${key}` } });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ slug: 'nordic-dev' });
      expect(existsSync(join(site, 'var', 'keys.json'))).toBe(true);
      expect(existsSync(join(site, 'var', 'snapshots'))).toBe(true);
      const keys = await run(marquee, ['keys', 'list', '--org', 'nordic-dev'], { cwd: site, env: operatorEnv() });
      expect(keys.code, keys.stderr).toBe(0);
      expect(keys.stdout).toContain('demo');
    } finally {
      await started.stop();
    }
  });
});

describe('the systemd units', () => {
  it.each(['marquee-gateway.service', 'marquee-builder.service'])('%s passes systemd-analyze verify with the installed command', async (unit) => {
    const text = await readFile(join(ROOT, 'deploy', unit), 'utf8');
    expect(text).toContain('ExecStart=/usr/local/bin/marquee ');
    const checked = join(work, unit);
    await writeFile(checked, text.replace('/usr/local/bin/marquee', marquee));
    const verify = await run('systemd-analyze', ['verify', checked], { cwd: work });
    expect(verify.stderr).toBe('');
    expect(verify.code).toBe(0);
  });
});
