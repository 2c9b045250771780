// Day two on the production shape (PostgreSQL, Redis, S3 behind the CDN, a `marquee builder`, two
// `marquee serve` behind a real load balancer, nginx): both gateways restarted one after the other
// under a steady load through the balancer lose no request — each drains first (/readyz 503 while it
// still answers, every answer closing its connection), then stops taking connections and finishes
// what is in flight. Then each backend stopped and started again: /readyz of the gateway and of the
// builder says which backend is down, why, and what the process does meanwhile, and /metrics says
// the same (marquee_backend_up); the gateway stays ready through every outage, the builder is
// unready without the database or the store.
import type { ChildProcess } from 'node:child_process';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, marqueeProcess } from '../../support/cli.ts';
import { startLoadBalancer, type TestLoadBalancer } from '../../support/load-balancer.ts';
import { freePort } from '../../support/ports.ts';
import { type MarqueeProcess, type ProductionWorld, startProductionWorld } from '../../support/production.ts';
import { steadyLoad } from '../../support/steady-load.ts';

const TOKEN = 'test-admin-token-0123456789abcdef';
const bearer = { Authorization: `Bearer ${TOKEN}` };
const API = '/api/integration/v1';

interface Gateway {
  port: number;
  /** Its admin port's base. */
  admin: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

let world: ProductionWorld;
let builder: MarqueeProcess;
let builderAdmin: string;
let gateways: Gateway[];
let balancer: TestLoadBalancer;
let keys: string[];

/** `marquee serve` on `port`, with a drain long enough that the test ends it with a second signal. */
async function serve(port: number): Promise<Gateway> {
  const started = await marqueeProcess(
    ['serve'],
    { ...world.env, PORT: String(port), ADMIN_TOKEN: TOKEN, SHUTDOWN_DRAIN_SECONDS: '60' },
    /"admin":"(http:\/\/[^"]+)"[^\n]*gateway listening on (http:\/\/\S+),/,
  );
  return { port, admin: started.match[1]!, child: started.child, output: started.output, stop: started.stop };
}

