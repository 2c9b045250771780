// The RateLimiter contract (test/contracts/rate-limiter.ts) against the Redis limiter, on a real
// redis-server started for this file. Every limiter gets a namespace of its own, so no two share
// a bucket; the shared pair is two limiters on two connections in one namespace, as two gateways.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisRateLimiter } from '../../../gateway/access/redis-rate-limiter.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { rateLimiterContract } from '../../contracts/rate-limiter.ts';

let server: TestRedis;
let client: Redis;
let second: Redis;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis(server.url, { enableAutoPipelining: true });
  second = new Redis(server.url, { enableAutoPipelining: true });
});

afterAll(async () => {
  client.disconnect();
  second.disconnect();
  await server.stop();
});

rateLimiterContract('RedisRateLimiter', {
  setup: () => ({
    limiter: (options: { limit: number; windowSeconds: number }) => new RedisRateLimiter(client, { ...options, namespace: `test-${randomUUID()}:` }),
    shared: (options: { limit: number; windowSeconds: number }): [RedisRateLimiter, RedisRateLimiter] => {
      const namespace = `test-${randomUUID()}:`;
      return [new RedisRateLimiter(client, { ...options, namespace }), new RedisRateLimiter(second, { ...options, namespace })];
    },
  }),
  capabilities: ['shared'],
});
