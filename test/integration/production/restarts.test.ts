// Each backend of the production shape stopped and started again under a light, bounded load: a
// `marquee builder` and a `marquee serve` keep running throughout, nobody restarts them, and every
// answer is one the degraded-mode table of docs/production.md documents — the organization's own data (perhaps
// the last snapshot the gateway holds) or 503 with Retry-After — never another organization's data,
// never a 500. Once the backend is back, what changed meanwhile is served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { type GatewayClient, gatewayClient, type LoadReport, underLoad as load, wrongForValidKey } from '../../support/production-load.ts';
import { type MarqueeProcess, type ProductionWorld, type ServeProcess, startProductionWorld } from '../../support/production.ts';
import { until } from '../../support/until.ts';

const NORDIC = SAMPLE.organizations.nordic.id;

let world: ProductionWorld;
let builder: MarqueeProcess;
let gateway: ServeProcess;
let client: GatewayClient;
/** Keys of nordic-dev that the gateway has served, so it holds their verdicts: one for the load, one to watch for changes (each stays inside its 600 a minute). */
let seenKey: string;
let watchKey: string;

beforeAll(async () => {
  world = await startProductionWorld();
  builder = await world.builder();
  gateway = await world.serve();
  client = gatewayClient(gateway.url);
  [seenKey, watchKey] = [await createKey(), await createKey()];
  for (const key of [seenKey, watchKey]) {
    const answer = await client.get('/organization', key);
    expect(answer.status).toBe(200);
    names.add((JSON.parse(answer.body) as { name: string }).name);
  }
});

afterAll(async () => {
  await client?.close();
  await world?.stop();
});

async function createKey(): Promise<string> {
  const run = await world.cli(['keys', 'create', '--org', 'nordic-dev', '--json']);
  if (run.code !== 0) throw new Error(`keys create failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { key: string }).key;
}

/** Names nordic's /organization may carry in this file: what it started with, and every rename below. */
const names = new Set<string>();

/** Requests every 150 ms with the seen key while `during` runs: each answer nordic's own data or a documented 503. */
async function underLoad(during: () => Promise<void>): Promise<LoadReport> {
  const [report] = await load([{ ask: () => client.get('/organization', seenKey), judge: (answer) => wrongForValidKey(answer, NORDIC, names), intervalMs: 150 }], during);
  return report!;
}

/** Asks `attempt` every 200 ms until it holds, for up to `timeoutMs`. */
const eventually = (what: string, attempt: () => Promise<true | undefined>, timeoutMs = 15_000) => until(what, attempt, { timeoutMs, intervalMs: 200 });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function renameNordic(name: string): Promise<void> {
  names.add(name);
  await world.sql('UPDATE organizations SET name = $1 WHERE id = $2', [name, NORDIC]);
}

const servesName = (name: string) => async () => {
  const answer = await client.get('/organization', watchKey);
  return answer.status === 200 && (JSON.parse(answer.body) as { name: string }).name === name ? true : undefined;
};

describe('backends stopped and started again, no Marquee process restarted', () => {
  it('Redis: seen keys are served from memory, unseen ones get 503, a key made meanwhile is recorded, and all is back after it returns', async () => {
    const unseenKey = await createKey();
    let madeWhileDown = '';
    const run = await underLoad(async () => {
      const before = gateway.output().length;
      await world.redis.halt();
      // The load's requests show the gateway that Redis is gone; it says so once it answers on its own.
      await eventually('the gateway to answer without Redis', async () => gateway.output().slice(before).includes('Redis cannot be reached') || undefined);
      const unseen = await client.get('/organization', unseenKey);
      expect(unseen.status).toBe(503);
      // The database is the record: the key exists, and reaches the gateways once Redis is back.
      const made = await world.cli(['keys', 'create', '--org', 'nordic-dev', '--json']);
      expect(made.code).toBe(0);
      expect(made.stderr).toMatch(/REDIS_URL: .*key changes are recorded in the database/);
      madeWhileDown = (JSON.parse(made.stdout) as { key: string }).key;
      await world.redis.resume();
      await eventually('the unseen key accepted after Redis returned', async () => ((await client.get('/organization', unseenKey)).status === 200 ? true : undefined));
      await eventually('the key made while Redis was down accepted', async () => ((await client.get('/organization', madeWhileDown)).status === 200 ? true : undefined), 10_000);
    });
    expect(run.problems).toEqual([]);
    expect(run.statuses.get(200)).toBeGreaterThan(0);
  });

  it('object storage: the gateway serves what it holds, the builder fails visibly, and a change made meanwhile is published after it returns', async () => {
    const run = await underLoad(async () => {
      await world.s3.halt();
      const before = builder.output().length;
      await renameNordic('Nordic while S3 is down');
      await eventually('the failed build logged', async () => (/nordic-dev: build failed/.test(builder.output().slice(before)) ? true : undefined));
      await world.s3.resume();
      await eventually('the change published after S3 returned', servesName('Nordic while S3 is down'), 60_000);
    });
    expect(run.problems).toEqual([]);
    expect(run.statuses.get(503) ?? 0).toBe(0);
  });

  it('the CDN: the gateway keeps its snapshot while it cannot fetch a new one, and serves the new one after it returns', async () => {
    const run = await underLoad(async () => {
      await world.cdn.halt();
      const before = builder.output().length;
      await renameNordic('Nordic while the CDN is down');
      // The builder writes to the bucket itself, not through the CDN: the rename is published.
      await eventually('the rename published', async () => /nordic-dev: published/.test(builder.output().slice(before)) || undefined, 30_000);
      // The gateway hears of the publish (the builder announces it through Redis) and reads the new
      // pointer at once, but cannot fetch the snapshot it names through the CDN: for a second after
      // the publish, every answer is still the snapshot it holds.
      const published = performance.now();
      await until(
        'a second of answers after the publish',
        async () => {
          expect((await servesName('Nordic while the CDN is down')()) ?? false).toBe(false);
          return performance.now() - published >= 1_000;
        },
        { timeoutMs: 5_000, intervalMs: 100 },
      );
      await world.cdn.resume();
      await eventually('the new snapshot served after the CDN returned', servesName('Nordic while the CDN is down'));
    });
    expect(run.problems).toEqual([]);
    expect(run.statuses.get(503) ?? 0).toBe(0);
  });

  it('PostgreSQL: serving goes on, and the builder follows changes again after it returns', async () => {
    const run = await underLoad(async () => {
      await world.postgres.halt();
      await pause(1_500);
      await world.postgres.resume();
      await eventually('the platform database accepting writes again', async () =>
        renameNordic('Nordic after the database restart').then(
          () => true,
          () => undefined,
        ),
      );
      await eventually('the change published', servesName('Nordic after the database restart'), 30_000);
    });
    expect(run.problems).toEqual([]);
    expect(run.statuses.get(503) ?? 0).toBe(0);
  });
});
