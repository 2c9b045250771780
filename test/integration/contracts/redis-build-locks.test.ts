// The BuildLocks contract (test/contracts/build-locks.ts) against RedisBuildLocks on a real
// redis-server, each other holder a connection of its own as another builder process has; then
// what Redis being down does to a builder: a bounded failure, never a hang, and locks again once
// Redis is back.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LockTiming } from '../../../builder/build-locks.ts';
import { RedisBuildLocks } from '../../../builder/redis-build-locks.ts';
import { buildLocksContract } from '../../contracts/build-locks.ts';
import { eventually } from '../../contracts/harness.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const timing: LockTiming = { ttlMs: 1_000, renewEveryMs: 200 };
const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';

/** Holders of one test, on lock keys of their own, all closed after it. */
function holders() {
  const keyPrefix = `marquee:test:${randomUUID()}:`;
  const opened: RedisBuildLocks[] = [];
  const open = (own: LockTiming = timing, log = new RecordingLog()) => {
    const locks = new RedisBuildLocks(redis.url, { log, timing: own, keyPrefix });
    opened.push(locks);
    return locks;
  };
  return { open, close: () => Promise.all(opened.map((locks) => locks.close())) };
}

buildLocksContract('RedisBuildLocks', {
  setup() {
    const { open, close } = holders();
    return { locks: open(), timing, holder: (own?: LockTiming) => open(own), close };
  },
  teardown: (harness) => harness.close().then(() => undefined),
});

describe('RedisBuildLocks beyond the contract', () => {
  it('fails acquire within a bound while Redis is down, releases without hanging, and locks again once Redis is back', async () => {
    const { open, close } = holders();
    const log = new RecordingLog();
    const locks = open(timing, log);
    const held = (await locks.acquire(ORG))!;
    try {
      await redis.halt();
      const started = performance.now();
      await expect(locks.acquire(ORG)).rejects.toThrow();
      const took = performance.now() - started;
      console.info(`acquire with Redis down rejected after ${Math.round(took)} ms`);
      expect(took).toBeLessThan(5_000);
      await held.release();
      expect(log.lines).toContainEqual({
        level: 'warn',
        message: `build lock of organization ${ORG} not released; it expires within 1 s`,
        fields: expect.objectContaining({ organizationId: ORG }),
      });
    } finally {
      await redis.resume();
    }
    // The lock held before the outage was written to the append-only file; it expires by itself.
    await eventually(async () => expect(await locks.acquire(ORG)).toBeDefined(), 15_000);
    await close();
  });
});
