// The key keeper (records/keys/key-keeper.ts) between a real PostgreSQL and a real Redis: the durable
// record in marquee_keys, Redis as the gateways' copy. Each test has a fresh relation and a Redis
// namespace of its own; the keeper is driven by `sync()`, one step at a time.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KeyKeeper } from '../../../records/keys/key-keeper.ts';
import { PostgresKeyStore } from '../../../records/keys/postgres-key-store.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { hashSecret } from '../../../records/keys/format.ts';
import type { KeyRecord } from '../../../records/keys/key-store.ts';
import { RedisKeyStore } from '../../../records/keys/redis-key-store.ts';
import { RedisKeyVerdicts } from '../../../gateway/access/redis-key-verdicts.ts';
import { platformBackends } from '../../support/platform-backends.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
const { backends, close } = platformBackends();
let db: SqlClient;
let server: TestRedis;
let client: Redis;

/** Per test: the durable store, the copy in a namespace of its own, and a keeper between them. */
let durable: PostgresKeyStore;
let copy: RedisKeyStore;
let namespace: string;
let keeper: KeyKeeper;
let log: RecordingLog;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis(server.url);
  db = await backends.find((backend) => backend.name === 'PostgreSQL')!.open();
});

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
  await close();
});

beforeEach(async () => {
  // Migrated once; emptied, as new, for each test.
  await migrateMarquee(db);
  await db.exec('TRUNCATE marquee_keys; ALTER SEQUENCE marquee_key_changes RESTART;');
  namespace = `test-${randomUUID()}:`;
  copy = new RedisKeyStore(client, { namespace });
  durable = new PostgresKeyStore(db, { mirror: async ({ record, change }) => void (await copy.put(record, change)) });
  log = new RecordingLog();
  keeper = new KeyKeeper(new PostgresKeyStore(db), copy, { log });
});

/** Every record, by id, without last uses (compared on their own). */
const byId = (records: KeyRecord[]) => Object.fromEntries(records.map((record) => [record.id, { ...record, lastUsedAt: null }]));

/** Everything in this test's namespace, gone: what FLUSHALL does to a Redis. */
async function flush(): Promise<void> {
  const keys = await client.keys(`${namespace}*`);
  if (keys.length > 0) await client.del(...keys);
}

/** A valid key, one revoked outright, one whose revocation is scheduled, one expired. */
async function fourKeys() {
  const valid = await durable.create({ organizationId: ORG, label: 'valid', origins: ['https://www.example.org'] });
  const revoked = await durable.create({ organizationId: ORG, label: 'revoked', origins: [] });
  await durable.revoke(revoked.record.id, new Date('2026-11-01T00:00:00Z'));
  const rolled = await durable.create({ organizationId: ORG, label: 'rolled', origins: [] });
  await durable.scheduleRevocation(rolled.record.id, new Date('2030-01-01T00:00:00Z'));
  const expired = await durable.create({ organizationId: ORG, label: 'expired', origins: [], expiresAt: new Date('2026-01-01T00:00:00Z') });
  return { valid, revoked, rolled, expired };
}

