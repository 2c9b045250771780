// A key's whole life through the real CLI against a running `marquee serve` on the embedded key
// file, as an operator drives it: create, update origins (applied from the next request on),
// roll with a grace period (both keys work, then only the new one), expiry, find a leaked
// secret (also from standard input), the one JSON shape, and last use reported at shutdown.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../builder/platform/migrations.ts';
import { openPlatformDatabase } from '../../../records/database/database-backends.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { type CliRun, marquee, marqueeProcess } from '../../support/cli.ts';
import { API, publishFixture } from '../../support/gateway-fixtures.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

const MARQUEE = fileURLToPath(new URL('../../../bin/marquee', import.meta.url));
const SITE = 'https://www.lifecycle.example';
const OTHER_SITE = 'https://shop.lifecycle.example';
const VIEW_FIELDS = ['createdAt', 'expiresAt', 'id', 'label', 'lastUsedAt', 'organizationId', 'organizationSlug', 'origins', 'prefix', 'revokedAt'].sort();

const organization = new PlatformFixture({ id: randomUUID(), name: 'Lifecycle Events', slug: 'lifecycle' });

let home: string;
let env: Record<string, string>;
let server: Awaited<ReturnType<typeof marqueeProcess>>;
let api: string;

interface Key {
  id: string;
  key?: string;
  [field: string]: unknown;
}

