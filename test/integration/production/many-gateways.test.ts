// Several processes on the production shape (PostgreSQL + S3 behind an HTTP cache + Redis): one
// `marquee builder` and two `marquee serve`, configured only through the environment, with keys
// made and revoked by the real CLI. What one gateway learns, the other knows: the rate limit is
// shared, a revocation and a suspension reach both, and a change in the platform database reaches
// both without anyone typing `build`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { API } from '../../support/gateway-fixtures.ts';
import { type MarqueeProcess, type ProductionWorld, type ServeProcess, startProductionWorld } from '../../support/production.ts';
import { until } from '../../support/until.ts';

let world: ProductionWorld;
let builder: MarqueeProcess;
let gateways: ServeProcess[];
let pools: Pool[];

beforeAll(async () => {
  world = await startProductionWorld();
  builder = await world.builder();
  gateways = await Promise.all([world.serve(), world.serve()]);
  pools = gateways.map((gateway) => new Pool(gateway.url, { connections: 16 }));
});

afterAll(async () => {
  await Promise.all((pools ?? []).map((pool) => pool.close()));
  await world?.stop();
});

async function createKey(organization: string): Promise<{ id: string; key: string }> {
  const run = await world.cli(['keys', 'create', '--org', organization, '--json']);
  if (run.code !== 0) throw new Error(`keys create failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { id: string; key: string };
}

async function get(pool: Pool, path: string, key: string): Promise<{ status: number; body: string }> {
  const response = await pool.request({ path: `${API}${path}`, method: 'GET', headers: { 'x-api-key': key } });
  return { status: response.statusCode, body: await response.body.text() };
}

/** Asks every gateway every 10 ms until `done` holds for its answer; the milliseconds each took. */
async function untilEvery(path: string, key: string, done: (answer: { status: number; body: string }) => boolean, timeoutMs = 10_000): Promise<number[]> {
  const started = performance.now();
  return Promise.all(
    pools.map((pool, index) =>
      until(`${path} to change on gateway ${index + 1}`, async () => done(await get(pool, path, key)) && performance.now() - started, { timeoutMs, intervalMs: 10 }),
    ),
  );
}

describe('two gateways and one Redis', () => {
  it('answer exactly 600 of 2,000 requests of one key sent to both at once', async () => {
    const { key } = await createKey('pacific-oss');
    const statuses = await Promise.all(Array.from({ length: 2_000 }, (_, i) => get(pools[i % 2]!, '/organization', key).then((answer) => answer.status)));
    const count = (status: number) => statuses.filter((s) => s === status).length;
    expect({ ok: count(200), limited: count(429) }).toEqual({ ok: 600, limited: 1_400 });
  });

  it('refuse a key revoked through the CLI at the next request on both', async () => {
    const { id, key } = await createKey('pacific-oss');
    for (const pool of pools) expect((await get(pool, '/organization', key)).status).toBe(200);
    const revoked = await world.cli(['keys', 'revoke', id]);
    expect(revoked.code).toBe(0);
    for (const pool of pools) expect((await get(pool, '/organization', key)).status).toBe(401);
  });
});

describe('a builder following the platform database', () => {
  it('removes a team member deleted with SQL from both gateways without anyone typing build', async () => {
    const { key } = await createKey('nordic-dev');
    const team = (await get(pools[0]!, '/team', key)).body;
    const member = await world.sql('SELECT id, full_name FROM team_members WHERE organization_id = $1 AND show_on_website ORDER BY sort_order LIMIT 1', [
      SAMPLE.organizations.nordic.id,
    ]);
    const { id, full_name: name } = member.rows[0] as { id: string; full_name: string };
    expect(team).toContain(name);

    await world.sql('DELETE FROM team_members WHERE id = $1', [id]);
    const took = await untilEvery('/team', key, (answer) => answer.status === 200 && !answer.body.includes(name));
    console.info(`team member deleted → gone from both gateways in ${took.map((ms) => `${Math.round(ms)} ms`).join(' and ')}`);
    expect(Math.max(...took)).toBeLessThan(5_000);
  });

  it('refuses a suspended organization on both gateways within 1 s of its rebuild', async () => {
    const { key } = await createKey('pacific-oss');
    for (const pool of pools) expect((await get(pool, '/organization', key)).status).toBe(200);

    const before = builder.output().length;
    await world.sql("UPDATE organizations SET status = 'suspended' WHERE id = $1", [SAMPLE.organizations.pacific.id]);
    // The builder logs the organization's new state once the suspended pointer is published.
    await until('the builder to publish the suspension', () => /pacific-oss: suspended/.test(builder.output().slice(before)), { timeoutMs: 10_000, intervalMs: 5 }).catch(
      (error: Error) => {
        throw new Error(`${error.message}; it printed:\n${builder.output().slice(before)}`);
      },
    );
    const took = await untilEvery('/organization', key, (answer) => answer.status === 403);
    console.info(`suspension published → refused by both gateways in ${took.map((ms) => `${Math.round(ms)} ms`).join(' and ')}`);
    expect(Math.max(...took)).toBeLessThanOrEqual(1_000);
  });
});
