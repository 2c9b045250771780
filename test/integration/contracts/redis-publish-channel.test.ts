// The PublishChannel contract (test/contracts/publish-channel.ts) against RedisPublishChannel on a
// real redis-server, with a second channel on the same server as another process would open it;
// then what only a networked channel has to promise: Redis going away must not hang a build, and
// the subscription comes back by itself when Redis does.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisPublishChannel } from '../../../snapshot/redis-channel.ts';
import { publishChannelContract } from '../../contracts/publish-channel.ts';
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

const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';

/** Channels of one test, on a pub/sub channel of its own, all closed after it. */
function channels() {
  const name = `marquee:test:${randomUUID()}`;
  const opened: RedisPublishChannel[] = [];
  const open = (log = new RecordingLog()) => {
    const channel = new RedisPublishChannel(redis.url, { log, name });
    opened.push(channel);
    return channel;
  };
  return { open, close: () => Promise.all(opened.map((channel) => channel.close())) };
}

publishChannelContract('RedisPublishChannel', {
  setup() {
    const { open, close } = channels();
    return { channel: open(), other: () => open(), close };
  },
  teardown: (harness) => harness.close().then(() => undefined),
  capabilities: ['other'],
});

describe('RedisPublishChannel beyond the contract', () => {
  it("reports a throwing listener's error to the log, with the organization", async () => {
    const { open, close } = channels();
    const log = new RecordingLog();
    const channel = open(log);
    const failure = new Error('listener broke');
    channel.subscribe(() => {
      throw failure;
    });
    await channel.announce(ORG);
    await eventually(() => expect(log.lines).toEqual([{ level: 'error', message: 'publish listener failed', fields: { organizationId: ORG, err: failure } }]));
    await close();
  });

  it('does not hang announce while Redis is down, and hears announcements again once Redis is back', async () => {
    const { open, close } = channels();
    const log = new RecordingLog();
    const builder = open(log);
    const gateway = open();
    const heard: string[] = [];
    gateway.subscribe((organizationId) => heard.push(organizationId));
    // The gateway's subscription is in force once it hears an announcement.
    await eventually(async () => {
      await builder.announce(ORG);
      expect(heard).toContain(ORG);
    });
    const epochBefore = gateway.deliveryEpoch;
    expect(epochBefore).toBeDefined();
    try {
      await redis.halt();
      // A gap in delivery: the gateway is told announcements may not arrive.
      await eventually(() => expect(gateway.deliveryEpoch).toBeUndefined());
      const started = performance.now();
      await builder.announce('during-outage');
      const took = performance.now() - started;
      console.info(`announce with Redis down resolved after ${Math.round(took)} ms`);
      expect(took).toBeLessThan(5_000);
      expect(log.lines).toContainEqual({
        level: 'warn',
        message: 'publish announcement for organization during-outage not sent; gateways see the new pointer within a second by polling',
        fields: expect.objectContaining({ organizationId: 'during-outage' }),
      });
    } finally {
      await redis.resume();
    }
    heard.length = 0;
    // Neither side subscribes again: the subscriber connection resubscribes after reconnecting.
    await eventually(async () => {
      await builder.announce('after-outage');
      expect(heard).toContain('after-outage');
    }, 15_000);
    expect(heard).not.toContain('during-outage');
    // Delivery resumed after a gap: a new epoch, so gateways re-read what they read before it.
    expect(gateway.deliveryEpoch).toBeDefined();
    expect(gateway.deliveryEpoch).not.toBe(epochBefore);
    expect(log.lines).toContainEqual({ level: 'info', message: 'Redis publish channel connection restored', fields: expect.anything() });
    await close();
  });
});