/** A CLI command that must succeed; its --json output parsed. */
async function json<T = Key>(args: string[]): Promise<T> {
  const run = await marquee([...args, '--json'], env);
  if (run.code !== 0) throw new Error(`marquee ${args.join(' ')} failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/** The status of one API request with this key, from this browser origin if given. */
async function statusWith(secret: string, origin?: string): Promise<number> {
  const response = await fetch(`${api}/organization`, { headers: { 'X-Api-Key': secret, ...(origin ? { Origin: origin } : {}) } });
  await response.arrayBuffer();
  return response.status;
}

/** The CLI with `input` on its standard input. */
function marqueeWithInput(args: string[], input: string): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(MARQUEE, args, { env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
    child.stdin!.end(input);
  });
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-keys-lifecycle-'));
  env = { MARQUEE_HOME: home, SNAPSHOT_STORE: join(home, 'store'), PORT: '0', DATABASE_URL: '', PLATFORM_SCHEMA: '', TRUST_PROXY: '', REDIS_URL: '' };
  await publishFixture(new DirectoryStore(env.SNAPSHOT_STORE!), organization);
  const db = await openPlatformDatabase({ home });
  try {
    await migrate(db);
    const { id, name, slug, status } = organization.organization;
    await db.query('INSERT INTO organizations (id, name, slug, status) VALUES ($1, $2, $3, $4)', [id, name, slug, status]);
  } finally {
    await db.close();
  }
  server = await marqueeProcess(['serve'], env, /gateway listening on (http:\/\/\S+),/, { readyTimeoutMs: 30_000 });
  api = `${server.match[1]}${API}`;
});

afterAll(async () => {
  await server?.stop();
  await rm(home, { recursive: true, force: true });
});

describe('keys through their whole life', () => {
  let siteKey: Key & { key: string };

  it('create prints the one shape with the secret once; list --json the same shape without it', async () => {
    siteKey = await json(['keys', 'create', '--org', 'lifecycle', '--origin', SITE, '--label', 'site']);
    expect(Object.keys(siteKey).sort()).toEqual([...VIEW_FIELDS, 'key'].sort());
    expect(siteKey).toMatchObject({
      organizationId: organization.organization.id,
      organizationSlug: 'lifecycle',
      prefix: siteKey.key.slice(0, 8),
      label: 'site',
      origins: [SITE],
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
    });
    expect(await statusWith(siteKey.key)).toBe(200);
    expect(await statusWith(siteKey.key, SITE)).toBe(200);
    const listed = await json<Key[]>(['keys', 'list', '--org', 'lifecycle']);
    const { key: _secret, ...view } = siteKey;
    // Only `serve` runs here: no builder counts usage, so none in the last 24 hours.
    expect(listed).toEqual([{ ...view, requests24h: 0 }]);
    const text = await marquee(['keys', 'list'], env);
    expect(text.stdout).toContain(`${siteKey.id}  lifecycle  ${siteKey.prefix}…  active`);
    expect(text.stdout + JSON.stringify(listed)).not.toContain(siteKey.key);
  });

  it('update replaces the allowed origins from the next request on, and the label', async () => {
    expect(await statusWith(siteKey.key, OTHER_SITE)).toBe(403);
    const updated = await json(['keys', 'update', siteKey.id, '--origin', OTHER_SITE, '--label', 'shop']);
    expect(updated).toMatchObject({ id: siteKey.id, origins: [OTHER_SITE], label: 'shop', organizationSlug: 'lifecycle' });
    expect(updated.key).toBeUndefined();
    expect(await statusWith(siteKey.key, OTHER_SITE)).toBe(200);
    expect(await statusWith(siteKey.key, SITE)).toBe(403);
    expect(await json(['keys', 'update', siteKey.id, '--no-origins'])).toMatchObject({ origins: [], label: 'shop' });
    expect(await statusWith(siteKey.key, OTHER_SITE)).toBe(403);
    expect(await statusWith(siteKey.key)).toBe(200);
    // Validated as at creation, as a wrong command line; an unknown id is named.
    expect(await marquee(['keys', 'update', siteKey.id, '--origin', 'https://x.example/path'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('https://x.example/path'),
    });
    expect(await marquee(['keys', 'update', 'key_nope', '--label', 'x'], env)).toMatchObject({ code: 1, stderr: expect.stringContaining('key_nope') });
  });

  it('roll with a grace period: both keys work during it, the old one is refused after', async () => {
    // Long enough for the command (which opens the embedded database for the slug) to answer within it.
    const rolledAt = Date.now();
    const replacement = await json<Key & { key: string }>(['keys', 'roll', siteKey.id, '--grace', '10s']);
    expect(await statusWith(siteKey.key)).toBe(200);
    expect(await statusWith(replacement.key)).toBe(200);
    const bothWorkedAt = Date.now();
    expect(Object.keys(replacement).sort()).toEqual([...VIEW_FIELDS, 'key'].sort());
    expect(replacement).toMatchObject({ organizationSlug: 'lifecycle', label: 'shop', origins: [], revokedAt: null });
    expect(replacement.id).not.toBe(siteKey.id);
    const [old] = (await json<Key[]>(['keys', 'list'])).filter((key) => key.id === siteKey.id);
    const revokedAt = Date.parse(old!.revokedAt as string);
    expect(revokedAt - rolledAt).toBeGreaterThanOrEqual(10_000);
    expect(revokedAt - rolledAt).toBeLessThan(20_000);
    // Both answered within the grace period, not after it.
    expect(bothWorkedAt).toBeLessThan(revokedAt);
    await expect.poll(() => statusWith(siteKey.key), { timeout: 20_000, interval: 100 }).toBe(401);
    expect(Date.now()).toBeGreaterThanOrEqual(revokedAt);
    expect(await statusWith(replacement.key)).toBe(200);
    // Final: revoking makes nothing come back, and a revoked key cannot be rolled or edited.
    expect(await marquee(['keys', 'roll', siteKey.id], env)).toMatchObject({ code: 1, stderr: expect.stringContaining(`key ${siteKey.id} is revoked`) });
    expect(await marquee(['keys', 'update', siteKey.id, '--label', 'back'], env)).toMatchObject({ code: 1 });
    siteKey = replacement;
  });

  it('an expired key is refused with 401 API_KEY_INVALID, as a revoked one', async () => {
    const expiring = await json<Key & { key: string }>(['keys', 'create', '--org', 'lifecycle', '--expires', '3s']);
    const expiresAt = Date.parse(expiring.expiresAt as string);
    expect(expiresAt).toBeGreaterThan(Date.now());
    expect(await statusWith(expiring.key)).toBe(200);
    await expect.poll(() => statusWith(expiring.key), { timeout: 10_000, interval: 100 }).toBe(401);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    const refused = await fetch(`${api}/organization`, { headers: { 'X-Api-Key': expiring.key } });
    expect(await refused.json()).toMatchObject({ errorCode: 'API_KEY_INVALID' });
    expect(await marquee(['keys', 'create', '--org', 'lifecycle', '--expires', 'soon'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('--expires') });
  });

  it('find --secret names the key of a leaked secret, never the secret; from stdin too; exit 1 for none', async () => {
    const found = await json(['keys', 'find', '--secret', siteKey.key]);
    expect(Object.keys(found).sort()).toEqual(VIEW_FIELDS);
    expect(found).toMatchObject({ id: siteKey.id, organizationSlug: 'lifecycle' });
    const piped = await marqueeWithInput(['keys', 'find', '--secret', '-'], `${siteKey.key}\n`);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain(siteKey.id);
    expect(piped.stdout).not.toContain(siteKey.key);
    const none = await marqueeWithInput(['keys', 'find', '--secret', '-'], 'mqk_0000000000000000000000000000000sQHLi\n');
    expect(none).toMatchObject({ code: 1, stderr: expect.stringContaining('no key matches') });
  });

  it('reports last use to the key file when the gateway stops: the instant of the last accepted request, never before the key was made', async () => {
    const unused = await json(['keys', 'create', '--org', 'lifecycle']);
    // Used within seconds of its creation: rounded down to its minute, its last use read as before it existed.
    const fresh = await json<Key & { key: string }>(['keys', 'create', '--org', 'lifecycle']);
    const before = Date.now();
    expect(await statusWith(fresh.key)).toBe(200);
    expect(await statusWith(siteKey.key)).toBe(200);
    const after = Date.now();
    await server.stop();
    const listed = await json<Key[]>(['keys', 'list']);
    for (const id of [fresh.id, siteKey.id]) {
      const key = listed.find((one) => one.id === id)!;
      const lastUsed = Date.parse(key.lastUsedAt as string);
      expect(lastUsed).toBeGreaterThanOrEqual(before);
      expect(lastUsed).toBeLessThanOrEqual(after);
      expect(lastUsed).toBeGreaterThanOrEqual(Date.parse(key.createdAt as string));
    }
    expect(listed.find((key) => key.id === unused.id)?.lastUsedAt).toBeNull();
  });
});
