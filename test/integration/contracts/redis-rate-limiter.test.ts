// The RateLimiter contract (test/contracts/rate-limiter.ts) against the counting production uses
// with Redis: the sliding-window Lua inside the key verdicts' script (access/redis-key-verdicts.ts),
// seen as a limiter (test/support/verdicts-as-limiter.ts), on a real redis-server started for this
// file. Every limiter gets a namespace of its own, so no two share a bucket; the shared pair is two
// verdicts on two connections in one namespace and one key store, as two gateways.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisKeyVerdicts } from '../../../gateway/access/redis-key-verdicts.ts';
import { RedisKeyStore } from '../../../records/keys/redis-key-store.ts';
import { rateLimiterContract } from '../../contracts/rate-limiter.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { type KeyBuckets, limiterThroughVerdicts } from '../../support/verdicts-as-limiter.ts';
import type { RateLimiter } from '../../../gateway/access/rate-limit.ts';

let server: TestRedis;
let client: Redis;
let second: Redis;
let cli: Redis;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis(server.url, { enableAutoPipelining: true });
  second = new Redis(server.url, { enableAutoPipelining: true });
  cli = new Redis(server.url);
});

afterAll(async () => {
  client.disconnect();
  second.disconnect();
  cli.disconnect();
  await server.stop();
});

function limiterOn(redis: Redis, namespace: string, buckets: KeyBuckets, options: { limit: number; windowSeconds: number }): RateLimiter {
  const verdicts = new RedisKeyVerdicts(redis, { ...options, namespace, log: new RecordingLog() });
  return limiterThroughVerdicts(new RedisKeyStore(cli, { namespace }), verdicts, buckets);
}

rateLimiterContract('RedisKeyVerdicts (the count in the verdict script)', {
  setup: () => ({
    limiter: (options: { limit: number; windowSeconds: number }) => limiterOn(client, `test-${randomUUID()}:`, new Map(), options),
    shared: (options: { limit: number; windowSeconds: number }): [RateLimiter, RateLimiter] => {
      const namespace = `test-${randomUUID()}:`;
      const buckets: KeyBuckets = new Map();
      return [limiterOn(client, namespace, buckets, options), limiterOn(second, namespace, buckets, options)];
    },
  }),
  capabilities: ['shared'],
});