describe('KeyKeeper', () => {
  it("marks the copy complete once refilled: a gateway answers a key not found 503 from Redis's loss to the refill, 401 after, and never serves the revoked key", async () => {
    const keys = await fourKeys();
    const verdicts = new RedisKeyVerdicts(client, { namespace, log: new RecordingLog() });
    const unknown = hashSecret('mqk_never_made');
    const now = Date.now();
    expect(await keeper.sync()).toMatchObject({ outcome: 'refilled' });
    expect((await verdicts.verdict(keys.valid.record.secretHash, now)).record?.id).toBe(keys.valid.record.id);
    expect(await verdicts.verdict(unknown, now)).toEqual({ record: undefined });
    await flush();
    for (const secretHash of [keys.valid.record.secretHash, keys.revoked.record.secretHash, unknown]) {
      expect(await verdicts.verdict(secretHash, now)).toEqual({ record: undefined, retryAfterSeconds: 5 });
    }
    expect(await keeper.sync()).toMatchObject({ outcome: 'refilled' });
    expect((await verdicts.verdict(keys.valid.record.secretHash, now)).rate).toMatchObject({ allowed: true });
    const revoked = await verdicts.verdict(keys.revoked.record.secretHash, now);
    expect(revoked.record?.revokedAt).toBe('2026-11-01T00:00:00.000Z');
    expect(revoked.rate).toBeUndefined();
    expect(await verdicts.verdict(unknown, now)).toEqual({ record: undefined });
  });

  it('warns, at its first sync and at each refill, when Redis may evict records beside the mark', async () => {
    await client.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      await keeper.sync();
      await keeper.sync();
      const warnings = () => log.lines.filter((line) => line.level === 'warn' && line.message.includes('maxmemory-policy allkeys-lru'));
      expect(warnings()).toHaveLength(1);
      await flush();
      await keeper.sync();
      expect(warnings()).toHaveLength(2);
    } finally {
      await client.config('SET', 'maxmemory-policy', 'noeviction');
    }
    const quietLog = new RecordingLog();
    await new KeyKeeper(new PostgresKeyStore(db), copy, { log: quietLog }).sync();
    expect(quietLog.lines.filter((line) => line.level === 'warn')).toEqual([]);
  });

  it('refills a Redis that lost its data with every record as the database has it, revoked and expired ones included', async () => {
    const keys = await fourKeys();
    expect(await keeper.sync()).toMatchObject({ outcome: 'refilled', adopted: 0 });
    await flush();
    expect(await copy.findBySecretHash(keys.valid.record.secretHash)).toBeUndefined();

    expect(await keeper.sync()).toEqual({ outcome: 'refilled', records: 4, adopted: 0, uses: 0 });
    expect(byId(await copy.list())).toEqual(byId(await durable.list()));
    expect((await copy.findBySecretHash(keys.revoked.record.secretHash))?.revokedAt).toBe('2026-11-01T00:00:00.000Z');
    expect(await copy.findBySecretHash(keys.rolled.record.secretHash)).toMatchObject({ revokedAt: '2030-01-01T00:00:00.000Z', revocationScheduled: true });
    expect(await copy.findBySecretHash(keys.expired.record.secretHash)).toMatchObject({ expiresAt: '2026-01-01T00:00:00.000Z' });
    expect(log.lines.some((line) => line.level === 'info' && /refilled it with 4 from the database/.test(line.message))).toBe(true);
    expect(await keeper.sync()).toEqual({ outcome: 'current', records: 0, adopted: 0, uses: 0 });
  });

  it('copies a change Redis missed (a revocation made while it was down) at the next sync, and only that one', async () => {
    const { valid } = await fourKeys();
    await keeper.sync();
    // Written to the database alone, as when the copy fails.
    await new PostgresKeyStore(db).revoke(valid.record.id, new Date('2026-11-24T12:00:00Z'));
    expect((await copy.findBySecretHash(valid.record.secretHash))?.revokedAt).toBeNull();

    expect(await keeper.sync()).toEqual({ outcome: 'copied', records: 1, adopted: 0, uses: 0 });
    expect((await copy.findBySecretHash(valid.record.secretHash))?.revokedAt).toBe('2026-11-24T12:00:00.000Z');
    expect(await keeper.sync()).toMatchObject({ outcome: 'current' });
  });

  it('never puts an older state of a record over a newer one, whatever order copies arrive in', async () => {
    const { record } = await durable.create({ organizationId: ORG, label: 'site', origins: [] });
    const revokedAt = new Date('2026-11-24T12:00:00Z');
    await durable.revoke(record.id, revokedAt);
    const [first, second] = await durable.changedSince(0, 10);
    expect(second).toBeUndefined();
    // The creation's state, at an older change than the revocation's copy already in Redis.
    expect(await copy.put(record, first!.change - 1)).toBe(false);
    expect((await copy.findById(record.id))?.revokedAt).toBe(revokedAt.toISOString());
  });

  it("moves an existing deployment's Redis-only keys into the database unchanged: same ids, hashes, times, state and secrets", async () => {
    // Made the way the release before this one made them: in Redis alone.
    const old = [
      await copy.create({ organizationId: ORG, label: 'site', origins: ['https://www.example.org'] }),
      await copy.create({ organizationId: ORG, label: null, origins: [], expiresAt: new Date('2031-01-01T00:00:00Z') }),
      await copy.create({ organizationId: ORG, label: 'gone', origins: [] }),
    ];
    await copy.revoke(old[2]!.record.id, new Date('2026-10-01T00:00:00Z'));
    await copy.recordUse(new Map([[old[0]!.record.id, new Date('2026-11-20T10:00:00Z')]]));
    const before = await copy.list();

    expect(await keeper.sync()).toEqual({ outcome: 'refilled', records: 3, adopted: 3, uses: 1 });
    expect(byId(await durable.list())).toEqual(byId(before));
    for (const { record, secret } of old) expect((await durable.findBySecretHash(hashSecret(secret)))?.id).toBe(record.id);
    expect((await durable.findById(old[0]!.record.id))?.lastUsedAt).toBe('2026-11-20T10:00:00.000Z');
    expect((await durable.findById(old[2]!.record.id))?.revokedAt).toBe('2026-10-01T00:00:00.000Z');
    // A second refill (Redis lost again) adopts nothing new and keeps the database's state.
    await flush();
    expect(await keeper.sync()).toMatchObject({ outcome: 'refilled', records: 3, adopted: 0 });
  });

  it('moves the last uses gateways report to Redis into the database, keeping the later one', async () => {
    const { record } = await durable.create({ organizationId: ORG, label: null, origins: [] });
    await keeper.sync();
    await copy.recordUse(new Map([[record.id, new Date('2026-11-24T10:00:00Z')]]));
    await copy.recordUse(new Map([[record.id, new Date('2026-11-24T09:00:00Z')]]));
    expect(await keeper.sync()).toMatchObject({ uses: 1 });
    expect((await durable.findById(record.id))?.lastUsedAt).toBe('2026-11-24T10:00:00.000Z');
    // A later change of the record, copied to Redis, keeps the gateway's later use there.
    await copy.recordUse(new Map([[record.id, new Date('2026-11-24T11:00:00Z')]]));
    await durable.update(record.id, { label: 'renamed' });
    expect(await copy.findById(record.id)).toMatchObject({ label: 'renamed', lastUsedAt: '2026-11-24T11:00:00.000Z' });
  });

  it('leaves a refill to the keeper that claimed it, and refills again when the data went while it was being refilled', async () => {
    await fourKeys();
    expect(await copy.beginReload('someone-else', 60)).toBe(true);
    expect(await keeper.sync()).toMatchObject({ outcome: 'skipped', records: 0 });
    // The claim went with the data (another FLUSHALL): finishing it is refused, and the next sync refills.
    await flush();
    expect(await copy.finishReload('someone-else', 10)).toBe(false);
    expect(await copy.syncState()).toEqual({ state: 'empty' });
    expect(await keeper.sync()).toMatchObject({ outcome: 'refilled', records: 4 });
    expect(await copy.syncState()).toEqual({ state: 'synced', change: await durable.latestChange() });
  });

  it('gives its claim back when a refill fails mid-way (the database away), so that the next sync of any keeper refills at once', async () => {
    await fourKeys();
    await flush();
    const durableAway = new PostgresKeyStore(db);
    durableAway.latestChange = () => Promise.reject(new Error('Connection terminated unexpectedly'));
    const failing = new KeyKeeper(durableAway, copy, { log });
    expect(await failing.sync()).toBeUndefined();
    expect(log.lines.filter((line) => line.level === 'warn' && /cannot sync the keys/.test(line.message))).toHaveLength(1);
    // Not a claim lapsing in seconds while every key is refused: empty, for the next sync to refill.
    expect(await copy.syncState()).toEqual({ state: 'empty' });
    expect(await keeper.sync()).toMatchObject({ outcome: 'refilled', records: 4 });
  });

  it('holds a refill claim only while its keeper renews it, and gives back only its own', async () => {
    const marker = `${namespace}keys-synced`;
    expect(await copy.beginReload('mine', 10)).toBe(true);
    expect(await client.ttl(marker)).toBeLessThanOrEqual(10);
    expect(await copy.renewReload('mine', 30)).toBe(true);
    expect(await client.ttl(marker)).toBeGreaterThan(10);
    expect(await copy.renewReload('theirs', 30)).toBe(false);
    await copy.abandonReload('theirs');
    expect(await copy.syncState()).toEqual({ state: 'reloading' });
    await copy.abandonReload('mine');
    expect(await copy.syncState()).toEqual({ state: 'empty' });
    // Gone with the data: nothing to renew, and renewing does not bring it back.
    expect(await copy.beginReload('mine', 10)).toBe(true);
    await flush();
    expect(await copy.renewReload('mine', 10)).toBe(false);
    expect(await copy.syncState()).toEqual({ state: 'empty' });
  });

  it('two keepers syncing at once refill once and agree', async () => {
    await fourKeys();
    const other = new KeyKeeper(new PostgresKeyStore(db), new RedisKeyStore(client, { namespace }), { log });
    const outcomes = (await Promise.all([keeper.sync(), other.sync()])).map((result) => result?.outcome).sort();
    expect(outcomes).toEqual(['refilled', 'skipped']);
    expect(byId(await copy.list())).toEqual(byId(await durable.list()));
  });

  it('logs one warning per outage and syncs again once Redis answers', async () => {
    await fourKeys();
    await keeper.sync();
    const { valid } = await fourKeys();
    await new PostgresKeyStore(db).revoke(valid.record.id, new Date('2026-11-24T12:00:00Z'));
    await server.halt();
    let halted = true;
    try {
      const failing = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
      failing.on('error', () => {});
      const cut = new KeyKeeper(new PostgresKeyStore(db), new RedisKeyStore(failing, { namespace }), { log });
      expect(await cut.sync()).toBeUndefined();
      expect(await cut.sync()).toBeUndefined();
      expect(log.lines.filter((line) => line.level === 'warn' && /cannot sync the keys/.test(line.message))).toHaveLength(1);
      await server.resume();
      halted = false;
      await new Promise<void>((resolve) => (failing.status === 'ready' ? resolve() : failing.once('ready', () => resolve())));
      expect(await cut.sync()).toMatchObject({ outcome: 'copied', records: 1 });
      expect(log.lines.some((line) => line.level === 'info' && /answer again/.test(line.message))).toBe(true);
      failing.disconnect();
    } finally {
      if (halted) await server.resume();
    }
    expect((await copy.findBySecretHash(valid.record.secretHash))?.revokedAt).toBe('2026-11-24T12:00:00.000Z');
  });
});
