// The audit trail in the embedded mode (`marquee start`, PGlite under MARQUEE_HOME): the admin API
// and CLI commands run beside it (through the loopback port start serves its database on) append
// at once to one chain, which `audit-log verify` finds whole and in agreement with the heads start
// keeps in the snapshot store.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AuditEntry } from '../../../records/trail/audit-entry.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';

let home: string;
let start: Awaited<ReturnType<typeof marqueeProcess>>;
let admin: string;
let token: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-audit-embedded-'));
  start = await marqueeProcess(['start'], { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0' }, /console: (http:\/\/\S+?)\/? /);
  admin = start.match[1]!;
  token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
}, 180_000);

afterAll(async () => {
  await start?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

it('keeps one chain of what the admin API and the CLI beside start did at once, verified against the store', async () => {
  const env = { MARQUEE_HOME: home };
  const API_CALLS = 5;
  const CLI_CALLS = 3;
  await Promise.all([
    ...Array.from({ length: API_CALLS }, (_, index) =>
      fetch(`${admin}/admin/v1/keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ organization: 'nordic-dev', label: `api ${index}` }),
      }).then((response) => expect(response.status).toBe(201)),
    ),
    ...Array.from({ length: CLI_CALLS }, (_, index) =>
      marquee(['keys', 'create', '--org', 'nordic-dev', '--label', `cli ${index}`], env).then((run) => expect(run.code, run.stderr).toBe(0)),
    ),
  ]);
  const listed = await marquee(['audit-log', '--json'], env);
  expect(listed.code, listed.stderr).toBe(0);
  const entries = (JSON.parse(listed.stdout) as AuditEntry[]).reverse();
  expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_entry, index) => index + 1));
  expect(entries.filter((entry) => entry.action === 'key.created' && entry.door === 'api' && entry.actor === 'root')).toHaveLength(API_CALLS);
  expect(entries.filter((entry) => entry.action === 'key.created' && entry.door === 'cli')).toHaveLength(CLI_CALLS);
  for (let index = 1; index < entries.length; index++) expect(entries[index]!.previousHash).toBe(entries[index - 1]!.hash);

  // start keeps the head in its store (every 10 s): verify then compares the trail with it.
  const last = entries.at(-1)!.seq;
  await expect
    .poll(async () => Math.max(0, ...(await readdir(join(home, 'snapshots', 'audit', 'heads')).catch(() => [])).map((name) => Number(name.slice(0, 12)))), {
      timeout: 30_000,
      interval: 500,
    })
    .toBe(last);
  const verified = await marquee(['audit-log', 'verify', '--json'], env);
  expect(verified.code, verified.stderr).toBe(0);
  expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, entries: last, head: { seq: last }, broken: null, headsChecked: expect.any(Number) });
  expect((JSON.parse(verified.stdout) as { headsChecked: number }).headsChecked).toBeGreaterThan(0);
});
