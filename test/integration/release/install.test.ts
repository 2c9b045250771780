// The release as an operator installs it: `npm pack` makes a tarball of compiled JavaScript,
// schemas, templates, migrations, docs and deploy/ (no sources, no tests), which `npm install -g`
// installs without the repository, without a development dependency and without a warning about
// Marquee (a `prepare` script, which scripts/ does not ship with, made one); the installed
// `marquee start` then works from an empty directory, keeping its state under ./var there, and the
// other commands work beside it. The units of deploy/ pass systemd-analyze verify with ExecStart
// pointing at the installed command. And docs/production.md's recipe runs as written with that
// installation: its blocks that need no root, in order, on a real PostgreSQL 15, Redis, s3rver and
// the shipped nginx CDN configuration, then each unit's command with the unit's own environment
// files; one tarball for the whole file, since packing and installing are most of its cost.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marqueeProcess } from '../../support/cli.ts';
import { freePort } from '../../support/ports.ts';
import { createDatabase, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { S3RVER_CREDENTIALS, startS3, type TestS3 } from '../../support/s3.ts';
import { startShippedCdn, type TestHttpCache } from '../../support/http-cache.ts';
import { editEnvironment, environmentOf, recipeBlocks, substitute, unitDirectives } from './recipe.ts';

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
      'elements/marquee-elements.js',
      'builder/platform/migrations/001-platform-relations.sql',
      'records/schema/migrations/001-versions.sql',
      'docs/api.md',
      'docs/production.md',
      'deploy/marquee-gateway.service',
      'deploy/marquee-builder.service',
      'deploy/shared.env',
      'deploy/gateway.env',
      'deploy/builder.env',
      'deploy/nginx/marquee-cdn.conf',
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

  it.each([
    ['marquee-gateway.service', 'gateway.env'],
    ['marquee-builder.service', 'builder.env'],
  ])('%s reads the shared file, then its own', async (unit, own) => {
    const text = await readFile(join(ROOT, 'deploy', unit), 'utf8');
    expect(unitDirectives(text, 'EnvironmentFile')).toEqual(['/etc/marquee/shared.env', `/etc/marquee/${own}`]);
  });
});

