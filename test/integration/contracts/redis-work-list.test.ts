// The WorkList contract (test/contracts/work-list.ts) against RedisWorkList on a real redis-server,
// each other builder a connection of its own as another builder process has.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { RedisWorkList } from '../../../builder/runs/redis-work-list.ts';
import { workListContract } from '../../contracts/work-list.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const claimTimeoutMs = 500;

workListContract('RedisWorkList', {
  setup() {
    // Keys of their own per test: the unfinished runs of one test are not another's.
    const keyPrefix = `marquee:test:${randomUUID()}:`;
    const opened: RedisWorkList[] = [];
    const open = () => {
      const list = new RedisWorkList(redis.url, { log: new RecordingLog(), keyPrefix, claimTimeoutMs });
      opened.push(list);
      return list;
    };
    return { list: open(), view: open, claimTimeoutMs, opened };
  },
  teardown: async ({ opened }) => {
    await Promise.all(opened.map((list) => list.close()));
  },
});