function created(run: CliRun): string {
  if (run.code !== 0) throw new Error(`keys create failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { key: string }).key;
}

beforeAll(async () => {
  world = await startProductionWorld();
  builder = await world.builder({ ADMIN_TOKEN: TOKEN, ADMIN_PORT: '0' });
  builderAdmin = /"admin":"(http:\/\/[^"]+)"/.exec(builder.output())![1]!;
  const ports = [await freePort(), await freePort()];
  gateways = await Promise.all(ports.map(serve));
  balancer = await startLoadBalancer(ports);
  // Four keys taken in turn: the load stays well inside each key's 600 a minute.
  keys = [];
  for (let n = 0; n < 4; n++) keys.push(created(await world.cli(['keys', 'create', '--org', 'nordic-dev', '--json'])));
}, 180_000);
afterAll(async () => {
  await balancer?.stop();
  await Promise.all((gateways ?? []).map((gateway) => gateway.stop()));
  await world?.stop();
});

async function readyz(base: string): Promise<{ status: number; body: { status: string; backends: Record<string, { state: string; why?: string; meanwhile?: string }> } }> {
  const answer = await fetch(`${base}/readyz`);
  return { status: answer.status, body: (await answer.json()) as never };
}

/** One sample of a process's /metrics, by name and labels. */
async function metric(admin: string, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const text = await (await fetch(`${admin}/metrics`, { headers: bearer })).text();
  const wanted = Object.entries(labels)
    .map(([label, value]) => `${label}="${value}"`)
    .join(',');
  const line = text.split('\n').find((candidate) => candidate.startsWith(wanted === '' ? `${name} ` : `${name}{${wanted}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('a rolling restart behind nginx', () => {
  it('loses no request: each gateway drains, still answering, then closes; its replacement is ready before the next one goes', async () => {
    const headers = (n: number) => ({ authorization: `Bearer ${keys[n % keys.length]}` });
    const load = steadyLoad(`${balancer.url}${API}/organization`, { rate: 20, clients: 4, headers });
    try {
      await expect.poll(() => load.tally.ok, { timeout: 10_000 }).toBeGreaterThan(20);
      for (const [index, old] of gateways.entries()) {
        const exited = new Promise<number | null>((resolve) => old.child.once('exit', (code) => resolve(code)));
        const before = old.output().length;
        old.child.kill('SIGTERM');
        await expect.poll(() => old.output().slice(before), { timeout: 10_000 }).toContain('draining for 60 s');
        // Draining: not ready, still answering, each answer ending its connection.
        expect((await readyz(old.admin)).body.status).toBe('draining');
        expect((await readyz(`http://127.0.0.1:${old.port}`)).status).toBe(503);
        const direct = await request(`http://127.0.0.1:${old.port}${API}/organization`, { headers: headers(index) });
        await direct.body.text();
        expect({ status: direct.statusCode, connection: direct.headers.connection }).toEqual({ status: 200, connection: 'close' });
        const servedBefore = load.tally.ok;
        await expect.poll(() => load.tally.ok, { timeout: 10_000 }).toBeGreaterThan(servedBefore + 10);
        // A second signal ends the wait: the gateway closes, finishing what is in flight, and exits 0.
        old.child.kill('SIGTERM');
        expect(await exited).toBe(0);
        expect(old.output().slice(before)).toContain('ending the drain early');
        gateways[index] = await serve(old.port);
        expect((await readyz(`http://127.0.0.1:${old.port}`)).status).toBe(200);
        const servedAfter = load.tally.ok;
        await expect.poll(() => load.tally.ok, { timeout: 10_000 }).toBeGreaterThan(servedAfter + 10);
      }
    } finally {
      const tally = await load.stop();
      expect({ failed: tally.failed, failures: tally.failures }).toEqual({ failed: 0, failures: [] });
      expect(tally.ok).toBeGreaterThan(60);
    }
  }, 120_000);
});

describe('backends stopped and started again', () => {
  it('Redis: down on both processes, with what each does meanwhile; the gateway stays ready, answering the keys it checked from memory', async () => {
    const [gateway] = gateways;
    const key = keys[0]!;
    expect((await fetch(`http://127.0.0.1:${gateway!.port}${API}/organization`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect(await metric(gateway!.admin, 'marquee_backend_up', { backend: 'redis' })).toBe(1);
    expect(await metric(gateway!.admin, 'marquee_keys_answered_from_memory')).toBe(0);
    await world.redis.halt();
    try {
      await expect.poll(async () => (await readyz(gateway!.admin)).body.backends.redis?.state, { timeout: 15_000 }).toBe('down');
      const during = await readyz(`http://127.0.0.1:${gateway!.port}`);
      expect(during.status).toBe(200);
      expect(during.body).toMatchObject({
        status: 'ready',
        backends: { redis: { state: 'down', why: expect.any(String), meanwhile: expect.stringContaining('from memory') }, store: { state: 'ok' } },
      });
      expect(await metric(gateway!.admin, 'marquee_backend_up', { backend: 'redis' })).toBe(0);
      expect(await metric(gateway!.admin, 'marquee_keys_answered_from_memory')).toBeGreaterThanOrEqual(1);
      await expect.poll(async () => (await readyz(builderAdmin)).body.backends.redis?.state, { timeout: 15_000 }).toBe('down');
      expect((await readyz(builderAdmin)).status).toBe(200);
      expect(await metric(builderAdmin, 'marquee_backend_up', { backend: 'redis' })).toBe(0);
    } finally {
      await world.redis.resume();
    }
    await expect.poll(async () => (await readyz(gateway!.admin)).body.backends.redis?.state, { timeout: 15_000 }).toBe('ok');
    await expect.poll(async () => (await readyz(builderAdmin)).body.backends.redis?.state, { timeout: 15_000 }).toBe('ok');
    expect(await metric(gateway!.admin, 'marquee_keys_answered_from_memory')).toBe(0);
  }, 60_000);

  it('PostgreSQL: the builder is unready, the database down; the gateway, which holds no database, knows of none and stays ready', async () => {
    await world.postgres.halt();
    try {
      await expect.poll(async () => (await readyz(builderAdmin)).status, { timeout: 15_000 }).toBe(503);
      expect((await readyz(builderAdmin)).body).toMatchObject({
        status: 'unavailable',
        backends: { database: { state: 'down', meanwhile: expect.stringContaining('building nothing') } },
      });
      expect(await metric(builderAdmin, 'marquee_backend_up', { backend: 'database' })).toBe(0);
      const gateway = await readyz(`http://127.0.0.1:${gateways[1]!.port}`);
      expect(gateway.status).toBe(200);
      expect(gateway.body.backends).not.toHaveProperty('database');
    } finally {
      await world.postgres.resume();
    }
    await expect.poll(async () => (await readyz(builderAdmin)).status, { timeout: 15_000 }).toBe(200);
    expect(await metric(builderAdmin, 'marquee_backend_up', { backend: 'database' })).toBe(1);
  }, 60_000);

  it('S3: the store down on both; the gateway stays ready, serving what it holds; the builder is unready', async () => {
    const [gateway] = gateways;
    await world.s3.halt();
    try {
      await expect.poll(async () => (await readyz(gateway!.admin)).body.backends.store?.state, { timeout: 15_000 }).toBe('down');
      expect(await readyz(`http://127.0.0.1:${gateway!.port}`)).toMatchObject({ status: 200, body: { backends: { store: { meanwhile: expect.stringContaining('holds') } } } });
      expect(await metric(gateway!.admin, 'marquee_backend_up', { backend: 'store' })).toBe(0);
      await expect.poll(async () => (await readyz(builderAdmin)).status, { timeout: 15_000 }).toBe(503);
      expect((await readyz(builderAdmin)).body.backends.store?.state).toBe('down');
    } finally {
      await world.s3.resume();
    }
    await expect.poll(async () => (await readyz(gateway!.admin)).body.backends.store?.state, { timeout: 15_000 }).toBe('ok');
    await expect.poll(async () => (await readyz(builderAdmin)).status, { timeout: 15_000 }).toBe(200);
  }, 60_000);
});
