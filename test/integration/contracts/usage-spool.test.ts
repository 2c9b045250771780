// The shared place for usage counts (test/contracts/usage-spool.ts) in both its backends: a
// directory (an embedded deployment's MARQUEE_HOME/usage) and a real redis-server started for this
// file, each test in a namespace of its own; deleting the namespace's keys stands for a FLUSHALL.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { FileUsageSpool } from '../../../records/usage/file-usage-spool.ts';
import { RedisUsageSpool } from '../../../records/usage/redis-usage-spool.ts';
import { usageSpoolContract } from '../../contracts/usage-spool.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

let server: TestRedis;

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await server.stop();
});

usageSpoolContract('FileUsageSpool', {
  async setup() {
    const directory = join(await mkdtemp(join(tmpdir(), 'marquee-usage-spool-')), 'usage');
    return { spool: new FileUsageSpool(directory), other: () => new FileUsageSpool(directory), directory };
  },
  teardown: ({ directory }) => rm(directory, { recursive: true, force: true }),
});

usageSpoolContract('RedisUsageSpool', {
  setup() {
    const namespace = `test-${randomUUID()}:`;
    const clients: Redis[] = [];
    const open = () => {
      const client = new Redis(server.url);
      clients.push(client);
      return new RedisUsageSpool(client, { namespace });
    };
    const spool = open();
    // Only this test's keys: other files' tests share the server.
    const loses = async () => {
      const keys = await clients[0]!.keys(`${namespace}*`);
      if (keys.length > 0) await clients[0]!.del(...keys);
    };
    return { spool, other: open, loses, clients };
  },
  teardown: ({ clients }) => {
    for (const client of clients) client.disconnect();
  },
  capabilities: ['loses'],
});
