// Keys outlive any cache (docs/design.md): the production shape, a `marquee builder` and a
// `marquee serve`, and a Redis that loses its data in each way an operator meets — FLUSHALL, a new
// empty instance at the same address — while a light load runs. Valid keys are served again within
// 10 s, with nobody doing anything; a revoked key is never answered 200, at any moment. A revocation
// made while Redis is down is in effect once Redis is back. Before all that, the first start of this
// release moved the keys an older one kept in Redis alone into the database, unchanged.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { openRedisKeyStore } from '../../../gateway/access/redis-access.ts';
import { type Answer, type GatewayClient, gatewayClient, underLoad, wrongForRevokedKey } from '../../support/production-load.ts';
import { type MarqueeProcess, type ProductionWorld, type ServeProcess, startProductionWorld } from '../../support/production.ts';
import { until } from '../../support/until.ts';

const NORDIC = SAMPLE.organizations.nordic.id;
/** The bound: every valid key served again within this of Redis losing its data. */
const REFILLED_WITHIN_MS = 10_000;

let world: ProductionWorld;
let builder: MarqueeProcess;
let gateway: ServeProcess;
let client: GatewayClient;
let valid: { id: string; key: string };
let revoked: { id: string; key: string };
/** A key made by the release before this one, in Redis alone. */
let older: { id: string; key: string };

