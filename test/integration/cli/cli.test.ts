// The command-line contract of docs/design.md, through the real program in a throwaway MARQUEE_HOME
// (serve beside the other commands, bound in time, runs alone: serve-beside.test.ts).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { contentObject } from '../../../snapshot/hash.ts';
import { objectKey } from '../../../snapshot/layout.ts';
import { marquee } from '../../support/cli.ts';
import { onEmbeddedPlatform } from '../../support/embedded-platform.ts';
import { migratedHome } from '../../support/migrated-home.ts';

let home: string;
let env: Record<string, string>;
const nordic = SAMPLE.organizations.nordic;
const renamedEvent = SAMPLE.events.stockholmDevDays.id;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-cli-'));
  env = { MARQUEE_HOME: home };
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('marquee CLI', () => {
  it('db migrate creates the platform relations, once', async () => {
    const first = await marquee(['db', 'migrate'], env);
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toMatch(/PGlite .*platform: schema at version 2 \(applied 1, 2\)/);
    expect((await marquee(['db', 'migrate'], env)).stdout).toContain('already up to date');
  });

  it('db seed --sample loads the sample once', async () => {
    expect(await marquee(['db', 'seed'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('--sample') });
    expect((await marquee(['db', 'seed', '--sample'], env)).stdout).toContain('sample data loaded (nordic-dev, pacific-oss, harbor-games, old-town-meetups)');
    expect((await marquee(['db', 'seed', '--sample'], env)).stdout).toContain('already has organizations');
  });

  it('build --json reports every organization, and a rebuild publishes nothing', async () => {
    const first = await marquee(['build', '--json'], env);
    expect(first.code).toBe(0);
    const { organizations } = JSON.parse(first.stdout);
    expect(organizations).toHaveLength(4);
    expect(organizations.find((o: { id: string }) => o.id === nordic.id)).toEqual({
      id: nordic.id,
      slug: 'nordic-dev',
      result: 'published',
      snapshotId: expect.stringMatching(/^\d{8}T\d{9}Z-[0-9a-f]{12}$/),
    });
    expect(organizations.find((o: { slug: string }) => o.slug === 'harbor-games')).toEqual({ id: SAMPLE.organizations.harbor.id, slug: 'harbor-games', result: 'suspended' });
    const again = JSON.parse((await marquee(['build', '--json'], env)).stdout);
    expect(again.organizations.map((o: { result: string }) => o.result).sort()).toEqual(['suspended', 'suspended', 'unchanged', 'unchanged']);
    expect(await marquee(['audit', '--json'], env)).toMatchObject({ code: 0, stdout: expect.stringContaining('"findings": []') });
  });

  it('build prints plain lines when not on a terminal, and names an unknown organization', async () => {
    const plain = await marquee(['build', '--org', 'nordic-dev'], env);
    expect(plain.stdout).toMatch(
      new RegExp(
        `^nordic-dev \\(${nordic.id}\\): unchanged \\S+\\n1 organizations: 0 published, 1 unchanged, 0 suspended, 0 failed; snapshots in ${home}/snapshots; run [0-9a-f-]{36}\\n$`,
      ),
    );
    const unknown = await marquee(['build', '--org', 'no-such-org'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no organization with id or slug "no-such-org"');
    expect(unknown.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('history and diff show what changed between two snapshots', async () => {
    await onEmbeddedPlatform(home, (db) => db.query(`UPDATE events SET name = 'Stockholm Dev Days 2026' WHERE id = $1`, [renamedEvent]));
    const built = JSON.parse((await marquee(['build', '--org', nordic.id, '--json'], env)).stdout);
    expect(built.organizations[0].result).toBe('published');

    const history = JSON.parse((await marquee(['history', '--org', 'nordic-dev', '--json'], env)).stdout);
    expect(history).toHaveLength(2);
    expect(history[0]).toEqual({ snapshotId: built.organizations[0].snapshotId, publishedAt: expect.any(String), trigger: 'manual', resources: expect.any(Number) });
    expect(history[0].snapshotId > history[1].snapshotId).toBe(true);

    const diff = JSON.parse((await marquee(['diff', '--org', 'nordic-dev', history[1].snapshotId, history[0].snapshotId, '--json'], env)).stdout);
    expect(diff.added).toEqual([]);
    expect(diff.removed).toEqual([]);
    expect(diff.changed.map((c: { path: string }) => c.path)).toEqual(['/events', `/events/${renamedEvent}`]);
    expect(diff.changed[1].patch).toEqual([{ op: 'replace', path: '/name', value: 'Stockholm Dev Days 2026' }]);

    const text = await marquee(['diff', '--org', nordic.id, history[1].snapshotId, 'current'], env);
    expect(text.stdout).toMatch(new RegExp(`^/events/${renamedEvent}\\n  ~ events/${renamedEvent}\\.name: "[^"]+" → "Stockholm Dev Days 2026"$`, 'm'));
    const missing = await marquee(['diff', '--org', nordic.id, 'nope', 'current'], env);
    expect(missing).toMatchObject({ code: 1, stderr: `marquee: organization ${nordic.id} has no snapshot nope\n` });
  });

  it('keys create, list and revoke, never printing a secret twice', async () => {
    const created = await marquee(['keys', 'create', '--org', 'nordic-dev', '--origin', 'https://WWW.Nordic.example:443', '--label', 'site', '--json'], env);
    const key = JSON.parse(created.stdout);
    expect(key).toMatchObject({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^mqk_/), organizationId: nordic.id, origins: ['https://www.nordic.example'] });
    const listed = await marquee(['keys', 'list', '--org', 'nordic-dev', '--json'], env);
    expect(listed.stdout).not.toContain(key.key);
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { id: key.id, organizationId: nordic.id, label: 'site', origins: ['https://www.nordic.example'], createdAt: expect.any(String), revokedAt: null },
    ]);
    expect(JSON.parse(listed.stdout)[0].key).toBeUndefined();
    expect((await marquee(['keys', 'revoke', key.id], env)).code).toBe(0);
    expect(JSON.parse((await marquee(['keys', 'list', '--json'], env)).stdout)[0].revokedAt).toEqual(expect.any(String));
    expect(await marquee(['keys', 'revoke', 'key_nope'], env)).toMatchObject({ code: 1, stderr: expect.stringContaining('key_nope') });
    expect(await marquee(['keys', 'create', '--org', 'nordic-dev', '--origin', 'https://x.example/path'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('https://x.example/path'),
    });
  });

  it('db sql says how many rows a statement changed, where an UPDATE that matched nothing printed what one that changed a row did', async () => {
    const sql = async (statement: string, ...options: string[]) => (await marquee(['db', 'sql', statement, ...options], env)).stdout;
    expect(await sql("UPDATE team_members SET title = title WHERE full_name = 'Nobody Here'")).toBe('UPDATE 0: no rows changed\n');
    expect(await sql("UPDATE team_members SET title = title WHERE full_name = 'Zoë Ødegaard' RETURNING full_name")).toBe('full_name=Zoë Ødegaard\nUPDATE 1: 1 row changed\n');
    // SELECT as before: the rows, and how many; --json the rows, as it always has.
    expect(await sql("SELECT full_name FROM team_members WHERE full_name = 'Zoë Ødegaard'")).toBe('full_name=Zoë Ødegaard\n1 rows\n');
    expect(JSON.parse(await sql("DELETE FROM team_members WHERE full_name = 'Nobody Here'", '--json'))).toEqual([]);
  });

  it('webhooks: a loopback http URL is refused naming both settings it needs; update and rotate name the organization by slug, as add does', async () => {
    const url = 'http://127.0.0.1:18290/hook';
    const refused = await marquee(['webhooks', 'add', '--org', 'nordic-dev', '--url', url], { ...env, WEBHOOK_ALLOW_PRIVATE: '0', WEBHOOK_ALLOW_INSECURE: '0' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('This URL needs both WEBHOOK_ALLOW_INSECURE=1 and WEBHOOK_ALLOW_PRIVATE=1');
    const allowed = { ...env, WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_ALLOW_INSECURE: '1' };
    const added = await marquee(['webhooks', 'add', '--org', 'nordic-dev', '--url', url], allowed);
    expect(added.code, added.stderr).toBe(0);
    const id = /^(ep_\S+) for nordic-dev: /.exec(added.stdout)![1]!;
    for (const args of [
      ['update', id, '--disable'],
      ['update', id, '--enable'],
      ['rotate', id],
    ]) {
      const changed = await marquee(['webhooks', ...args], allowed);
      expect({ args, code: changed.code, stdout: changed.stdout }).toEqual({ args, code: 0, stdout: expect.stringMatching(new RegExp(`^${id} for nordic-dev: ${url}; `)) });
    }
  });

  it('refuses bad configuration naming every bad variable', async () => {
    const bad = await marquee(['build'], { ...env, PORT: 'eighty', PLATFORM_PUBLIC_URL: 'nowhere' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('PLATFORM_PUBLIC_URL must be an absolute http(s) URL');
    expect(bad.stderr).toContain('PORT must be a TCP port number');
  });

  it('serve names PORT when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const run = await marquee(['serve'], { ...env, PORT: String(port), ADMIN_PORT: '0' });
      expect(run).toMatchObject({ code: 1, stderr: `marquee: PORT ${port} is already in use; stop what listens there or set PORT to a free port\n` });
    } finally {
      taken.close();
    }
  });

  it('prints an unexpected error with every cause, and its stack only with MARQUEE_DEBUG', async () => {
    // A home with its database (the keys commands refuse one without: the migrated template), and a
    // key file cut short, owner-only as Marquee writes it (a looser one is tightened first, with a line on stderr).
    const broken = await migratedHome({ prefix: 'marquee-cli-broken-' });
    try {
      await writeFile(join(broken, 'keys.json'), '{"format":1,', { mode: 0o600 });
      const run = await marquee(['keys', 'list'], { MARQUEE_HOME: broken });
      expect(run.code).toBe(1);
      // The key store's message, then the parser's reason below it.
      expect(run.stderr).toMatch(new RegExp(`^marquee: key store ${broken}/keys.json: not valid JSON: .*JSON.*\\n$`));
      const debug = await marquee(['keys', 'list'], { MARQUEE_HOME: broken, MARQUEE_DEBUG: '1' });
      expect(debug.code).toBe(1);
      expect(debug.stderr).toMatch(/\n\s+at /);
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });

  it('gc keeps the newest snapshots, and spares young objects a build may be publishing', async () => {
    // Replaced minutes ago: a gateway may still serve them, so the grace period keeps them and their objects.
    const gc = await marquee(['gc', '--keep', '1', '--days', '0'], env);
    expect(gc.stdout).toMatch(
      /^4 organizations: 0 snapshots, 0 state records and 0 objects deleted \(kept everything younger than 0 days, at least the newest 1, and the current snapshot\); \d+ unreferenced objects younger than 60 minutes spared; 0 interrupted writes removed\n$/,
    );
    const now = await marquee(['gc', '--keep', '1', '--days', '0', '--grace-minutes', '0'], env);
    expect(now.stdout).toMatch(/\n4 organizations: 1 snapshots, 0 state records and [1-9]\d* objects deleted/);
    expect(JSON.parse((await marquee(['history', '--org', 'nordic-dev', '--json'], env)).stdout)).toHaveLength(1);
  });

  it('audit reports a foreign e-mail address planted in the store, with exit 1', async () => {
    const clean = await marquee(['audit', '--json'], env);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toEqual({ organizations: 4, objects: expect.any(Number), findings: [] });
    const planted = contentObject({ note: 'write to someone@mail.example.com' });
    const file = join(home, 'snapshots', objectKey(nordic.id, planted.hash));
    await writeFile(file, planted.bytes);
    try {
      const found = await marquee(['audit', '--json'], env);
      expect(found.code).toBe(1);
      expect(JSON.parse(found.stdout).findings).toEqual([
        { organizationId: nordic.id, kind: 'foreign-email', object: planted.hash, detail: '/note: e-mail address someone@mail.example.com' },
      ]);
      const plain = await marquee(['audit'], env);
      expect(plain.code).toBe(1);
      expect(plain.stdout).toMatch(
        new RegExp(`^${nordic.id} foreign-email ${planted.hash}: /note: e-mail address someone@mail.example.com\n4 organizations, \\d+ objects: 1 findings in `),
      );
    } finally {
      await rm(file);
    }
  });
});
