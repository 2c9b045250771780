// The KeyStore contract (test/contracts/key-store.ts) against the durable key record, the relation
// marquee_keys, on a real PostgreSQL and on PGlite: one database per backend, the relation dropped
// and created again before each test. Another PostgresKeyStore on the same database stands for
// another process (the CLI beside a builder). A third run writes through to a real Redis as
// builders do (the `mirror`), and checks after every test that Redis's copy is what the database
// holds, record for record.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect } from 'vitest';
import { PostgresKeyStore } from '../../../records/keys/postgres-key-store.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { RedisKeyStore } from '../../../records/keys/redis-key-store.ts';
import { keyStoreContract } from '../../contracts/key-store.ts';
import { platformBackends } from '../../support/platform-backends.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const { backends, close } = platformBackends();
const databases = new Map<string, SqlClient>();
let redis: TestRedis;
let client: Redis;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  for (const backend of backends) databases.set(backend.name, await backend.open());
});

afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
  await close();
});

/** The database of `name` with an empty relation. */
async function emptied(name: string): Promise<SqlClient> {
  const db = databases.get(name)!;
  // Migrated once; emptied, as new, for each test.
  await migrateMarquee(db);
  await db.exec('TRUNCATE marquee_keys; ALTER SEQUENCE marquee_key_changes RESTART;');
  return db;
}

for (const backend of backends) {
  keyStoreContract(`PostgresKeyStore (${backend.name})`, {
    async setup() {
      const db = await emptied(backend.name);
      return { store: new PostgresKeyStore(db), other: () => new PostgresKeyStore(db) };
    },
    capabilities: ['other'],
  });
}

keyStoreContract('PostgresKeyStore (PostgreSQL) written through to Redis', {
  async setup() {
    const db = await emptied('PostgreSQL');
    const copy = new RedisKeyStore(client, { namespace: `test-${randomUUID()}:` });
    const open = () => new PostgresKeyStore(db, { mirror: async ({ record, change }) => void (await copy.put(record, change)) });
    return { store: open(), other: open, copy, db };
  },
  // Last uses are the gateways' to report to Redis and the keeper's to copy here, not the other way: compared without them.
  async teardown({ store, copy }) {
    const withoutUse = <T extends { lastUsedAt: string | null; id: string }>(records: T[]) =>
      records.map((record) => ({ ...record, lastUsedAt: null })).sort((a, b) => a.id.localeCompare(b.id));
    expect(withoutUse(await copy.list())).toEqual(withoutUse(await store.list()));
  },
  capabilities: ['other'],
});
