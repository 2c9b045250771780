// Usage per key counted exactly across gateways (docs/design.md "Usage per key"), on a real
// redis-server, a real PostgreSQL and two real gateways (createGateway on loopback) moving their
// counts every 50 ms: N requests over both are N counted, each under its key, hour, route and
// outcome — a 403 by its errorCode with the refused origin, a revoked key's 401 against it, an
// unknown credential against nothing — also when Redis loses the batches waiting in it (they are
// put again by their gateways and counted once), and when a gateway closes (it moves what is left).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedisAccess } from '../../../gateway/access/redis-access.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import type { KeyStore } from '../../../records/keys/key-store.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import { RedisUsageSpool } from '../../../records/usage/redis-usage-spool.ts';
import { UsageIntake } from '../../../records/usage/usage-intake.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { API, type GatewayHarness, publishFixture, startHarness } from '../../support/gateway-fixtures.ts';
import { platformBackends } from '../../support/platform-backends.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const SITE = 'https://site.example';
const EVENTS = `${API}/events`;
const databases = platformBackends();
const namespace = `usage-${randomUUID()}:`;
const snapshots = new MemoryStore();
let redis: TestRedis;
let monitor: Redis;
let db: SqlClient;
let organizationId: string;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  redis = await startRedis();
  monitor = new Redis(redis.url);
  db = await databases.backends.find((backend) => backend.name === 'PostgreSQL')!.open();
  await migrateMarquee(db);
  const fixture = new PlatformFixture();
  fixture.event({ slug: 'summit', startsAt: '2026-05-01T07:00:00Z', endsAt: '2026-05-01T16:00:00Z' });
  organizationId = fixture.organization.id;
  await publishFixture(snapshots, fixture);
}, 60_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  monitor?.disconnect();
  await redis?.stop();
  await databases.close();
});

/** A gateway judging keys in Redis and moving its usage counts there every 50 ms. */
async function gateway(): Promise<{ harness: GatewayHarness; keys: KeyStore; log: RecordingLog; close(): Promise<void> }> {
  const log = new RecordingLog();
  const access = await openRedisAccess({ url: redis.url, log, namespace });
  const harness = await startHarness({
    store: snapshots,
    deps: { clock: Date.now, keys: access.keys, keyVerdicts: access.verdicts, usage: access.usage, log, limits: { usageMoveMs: 50 } },
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await harness.close();
    await access.close();
  };
  closers.push(close);
  return { harness, keys: access.keys, log, close };
}

/** A builder's intake on its own connection, every 50 ms. */
function intake(): UsageIntake {
  const client = new Redis(redis.url);
  const running = new UsageIntake(db, new RedisUsageSpool(client, { namespace }), { log: new RecordingLog(), retentionDays: 90, intervalMs: 50 });
  closers.push(async () => {
    await running.stop();
    client.disconnect();
  });
  return running;
}

/** What the database counted, as `status errorCode` → requests, per key. */
async function counted(keyId: string): Promise<Record<string, number>> {
  const rows = await db.query<{ status: number; error_code: string; requests: string }>(
    'SELECT status, error_code, sum(requests)::bigint AS requests FROM marquee_key_usage WHERE key_id = $1 GROUP BY status, error_code',
    [keyId],
  );
  return Object.fromEntries(rows.map((row) => [`${row.status}${row.error_code === '' ? '' : ` ${row.error_code}`}`, Number(row.requests)]));
}

describe('usage per key across two gateways', () => {
  it('counts every request once, by key and outcome, through a Redis that loses its batches', async () => {
    const one = await gateway();
    const two = await gateway();
    const site = await one.keys.create({ organizationId, label: 'site', origins: [SITE] });
    const old = await one.keys.create({ organizationId, label: 'old', origins: [] });
    const running = intake();
    running.start();

    const send = async (round: number) => {
      for (const [index, { harness }] of [one, two].entries()) {
        for (let n = 0; n < 5 + round + index; n++) expect((await harness.call(EVENTS, { key: site.secret, headers: { origin: SITE } })).status).toBe(200);
        expect((await harness.call(`${EVENTS}/no-such-event`, { key: site.secret })).status).toBe(404);
        expect((await harness.call(EVENTS, { key: site.secret, headers: { origin: 'https://copy.example' } })).status).toBe(403);
        // Revoked after the first round: its 401s are still charged to it.
        expect((await harness.call(EVENTS, { key: old.secret })).status).toBe(round === 0 ? 200 : 401);
        expect((await harness.call(EVENTS, { key: 'mqk_notakeyatallnotakeyatallnotakey123' })).status).toBe(401);
      }
    };
    await send(0);
    await one.keys.revoke(old.record.id, new Date());
    for (const { harness } of [one, two]) expect((await harness.call(EVENTS, { key: old.secret })).status).toBe(401);
    // 200s: (5 + 6) in the first round.
    await expect.poll(() => counted(site.record.id), { timeout: 10_000 }).toEqual({ '200': 11, '404': 2, '403 API_KEY_ORIGIN_NOT_ALLOWED': 2 });
    await expect.poll(() => counted(old.record.id), { timeout: 10_000 }).toEqual({ '200': 2, '401': 2 });

    // Redis loses what waits in it: the intake is stopped, the gateways move a second round, and
    // every batch in the namespace is deleted before any is counted.
    await running.stop();
    await send(1);
    // Both gateways have moved the round once the batches waiting stop growing (a move every 50 ms, a look every 250).
    let waiting = -1;
    const steady = async () => {
      const now = (await monitor.keys(`${namespace}usage:batch:*`)).length;
      const same = now > 0 && now === waiting;
      waiting = now;
      return same;
    };
    await expect.poll(steady, { timeout: 10_000, interval: 250 }).toBe(true);
    const lost = await monitor.keys(`${namespace}usage:*`);
    await monitor.del(...lost);
    const again = intake();
    again.start();
    // 200s: 11 before, (6 + 7) now.
    await expect.poll(() => counted(site.record.id), { timeout: 10_000 }).toEqual({ '200': 24, '404': 4, '403 API_KEY_ORIGIN_NOT_ALLOWED': 4 });
    // Each gateway says so when it puts lost batches again: an operator sees Redis lost its data.
    for (const { log } of [one, two]) expect(log.lines.some((line) => line.level === 'warn' && /lost usage batches/.test(line.message))).toBe(true);

    // Closing a gateway moves what it still counts; nothing is counted twice after that.
    await one.harness.call(EVENTS, { key: site.secret });
    await one.close();
    await two.close();
    await again.round();
    expect(await counted(site.record.id)).toEqual({ '200': 25, '404': 4, '403 API_KEY_ORIGIN_NOT_ALLOWED': 4 });
    expect(await counted(old.record.id)).toEqual({ '200': 2, '401': 4 });
    const origins = await db.query<{ origin: string; requests: string }>('SELECT origin, requests FROM marquee_key_usage_origins WHERE key_id = $1', [site.record.id]);
    expect(origins.map((row) => [row.origin, Number(row.requests)])).toEqual([['https://copy.example', 4]]);
    // An unknown credential is charged to no key.
    expect(Number((await db.query<{ n: string }>('SELECT count(DISTINCT key_id) AS n FROM marquee_key_usage'))[0]!.n)).toBe(2);
  }, 60_000);
});