describe('the environment files of deploy/', () => {
  const files = async () => {
    const read = async (name: string) => environmentOf(await readFile(join(ROOT, 'deploy', name), 'utf8'));
    return { shared: await read('shared.env'), gateway: await read('gateway.env'), builder: await read('builder.env') };
  };

  it("give a gateway no database credential, and a builder the database, the signing key and the publication log's origin", async () => {
    const { shared, gateway, builder } = await files();
    const gatewaySees = { ...shared, ...gateway };
    expect(Object.keys(gatewaySees).filter((name) => /^(DATABASE_URL|PG[A-Z]+|PLATFORM_SCHEMA|MARQUEE_SCHEMA|SNAPSHOT_SIGNING_KEY)$/.test(name))).toEqual([]);
    expect(builder).toMatchObject({ DATABASE_URL: expect.stringMatching(/^postgres:\/\//), SNAPSHOT_SIGNING_KEY: '/etc/marquee/signing-key.pem' });
    expect(builder.PUBLICATION_LOG_ORIGIN).toMatch(/\S/);
  });

  it('let a gateway and a builder run on one machine: distinct ports, and one token each', async () => {
    const { shared, gateway, builder } = await files();
    expect(shared.ADMIN_PORT ?? shared.PORT).toBeUndefined();
    expect(new Set([gateway.PORT, gateway.ADMIN_PORT, builder.ADMIN_PORT]).size).toBe(3);
    expect(gateway.ADMIN_TOKEN).not.toBe(builder.ADMIN_TOKEN);
  });
});

describe('the recipe of docs/production.md, run as written', () => {
  /** Where the recipe's /etc/marquee and /var/lib are on this "machine". */
  let machine: string;
  let postgres: TestPostgres;
  let redis: TestRedis;
  let s3: TestS3;
  /** The shipped deploy/nginx/marquee-cdn.conf in front of the bucket. */
  let cdn: TestHttpCache;
  let cdnUrl: string;
  let pgEnv: NodeJS.ProcessEnv;
  const processes: Array<{ stop(): Promise<void> }> = [];

  beforeAll(async () => {
    machine = join(work, 'machine');
    await mkdir(join(machine, 'etc', 'marquee'), { recursive: true });
    [postgres, redis, s3] = await Promise.all([startPostgres(), startRedis(), startS3('acme-marquee')]);
    await createDatabase(postgres.url, 'platform');
    const server = new URL(postgres.url);
    // psql's own variables name the server and its administrator, as `sudo -u postgres` would.
    pgEnv = { PGHOST: server.hostname, PGPORT: server.port, PGUSER: 'postgres' };
    cdn = await startShippedCdn(new URL(s3.endpoint).host, 'acme-marquee');
    cdnUrl = cdn.url;
  }, 60_000);

  afterAll(async () => {
    for (const started of processes) await started.stop();
    await cdn?.stop();
    await Promise.all([postgres?.stop(), redis?.stop(), s3?.stop()]);
  });

  /** The recipe's paths and names on this machine; every other word runs as written. */
  const onThisMachine = (): Array<[string, string]> => [
    ['/etc/marquee', join(machine, 'etc', 'marquee')],
    ['/var/lib/', `${join(machine, 'var', 'lib')}/`],
    ['/usr/local/bin/marquee', marquee],
  ];

  it('migrates as its own role, makes the signing key and a key, and a gateway started as its unit says answers with that key through the nginx CDN', async () => {
    const markdown = await readFile(join(ROOT, 'docs', 'production.md'), 'utf8');
    const blocks = recipeBlocks(markdown, '## A recipe');
    const recipe = blocks.join('\n');
    for (const step of ['psql ', 'marquee signing-key create --group marquee ', 'marquee db migrate', 'marquee keys create ']) expect(recipe).toContain(step);

    // Step 1, as root: the files, where the recipe installs them.
    const etc = join(machine, 'etc', 'marquee');
    const gatewayPort = await freePort();
    const [gatewayAdminPort, builderAdminPort] = [await freePort(), await freePort()];
    const shipped = async (name: string) => substitute(await readFile(join(ROOT, 'deploy', name), 'utf8'), onThisMachine());
    // Step 3, the operator's edit: this machine's servers and ports.
    await writeFile(
      join(etc, 'shared.env'),
      editEnvironment(await shipped('shared.env'), {
        REDIS_URL: redis.url,
        S3_ENDPOINT: s3.endpoint,
        AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      }),
    );
    await writeFile(
      join(etc, 'builder.env'),
      editEnvironment(substitute(await shipped('builder.env'), [['db.internal:5432', `${pgEnv.PGHOST}:${pgEnv.PGPORT}`]], 'builder.env'), {
        ADMIN_PORT: String(builderAdminPort),
        CLOUDFRONT_DISTRIBUTION_ID: null,
      }),
    );
    await writeFile(
      join(etc, 'gateway.env'),
      editEnvironment(await shipped('gateway.env'), { PORT: String(gatewayPort), ADMIN_PORT: String(gatewayAdminPort), SNAPSHOT_CDN_URL: `${cdnUrl}/prod` }),
    );

    // The service account's group is this test's own.
    const group = (await run('id', ['-gn'])).stdout.trim();
    const shell = { ...operatorEnv(), ...pgEnv, PATH: `${join(work, 'prefix', 'bin')}:${process.env.PATH}` };
    let key: string | undefined;
    for (const block of blocks) {
      // The platform's own data, as the platform writes it, once its relations exist.
      if (block.includes('marquee keys create')) await platformSql(postgres.url, "INSERT INTO organizations (name, slug) VALUES ('Acme Events', 'acme')");
      const script = substitute(block, [...onThisMachine(), ['--group marquee ', `--group ${group} `]]);
      const ran = await run('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: machine, env: shell, timeout: 120_000 });
      expect(ran.code, `${script}\n${ran.stdout}\n${ran.stderr}`).toBe(0);
      key ??= /^secret[^:]*: (mqk_\w+)$/m.exec(ran.stdout)?.[1];
    }
    // db migrate ran as the role the recipe made, not as the administrator.
    expect(await platformSql(postgres.url, "SELECT nspowner::regrole::text AS owner FROM pg_namespace WHERE nspname = 'marquee'")).toEqual([{ owner: 'marquee' }]);
    const signingKey = await stat(join(etc, 'signing-key.pem'));
    expect(signingKey.mode & 0o777).toBe(0o640);
    expect(signingKey.gid).toBe(Number((await run('id', ['-g'])).stdout.trim()));
    expect(key).toBeDefined();

    // Step 6, as systemd would: each unit's command with its own environment files, builders first.
    processes.push(await startUnit('marquee-builder.service', /builder running/));
    processes.push(await startUnit('marquee-gateway.service', /gateway listening on/));
    const gateway = `http://127.0.0.1:${gatewayPort}`;
    await expect
      .poll(
        async () => {
          const answer = await fetch(`${gateway}/api/integration/v1/organization`, { headers: { authorization: `Bearer ${key}` } });
          return answer.status === 200 ? ((await answer.json()) as { id: string; slug: string }) : answer.status;
        },
        { timeout: 60_000, interval: 250 },
      )
      .toMatchObject({ slug: 'acme' });

    // The CDN keeps what the objects' headers say: a manifest for good, a pointer never.
    const id = ((await (await fetch(`${gateway}/api/integration/v1/organization`, { headers: { authorization: `Bearer ${key}` } })).json()) as { id: string }).id;
    const pointer = await fetch(`${cdnUrl}/prod/orgs/${id}/current.json`);
    expect(pointer.status).toBe(200);
    const { snapshotId } = (await pointer.json()) as { snapshotId: string };
    const cacheStatus = async (path: string) => (await fetch(`${cdnUrl}/prod/orgs/${id}/${path}`)).headers.get('x-cache-status');
    await cacheStatus(`snapshots/${snapshotId}.json`);
    expect(await cacheStatus(`snapshots/${snapshotId}.json`)).toBe('HIT');
    expect(await cacheStatus('current.json')).not.toBe('HIT');
  }, 300_000);

  it('names the grant a role lacks when PostgreSQL refuses db migrate, as SQL to run, without a stack', async () => {
    // Each role on a database of its own: the first makes schema marquee in its own.
    const migrateAs = async (role: string, privileges: string) => {
      const url = new URL(await createDatabase(postgres.url, `platform_${role}`));
      await platformSql(postgres.url, `CREATE ROLE ${role} LOGIN`);
      await platformSql(postgres.url, `GRANT ${privileges} ON DATABASE platform_${role} TO ${role}`);
      url.username = role;
      return run(marquee, ['db', 'migrate'], { cwd: machine, env: { ...operatorEnv(), DATABASE_URL: url.toString(), MARQUEE_HOME: join(machine, role) } });
    };
    // The recipe of earlier releases: CREATE on the database, which PostgreSQL 15 no longer extends to schema public.
    const [short, nothing] = await Promise.all([migrateAs('marquee_short', 'CONNECT, CREATE'), migrateAs('marquee_nothing', 'CONNECT')]);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('permission denied for schema public');
    expect(short.stderr).toContain('GRANT USAGE, CREATE ON SCHEMA "public" TO "marquee_short";');
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('GRANT CREATE ON DATABASE "platform_marquee_nothing" TO "marquee_nothing";');
    for (const refused of [short, nothing]) expect(refused.stderr).not.toMatch(/^\s+at /m);
  }, 60_000);

  /** A unit's ExecStart, in its WorkingDirectory, with its EnvironmentFile= files read in order (a later one wins), as systemd starts it. */
  async function startUnit(name: string, ready: RegExp): Promise<{ stop(): Promise<void> }> {
    const unit = substitute(await readFile(join(ROOT, 'deploy', name), 'utf8'), onThisMachine(), name);
    const environment: Record<string, string> = {};
    for (const file of unitDirectives(unit, 'EnvironmentFile')) Object.assign(environment, environmentOf(await readFile(file, 'utf8')));
    const [command, ...args] = unitDirectives(unit, 'ExecStart')[0]!.split(/\s+/);
    const cwd = unitDirectives(unit, 'WorkingDirectory')[0]!;
    // StateDirectory= makes it.
    await mkdir(cwd, { recursive: true });
    return marqueeProcess(args, { ...(operatorEnv() as Record<string, string>), ...environment }, ready, { command: command!, cwd, readyTimeoutMs: 60_000 });
  }
});

/** One statement on the platform database as its administrator; the rows. */
async function platformSql(serverUrl: string, text: string): Promise<unknown[]> {
  const url = new URL(serverUrl);
  url.pathname = '/platform';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}
