// The shared place for usage counts (test/contracts/usage-spool.ts) in both its backends: a
// directory (an embedded deployment's MARQUEE_HOME/usage) and a real redis-server started for this
// file, each test in a namespace of its own; deleting the namespace's keys stands for a FLUSHALL.
// Then what only Redis can do: lose a batch in the middle of an intake's round.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('RedisUsageSpool, when Redis loses its data during an intake round', () => {
  it('keeps handing out a batch its gateway put again before the intake forgot the lost one', async () => {
    const namespace = `test-${randomUUID()}:`;
    const client = new Redis(server.url);
    const gateway = new RedisUsageSpool(client, { namespace });
    const batch = { id: 'gw-1.7', payload: '{"id":"gw-1.7","c":[],"o":[]}' };
    const flush = async () => {
      const keys = await client.keys(`${namespace}*`);
      if (keys.length > 0) await client.del(...keys);
    };
    // The intake's connection: Redis loses its data after the intake saw the batch's id and before
    // it read the batch; the gateway's next move finds it lost and puts it again before the intake
    // forgets the id it found without a batch.
    const intakeClient = new Redis(server.url);
    const readBatches = intakeClient.mget.bind(intakeClient);
    const racing = new Proxy(intakeClient, {
      get: (target, property, receiver) =>
        property === 'mget'
          ? async (...keys: string[]) => {
              await flush();
              const read = await readBatches(...keys);
              expect(await gateway.settle([batch.id])).toEqual({ counted: [], lost: [batch.id] });
              await gateway.put(batch);
              return read;
            }
          : Reflect.get(target, property, receiver),
    });
    try {
      await gateway.put(batch);
      expect(await new RedisUsageSpool(racing, { namespace }).waiting(10)).toEqual([]);
      expect(await new RedisUsageSpool(intakeClient, { namespace }).waiting(10)).toEqual([batch]);
      expect(await gateway.settle([batch.id])).toEqual({ counted: [], lost: [] });
    } finally {
      client.disconnect();
      intakeClient.disconnect();
    }
  });
});
