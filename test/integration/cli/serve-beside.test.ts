// `marquee serve` beside the other commands on the embedded database, bound in time: keys made and
// revoked by `marquee keys` and a publish by `marquee build`, each in another process, show within
// 2 s, so this file runs with nothing beside it (vitest.config.ts ALONE); the rest of the command
// line is cli.test.ts.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import { migrate } from '../../../builder/platform/migrations.ts';
import { SAMPLE, seedSample } from '../../../builder/platform/sample.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { onEmbeddedPlatform } from '../../support/embedded-platform.ts';

let home: string;
let env: Record<string, string>;
const renamedEvent = SAMPLE.events.stockholmDevDays.id;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-serve-beside-'));
  env = { MARQUEE_HOME: home };
  await mkdir(join(home, 'platform'));
  // What `marquee db migrate` and `db seed --sample` make (cli.test.ts runs those), in this process.
  await onEmbeddedPlatform(home, async (db) => {
    await migrate(db);
    await migrateMarquee(db);
    await seedSample(db, { now: new Date() });
  });
  const built = await marquee(['build', '--org', 'nordic-dev'], env);
  expect(built.code, built.stderr).toBe(0);
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

it('serve answers with keys made by the CLI; a revocation and a publish by other processes show at once', async () => {
  const created = JSON.parse((await marquee(['keys', 'create', '--org', 'nordic-dev', '--json'], env)).stdout);
  const server = await marqueeProcess(['serve'], { ...env, PORT: '0', ADMIN_PORT: '0' }, /gateway listening on (http:\/\/\S+),/);
  try {
    const base = `${server.match[1]}/api/integration/v1`;
    const get = (path: string) => fetch(`${base}${path}`, { headers: { 'X-Api-Key': created.key } });
    expect((await fetch(`${server.match[1]}/healthz`)).status).toBe(200);
    const event = await get(`/events/${renamedEvent}`);
    expect(event.status).toBe(200);
    expect((await event.json()).name).toBe('Stockholm Dev Days');
    expect((await get('/team')).headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);

    await onEmbeddedPlatform(home, (db) => db.query(`UPDATE events SET name = 'Stockholm Dev Days, again' WHERE id = $1`, [renamedEvent]));
    expect((await marquee(['build', '--org', 'nordic-dev'], env)).code).toBe(0);
    const published = Date.now();
    await expect.poll(async () => (await (await get(`/events/${renamedEvent}`)).json()).name, { timeout: 2000, interval: 100 }).toBe('Stockholm Dev Days, again');
    expect(Date.now() - published).toBeLessThan(2000);

    expect((await marquee(['keys', 'revoke', created.id], env)).code).toBe(0);
    const refused = await get('/organization');
    expect(refused.status).toBe(401);
    expect((await refused.json()).errorCode).toBe('API_KEY_INVALID');
  } finally {
    await server.stop();
  }
});