async function createKey(): Promise<{ id: string; key: string }> {
  const run = await world.cli(['keys', 'create', '--org', 'nordic-dev', '--json']);
  if (run.code !== 0) throw new Error(`keys create failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { id: string; key: string };
}

beforeAll(async () => {
  world = await startProductionWorld();
  const redisOnly = await openRedisKeyStore({ url: world.redis.url });
  const made = await redisOnly.keys.create({ organizationId: NORDIC, label: 'made before the durable record', origins: [] });
  older = { id: made.record.id, key: made.secret };
  await redisOnly.close();
  builder = await world.builder();
  gateway = await world.serve();
  client = gatewayClient(gateway.url);
  valid = await createKey();
  revoked = await createKey();
  expect((await world.cli(['keys', 'revoke', revoked.id])).code).toBe(0);
});

afterAll(async () => {
  await client?.close();
  await world?.stop();
});

const status = async (key: string): Promise<number> => (await client.get('/organization', key)).status;

/**
 * Asks with each of `keys` every 200 ms from `since` until the builder's key keeper has refilled
 * Redis (its log says so, at an instant after `refilledAfter`) and every key is served, for up to
 * 12 s; answers when the last answer other than 200 came (ms after `since`; 0 when none). A gateway
 * may answer from memory at first (Redis unreachable) and refuse once it reads the empty Redis:
 * what counts is when refusals end, and they end for good once the keys are back in Redis, which
 * the gateway reads at every request.
 */
async function lastRefusalAfter(keys: string[], since: number, refilledAfter: string): Promise<number> {
  let last = 0;
  await until(
    'Redis refilled and every valid key served again',
    async () => {
      const statuses = await Promise.all(keys.map(status));
      if (statuses.some((answer) => answer !== 200)) last = performance.now() - since;
      return lastRefillAt() > refilledAfter && statuses.every((answer) => answer === 200);
    },
    { timeoutMs: REFILLED_WITHIN_MS + 2_000, intervalMs: 200 },
  );
  return last;
}

/** A light load with the revoked key (never 200) and the valid one (200, or a refusal only while Redis is being refilled), each inside the 600 requests a minute. */
function watching(during: () => Promise<void>) {
  const validAnswers = (answer: Answer) => (answer.status === 200 || answer.status === 401 || answer.status === 503 ? undefined : `valid key answered ${answer.status}`);
  return underLoad(
    [
      { ask: () => client.get('/organization', revoked.key), judge: wrongForRevokedKey, intervalMs: 100 },
      { ask: () => client.get('/organization', valid.key), judge: validAnswers, intervalMs: 300 },
    ],
    during,
  );
}

/** When the builder's key keeper last logged a refill (an ISO instant), from its JSON log. */
function lastRefillAt(): string {
  const refills = builder
    .output()
    .split('\n')
    .filter((line) => line.includes('key keeper: Redis had no keys'))
    .map((line) => (JSON.parse(line) as { time: string }).time);
  return refills.at(-1) ?? '';
}

describe('keys outlive Redis', () => {
  it("the first start moved the older release's Redis-only key into the database, unchanged", async () => {
    const listed = JSON.parse((await world.cli(['keys', 'list', '--org', 'nordic-dev', '--json'])).stdout) as Array<{ id: string; label: string }>;
    expect(listed.find((key) => key.id === older.id)).toMatchObject({ label: 'made before the durable record' });
    expect(await status(older.key)).toBe(200);
    expect(builder.output()).toMatch(/key keeper: Redis had no keys; refilled it with \d+ from the database, after recording 1 that only Redis had/);
    const rows = await world.sql('SELECT id FROM marquee.marquee_keys WHERE id = $1', [older.id]);
    expect(rows.rowCount).toBe(1);
  });

  it('FLUSHALL under load: every valid key served again within 10 s, the revoked one never', async () => {
    expect(await status(valid.key)).toBe(200);
    let tookMs = 0;
    const before = new Date().toISOString();
    const [revokedRun, validRun] = await watching(async () => {
      const admin = new Redis(world.redis.url);
      const flushed = performance.now();
      await admin.flushall();
      admin.disconnect();
      tookMs = await lastRefusalAfter([valid.key, older.key], flushed, before);
    });
    console.info(`FLUSHALL: last refusal of a valid key ${Math.round(tookMs)} ms after it`);
    expect(tookMs).toBeLessThan(REFILLED_WITHIN_MS);
    expect(lastRefillAt() > before).toBe(true);
    expect(revokedRun!.problems).toEqual([]);
    expect(revokedRun!.statuses.get(200) ?? 0).toBe(0);
    expect(validRun!.problems).toEqual([]);
  });

  it('a new empty Redis at the same address: every valid key served again within 10 s, the revoked one never', async () => {
    let tookMs = 0;
    const before = new Date().toISOString();
    const [revokedRun] = await watching(async () => {
      const replaced = performance.now();
      await world.redis.replace();
      tookMs = await lastRefusalAfter([valid.key, older.key], replaced, before);
    });
    console.info(`new empty Redis: last refusal of a valid key ${Math.round(tookMs)} ms after it was up`);
    // The builder's keeper refilled it (the gateway may have reconnected only after, never refusing at all).
    expect(lastRefillAt() > before).toBe(true);
    expect(tookMs).toBeLessThan(REFILLED_WITHIN_MS);
    expect(revokedRun!.problems).toEqual([]);
    expect(revokedRun!.statuses.get(200) ?? 0).toBe(0);
  });

  it('a revocation made while Redis is down is in effect once Redis is back', async () => {
    const doomed = await createKey();
    expect(await status(doomed.key)).toBe(200);
    await world.redis.halt();
    const run = await world.cli(['keys', 'revoke', doomed.id]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/REDIS_URL: .*key changes are recorded in the database/);
    await world.redis.resume();
    const back = performance.now();
    // The gateway reconnects within about 2 s, the keeper within 1 s and copies at once: from the
    // first refusal on, never served again (asked every 50 ms, until five answers from it on).
    const answers: Array<{ status: number; at: number }> = [];
    const firstRefusal = () => answers.findIndex((answer) => answer.status !== 200);
    await until(
      'the revoked key refused',
      async () => {
        answers.push({ status: await status(doomed.key), at: performance.now() });
        return firstRefusal() >= 0 && answers.length - firstRefusal() >= 5;
      },
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    // 401, or 429 once this address has sent the gateway too many refused keys.
    expect(answers.slice(firstRefusal()).every((answer) => answer.status === 401 || answer.status === 429)).toBe(true);
    console.info(`revocation made while Redis was down: first refused ${Math.round(answers[firstRefusal()]!.at - back)} ms after Redis was back`);
    expect(await status(valid.key)).toBe(200);
  });
});
