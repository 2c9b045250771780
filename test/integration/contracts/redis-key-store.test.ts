// The KeyStore contract (test/contracts/key-store.ts) against the Redis key store, on a real
// redis-server started for this file. Each test has a namespace of its own, so tests do not see one
// another's keys; another RedisKeyStore on its own connection in the same namespace stands for
// another process (the CLI beside a running gateway).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisKeyStore } from '../../../records/keys/redis-key-store.ts';
import { keyStoreContract } from '../../contracts/key-store.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

let server: TestRedis;

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await server.stop();
});

keyStoreContract('RedisKeyStore', {
  setup() {
    const namespace = `test-${randomUUID()}:`;
    const clients: Redis[] = [];
    const open = () => {
      const client = new Redis(server.url, { enableAutoPipelining: true });
      clients.push(client);
      return new RedisKeyStore(client, { namespace });
    };
    return { store: open(), other: open, clients };
  },
  teardown: ({ clients }) => {
    for (const client of clients) client.disconnect();
  },
  capabilities: ['other'],
});
