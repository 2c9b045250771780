// The KeyVerdicts contract (test/contracts/key-verdicts.ts) against the Redis verdicts (lookup and
// count in one script), on a real redis-server started for this file; each test has a namespace
// of its own, and its key store writes through another connection, as the CLI does. The copy's
// mark is set as a key keeper sets it, and a loss removes every key of the namespace (FLUSHDB, for
// one test's namespace).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisKeyVerdicts } from '../../../gateway/access/redis-key-verdicts.ts';
import { RELOADING, RedisKeyStore, syncedKey } from '../../../records/keys/redis-key-store.ts';
import { keyVerdictsContract } from '../../contracts/key-verdicts.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

let server: TestRedis;
let gateway: Redis;
let cli: Redis;

beforeAll(async () => {
  server = await startRedis();
  gateway = new Redis(server.url, { enableAutoPipelining: true });
  cli = new Redis(server.url);
});

afterAll(async () => {
  gateway.disconnect();
  cli.disconnect();
  await server.stop();
});

keyVerdictsContract('RedisKeyVerdicts', {
  setup() {
    const namespace = `test-${randomUUID()}:`;
    const log = new RecordingLog();
    return {
      store: new RedisKeyStore(cli, { namespace }),
      verdicts: (options: { limit: number; windowSeconds: number }) => new RedisKeyVerdicts(gateway, { ...options, namespace, log }),
      log,
      copy: {
        markComplete: async () => void (await cli.set(syncedKey(namespace), '1')),
        markRefilling: async () => void (await cli.set(syncedKey(namespace), `${RELOADING}contract`)),
        lose: async () => {
          const keys = await cli.keys(`${namespace}*`);
          if (keys.length > 0) await cli.del(...keys);
        },
      },
    };
  },
  capabilities: ['copy'],
  // Redis answered throughout: nothing to report.
  teardown: ({ log }) => {
    if (log.lines.length > 0) throw new Error(`unexpected log lines: ${JSON.stringify(log.lines)}`);
  },
});
