// start's embedded database is start's alone, and start never waits on it
// (records/database/embedded-supervisor.ts): it is served on a socket another account cannot
// reach, what PGlite cannot run safely is refused, and while another client keeps it busy the
// gateway and /healthz answer as ever and the admin API answers 503 with Retry-After. One start
// for the file; the protocol's details are test/integration/platform/embedded-server.test.ts's.
import { execFile } from 'node:child_process';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { migratedHome } from '../../support/migrated-home.ts';

let home: string;
let env: Record<string, string>;
let start: Awaited<ReturnType<typeof marqueeProcess>>;
let gateway: string;
let admin: string;
let key: string;
let token: string;

beforeAll(async () => {
  // start finds the embedded database migrated (the run's template: test/support/migrated-home.ts) and seeds it.
  home = await migratedHome({ prefix: 'marquee-start-database-' });
  // A short idle-in-transaction timeout, so that its test takes seconds (the default is 10 s).
  env = { MARQUEE_HOME: home, EMBEDDED_IDLE_TRANSACTION_TIMEOUT: '3' };
  start = await marqueeProcess(['start'], { ...env, PORT: '0', ADMIN_PORT: '0' }, /console: (http:\/\/\S+)\//, { readyTimeoutMs: 240_000 });
  admin = start.match[1]!;
  gateway = /gateway listening on (http:\/\/\S+)/.exec(start.output())![1]!;
  key = /demo key for \S+: (\S+)/.exec(start.output())![1]!;
  token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
}, 270_000);
afterAll(async () => {
  await start?.stop();
  await rm(home, { recursive: true, force: true });
});

const servedUrl = async () => (JSON.parse(await readFile(join(home, 'platform', 'served.json'), 'utf8')) as { url: string }).url;
const organizations = () => fetch(`${admin}/admin/v1/organizations`, { headers: { Authorization: `Bearer ${token}` } });

it('serves the embedded database on no TCP port, only on a socket in an owner-only directory: another account cannot connect', async () => {
  const directory = join(home, 'socket');
  expect(await servedUrl()).toBe(`postgresql://postgres@/postgres?host=${encodeURIComponent(directory)}`);
  expect((await stat(directory)).mode & 0o777).toBe(0o700);
  const asNobody = await new Promise<{ failed: boolean; output: string }>((resolve) => {
    execFile('sh', ['-c', `su nobody -s /bin/sh -c "psql -X -h ${directory} -U postgres -d postgres -Atc 'SELECT 1'"`], (error, stdout, stderr) =>
      resolve({ failed: error !== null, output: `${stdout}${stderr}` }),
    );
  });
  expect(asNobody.failed).toBe(true);
  expect(asNobody.output).toMatch(/Permission denied/);
});

it('refuses COPY … TO PROGRAM from db sql with the reason, before PGlite sees it; start keeps serving', async () => {
  const refused = await marquee(['db', 'sql', "COPY (SELECT 1) TO PROGRAM 'id'"], env);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/COPY … TO\/FROM PROGRAM is refused by Marquee: the embedded database \(PGlite, PostgreSQL in WebAssembly\) cannot start a program/);
  expect((await organizations()).status).toBe(200);
});

it('answers the gateway and /healthz while db sql runs pg_sleep beside start, and the admin API 503 with Retry-After', async () => {
  let ended = false;
  const sleeping = marquee(['db', 'sql', 'select pg_sleep(10)'], env).finally(() => {
    ended = true;
  });
  // The admin API needs the database: once the sleep holds it, it answers 503 within 2 s rather than waiting.
  const busy = await vi.waitFor(
    async () => {
      const answer = await organizations();
      if (answer.status !== 503) throw new Error(`answered ${answer.status}, the sleep has not started yet`);
      return answer;
    },
    { timeout: 60_000, interval: 200 },
  );
  expect(busy.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(busy.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect((await busy.json()).detail).toMatch(/busy/);
  const health = await fetch(`${admin}/healthz`);
  const api = await fetch(`${gateway}/api/integration/v1/organization`, { headers: { Authorization: `Bearer ${key}` } });
  expect({ health: health.status, api: api.status }).toEqual({ health: 200, api: 200 });
  // Both answered while the statement still ran: neither waited for it.
  expect(ended).toBe(false);
  expect((await sleeping).code).toBe(0);
  expect((await organizations()).status).toBe(200);
}, 90_000);

it('cuts off a client idle in BEGIN after the timeout, rolling it back, and start keeps serving', async () => {
  const client = new pg.Client({ connectionString: await servedUrl() });
  const lost = new Promise<Error>((resolve) => client.on('error', resolve));
  await client.connect();
  await client.query('BEGIN');
  await client.query("UPDATE organizations SET name = 'never committed' WHERE slug = 'nordic-dev'");
  const cutOff = await Promise.race([lost, new Promise<undefined>((resolve) => setTimeout(resolve, 20_000))]);
  expect(cutOff?.message).toMatch(/idle-in-transaction timeout/);
  await client.end().catch(() => {});
  const answer = await organizations();
  expect(answer.status).toBe(200);
  expect(((await answer.json()) as { slug: string; name: string }[]).find((o) => o.slug === 'nordic-dev')?.name).not.toBe('never committed');
}, 30_000);
