// The audit trail in the embedded mode (`marquee start`, PGlite under MARQUEE_HOME): the admin API
// and CLI commands run beside it (through the loopback port start serves its database on) append
// at once to one chain, which `audit-log verify` finds whole and in agreement with the heads start
// keeps in the snapshot store. What start did of its own accord is in that chain too, by
// `system:start`: each migration it applied, the sample data it loaded and the demo key it made.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AuditEntry } from '../../../records/trail/audit-entry.ts';
import { MARQUEE_MIGRATION_NAMES, MARQUEE_MIGRATION_NUMBERS } from '../../../records/schema/migrate.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';

let home: string;
let start: Awaited<ReturnType<typeof marqueeProcess>>;
let admin: string;
let token: string;
/** The demo key's secret, as start keeps it beside its data. */
let demoSecret: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-audit-embedded-'));
  start = await marqueeProcess(['start'], { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0' }, /console: (http:\/\/\S+?)\/? /);
  demoSecret = (JSON.parse(await readFile(join(home, 'demo-key.json'), 'utf8')) as { key: string }).key;
  admin = start.match[1]!;
  token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
}, 180_000);

afterAll(async () => {
  await start?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

it('records what start did of its own accord, by system:start: each migration, the sample data, the demo key as `keys create` records one', async () => {
  const listed = await marquee(['audit-log', '--actor', 'system:start', '--json'], { MARQUEE_HOME: home });
  expect(listed.code, listed.stderr).toBe(0);
  const entries = (JSON.parse(listed.stdout) as AuditEntry[]).reverse();
  const bySystem = { actor: 'system:start', actorRole: 'owner', door: 'cli', outcome: 'ok', requestId: null, clientAddress: null };
  const migrations = entries.filter((entry) => entry.action === 'db.migrated' && 'marqueeMigration' in entry.changes);
  expect(migrations).toEqual(
    MARQUEE_MIGRATION_NUMBERS.map((number) => expect.objectContaining({ ...bySystem, changes: { marqueeMigration: number, name: MARQUEE_MIGRATION_NAMES.get(number) } })),
  );
  expect(entries.filter((entry) => entry.action === 'db.migrated' && 'platformVersion' in entry.changes).map((entry) => entry.changes.platformVersion)).toEqual([1, 2]);
  expect(entries.filter((entry) => entry.action === 'db.seeded')).toEqual([expect.objectContaining({ ...bySystem, changes: { sample: true, seeded: true } })]);
  // Who created the demo key: the entry names its id, which the key's listing shows beside its prefix.
  const created = entries.filter((entry) => entry.action === 'key.created');
  expect(created).toEqual([
    expect.objectContaining({
      ...bySystem,
      organizationId: expect.any(String),
      changes: { organization: expect.any(String), origins: [], label: 'demo (npm start)', expiresAt: null },
    }),
  ]);
  const keys = JSON.parse((await marquee(['keys', 'list', '--json'], { MARQUEE_HOME: home })).stdout) as Array<{ id: string; prefix: string; label: string | null }>;
  const demo = keys.find((key) => key.label === 'demo (npm start)')!;
  expect(demoSecret.startsWith(demo.prefix)).toBe(true);
  expect(created[0]!.targetId).toBe(demo.id);
  expect(JSON.stringify(entries)).not.toMatch(/mqk_|mqa_|whsec_/);
  // All of it before anything else: start's own doings open the trail.
  expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_entry, index) => index + 1));
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
  expect(entries.filter((entry) => entry.action === 'key.created' && entry.door === 'cli' && entry.actor.startsWith('cli:'))).toHaveLength(CLI_CALLS);
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
