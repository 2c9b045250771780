// The gateway with its keys and per-key counts in Redis (gateway/access/redis-access.ts), on a
// real redis-server and real gateways (createGateway on loopback): keys written by the CLI's
// store, one script call per turn of the event loop whatever it carries, limits shared by several
// gateways and exact under concurrent requests, 403s that use no quota; what happens while Redis
// is down (killed, or stopped answering) and when it is back, with a batch in flight when it dies
// and with one key of a batch that Redis cannot count. Every answer, the 503 of a key that cannot
// be judged included, is checked against the published contract by the harness.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedisAccess, openRedisKeyStore, type RedisAccess } from '../../../gateway/access/redis-access.ts';
import type { KeyVerdict } from '../../../gateway/access/key-verdicts.ts';
import type { KeyStore } from '../../../records/keys/key-store.ts';
import { hashSecret } from '../../../records/keys/format.ts';
import { publishSnapshot } from '../../../builder/publish.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { eventually } from '../../contracts/harness.ts';
import { API, type GatewayHarness, publishFixture, type Reply, startHarness } from '../../support/gateway-fixtures.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const SUSPENDED_ORG = '11111111-1111-4111-8111-111111111111';
const SITE = 'https://site.example';
const LIMIT = 5;
const ORGANIZATION = `${API}/organization`;

let redis: TestRedis;
const snapshots = new MemoryStore();
let organizationId: string;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  redis = await startRedis();
  const fixture = new PlatformFixture();
  fixture.event({ slug: 'summit', startsAt: '2026-05-01T07:00:00Z', endsAt: '2026-05-01T16:00:00Z' });
  organizationId = fixture.organization.id;
  await publishFixture(snapshots, fixture);
  await publishSnapshot(snapshots, {
    organizationId: SUSPENDED_ORG,
    organizationSlug: 'suspended',
    state: 'suspended',
    resources: [],
    slugs: {},
    trigger: 'manual',
    now: new Date('2026-01-01T00:00:00Z'),
  });
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await redis?.stop();
});

interface RedisGateway {
  harness: GatewayHarness;
  access: RedisAccess;
  log: RecordingLog;
  get(key: string, headers?: Record<string, string>): Promise<Reply>;
}

/** A gateway judging keys through Redis in `namespace`, with the per-key limit LIMIT. */
async function redisGateway(namespace: string, options: { commandTimeoutMs?: number } = {}): Promise<RedisGateway> {
  const log = new RecordingLog();
  const access = await openRedisAccess({ url: redis.url, log, namespace, limit: LIMIT, windowSeconds: 60, ...options });
  const harness = await startHarness({ store: snapshots, deps: { keys: access.keys, keyVerdicts: access.verdicts, log } });
  closers.push(async () => {
    await harness.close();
    await access.close();
  });
  return {
    harness,
    access,
    log,
    get: (key, headers = {}) => harness.call(ORGANIZATION, { key, headers }),
  };
}

/** The CLI's view: the key store on a connection of its own. */
async function cliStore(namespace: string): Promise<KeyStore> {
  const opened = await openRedisKeyStore({ url: redis.url, namespace });
  closers.push(opened.close);
  return opened.keys;
}

async function createKey(cli: KeyStore, options: { organizationId?: string; origins?: string[] } = {}): Promise<{ id: string; secret: string }> {
  const { record, secret } = await cli.create({ organizationId: options.organizationId ?? organizationId, label: null, origins: options.origins ?? [] });
  return { id: record.id, secret };
}

function expectUnavailable(reply: Reply): void {
  expect(reply.status).toBe(503);
  expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(reply.headers['retry-after']).toBe('5');
  expect(reply.headers['cache-control']).toBe('no-store');
  expect(reply.headers['access-control-allow-origin']).toBe('*');
  expect(reply.json()).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' });
}

const remaining = (reply: Reply): number => Number(/r=(\d+)/.exec(reply.headers.ratelimit ?? '')?.[1]);
const bucketOf = (namespace: string, secret: string): string => `${namespace}key-rate:{${hashSecret(secret)}}`;
/** Each verdict's count, as access control reads it: allowed (with what remains) or refused. */
const counts = (verdicts: KeyVerdict[]): string[] => verdicts.map(({ rate }) => (rate === undefined ? 'not counted' : rate.allowed ? `r=${rate.remaining}` : 'refused'));

describe('keys and limits in Redis', () => {
  const namespace = `test-${randomUUID()}:`;
  let one: RedisGateway;
  let two: RedisGateway;
  let cli: KeyStore;
  let monitor: Redis;

  beforeAll(async () => {
    one = await redisGateway(namespace);
    two = await redisGateway(namespace);
    cli = await cliStore(namespace);
    monitor = new Redis(redis.url);
    closers.push(async () => monitor.disconnect());
  });

  it('serves a key created through the CLI, refuses unknown keys, and sees a revocation in every gateway from the next request on', async () => {
    const key = await createKey(cli);
    for (const gateway of [one, two]) {
      const reply = await gateway.get(key.secret);
      expect(reply.status).toBe(200);
      expect(reply.json()).toMatchObject({ id: organizationId });
      expect(reply.headers['ratelimit-policy']).toBe(`"default";q=${LIMIT};w=60`);
    }
    expect((await one.get('mqk_0000000000000000000000000000000sQHLi')).status).toBe(401);
    await cli.revoke(key.id, new Date());
    for (const gateway of [one, two]) expect((await gateway.get(key.secret)).json()).toMatchObject({ errorCode: 'API_KEY_INVALID' });
  });

  it('asks Redis once per request: one script call, nothing else', async () => {
    const key = await createKey(cli);
    await one.get(key.secret);
    const seen = await watchCommands(redis.url, async () => {
      for (let i = 0; i < 3; i++) expect((await one.get(key.secret)).status).toBe(200);
    });
    expect(seen.map((command) => command[0]?.toLowerCase())).toEqual(['evalsha', 'evalsha', 'evalsha']);
  });

  it('judges the verdicts of one turn in one script call, each key counted as one request after another would be', async () => {
    const keys = [await createKey(cli), await createKey(cli), await createKey(cli)];
    const revoked = await createKey(cli);
    await cli.revoke(revoked.id, new Date());
    await one.get(keys[0]!.secret);
    const now = one.harness.clock.now;
    let verdicts: KeyVerdict[] = [];
    const seen = await watchCommands(redis.url, async () => {
      // Ten requests of each key, the second five a millisecond later, and two of a revoked key and of an unknown one.
      const asked = Array.from({ length: 30 }, (_, i) => one.access.verdicts.verdict(hashSecret(keys[i % 3]!.secret), now + (i < 15 ? 0 : 1)));
      for (const secret of [revoked.secret, revoked.secret, 'mqk_0000000000000000000000000000000sQHLi']) asked.push(one.access.verdicts.verdict(hashSecret(secret), now));
      verdicts = await Promise.all(asked);
    });
    expect(seen.map((command) => command[0]?.toLowerCase())).toEqual(['evalsha']);
    // The first key had one request counted before.
    const expected = [
      ['r=3', 'r=2', 'r=1', 'r=0', 'refused', 'refused', 'refused', 'refused', 'refused', 'refused'],
      ['r=4', 'r=3', 'r=2', 'r=1', 'r=0', 'refused', 'refused', 'refused', 'refused', 'refused'],
      ['r=4', 'r=3', 'r=2', 'r=1', 'r=0', 'refused', 'refused', 'refused', 'refused', 'refused'],
    ];
    for (const k of [0, 1, 2]) expect(counts(verdicts.slice(0, 30).filter((_, i) => i % 3 === k))).toEqual(expected[k]);
    expect(verdicts.slice(30, 32).map((verdict) => [verdict.record?.id, verdict.rate])).toEqual([
      [revoked.id, undefined],
      [revoked.id, undefined],
    ]);
    expect(verdicts[32]).toEqual({ record: undefined });
    for (const key of keys) expect(await monitor.hget(bucketOf(namespace, key.secret), 'total')).toBe(String(LIMIT));
  });

  it('accepts exactly the limit of many requests of one key sent to both gateways at once', async () => {
    const key = await createKey(cli);
    // One instant on both (a test above moved one gateway's clock a window on).
    two.harness.clock.now = one.harness.clock.now;
    const pools = [one, two].map((gateway) => new Pool(gateway.harness.origin, { connections: 16 }));
    try {
      const statuses = await Promise.all(
        Array.from({ length: 64 }, async (_, i) => {
          const reply = await pools[i % 2]!.request({ path: ORGANIZATION, method: 'GET', headers: { 'x-api-key': key.secret } });
          await reply.body.dump();
          return { status: reply.statusCode, remaining: Number(/r=(\d+)/.exec(String(reply.headers.ratelimit))?.[1]) };
        }),
      );
      const ok = statuses.filter(({ status }) => status === 200);
      expect(ok.map(({ remaining }) => remaining).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
      expect(statuses.filter(({ status }) => status === 429)).toHaveLength(64 - LIMIT);
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
  });

  it('shares one limit among the gateways', async () => {
    const key = await createKey(cli);
    const replies = [];
    for (let i = 0; i < LIMIT; i++) replies.push(await (i % 2 ? two : one).get(key.secret));
    expect(replies.map((reply) => reply.status)).toEqual(Array(LIMIT).fill(200));
    expect(replies.map(remaining)).toEqual([4, 3, 2, 1, 0]);
    for (const gateway of [one, two]) {
      const refused = await gateway.get(key.secret);
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('60');
    }
    // A window later, in either gateway's clock, the slots are free again.
    one.harness.clock.now += 60_000;
    expect(remaining(await one.get(key.secret))).toBe(4);
  });

  it('spends no quota on requests refused with 403 (origin, suspended organization)', async () => {
    const browser = await createKey(cli, { origins: [SITE] });
    for (let i = 0; i < LIMIT + 2; i++) {
      const refused = await one.get(browser.secret, { Origin: 'https://evil.example' });
      expect(refused.json()).toMatchObject({ errorCode: 'API_KEY_ORIGIN_NOT_ALLOWED' });
      expect(refused.headers.ratelimit).toBeUndefined();
    }
    expect(remaining(await two.get(browser.secret, { Origin: SITE }))).toBe(LIMIT - 1);

    const suspended = await createKey(cli, { organizationId: SUSPENDED_ORG });
    for (let i = 0; i < LIMIT + 2; i++) expect((await one.get(suspended.secret)).json()).toMatchObject({ errorCode: 'ORGANIZATION_SUSPENDED' });
    const bucket = `${namespace}key-rate:{${hashSecret(suspended.secret)}}`;
    expect(await monitor.hget(bucket, 'total')).toBe('0');
  });

  it('lets idle buckets expire a window after their last use', async () => {
    const key = await createKey(cli);
    await one.get(key.secret);
    const ttl = await monitor.pttl(`${namespace}key-rate:{${hashSecret(key.secret)}}`);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(61_000);
  });

  it('logs nothing while Redis answers', () => {
    expect([...one.log.lines, ...two.log.lines]).toEqual([]);
  });
});

describe('while Redis is down', () => {
  const namespace = `test-${randomUUID()}:`;
  let gateway: RedisGateway;
  let cli: KeyStore;
  /** Judged valid by Redis before it went down. */
  let seen: { id: string; secret: string };
  let alsoSeen: { id: string; secret: string };
  /** Judged revoked by Redis before it went down. */
  let revoked: { id: string; secret: string };
  /** Never presented before Redis went down. */
  let unseen: { id: string; secret: string };

  beforeAll(async () => {
    gateway = await redisGateway(namespace);
    cli = await cliStore(namespace);
    [seen, alsoSeen, revoked, unseen] = [await createKey(cli), await createKey(cli), await createKey(cli), await createKey(cli)];
    // The CLI runs as a process of its own; the next one opens a connection of its own.
    for (const key of [seen, alsoSeen, revoked]) expect((await gateway.get(key.secret)).status).toBe(200);
    await cli.revoke(revoked.id, new Date());
    expect((await gateway.get(revoked.secret)).status).toBe(401);
  });

  it('answers keys it saw recently, at once, counted in this process; 503 for others; 401 for a revoked one; then back to Redis', async () => {
    await redis.halt();
    try {
      const started = performance.now();
      const first = await gateway.get(seen.secret);
      const elapsedMs = performance.now() - started;
      expect(first.status).toBe(200);
      expect(first.json()).toMatchObject({ id: organizationId });
      // Fails fast: no waiting for a Redis that is not there (typically a few ms).
      expect(elapsedMs).toBeLessThan(500);

      expectUnavailable(await gateway.get(unseen.secret));
      expect((await gateway.get(revoked.secret)).json()).toMatchObject({ errorCode: 'API_KEY_INVALID' });
      // A malformed key needs no store: still 401.
      expect((await gateway.get('mqk_short')).status).toBe(401);

      // The same limit, counted here while degraded: the first request above and four more.
      const counted = [];
      for (let i = 1; i < LIMIT; i++) counted.push(await gateway.get(seen.secret));
      expect(counted.map(remaining)).toEqual([3, 2, 1, 0]);
      expect((await gateway.get(seen.secret)).status).toBe(429);

      // Vouched for 5 minutes after Redis last confirmed the key, no longer.
      gateway.harness.clock.now += 5 * 60_000 + 1_000;
      expectUnavailable(await gateway.get(alsoSeen.secret));
      expect((await gateway.get(revoked.secret)).status).toBe(401);

      // One line for the outage, and one for the 503s it caused (with a request id to find them by).
      expect(gateway.log.lines.map(({ level, message }) => ({ level, message }))).toEqual([
        { level: 'warn', message: expect.stringMatching(/^Redis cannot be reached/) },
        { level: 'warn', message: 'request answered 503: a backend cannot be reached' },
      ]);
    } finally {
      await redis.resume();
    }

    // Back to Redis without a restart: a key never seen is judged again, a revocation applies.
    await eventually(async () => expect((await gateway.get(unseen.secret)).status).toBe(200), 15_000);
    expect((await gateway.get(alsoSeen.secret)).status).toBe(200);
    cli = await cliStore(namespace);
    await cli.revoke(alsoSeen.id, new Date());
    expect((await gateway.get(alsoSeen.secret)).status).toBe(401);
    expect(gateway.log.lines.map(({ level }) => level)).toEqual(['warn', 'warn', 'info']);
    expect(gateway.log.lines[2]?.message).toMatch(/^Redis is reachable again/);
  });

  it('does the same for a Redis that stops answering: one request waits for the command timeout, the others not at all', async () => {
    cli = await cliStore(namespace);
    const slow = await redisGateway(namespace, { commandTimeoutMs: 200 });
    const [key, never] = [await createKey(cli), await createKey(cli)];
    expect((await slow.get(key.secret)).status).toBe(200);
    const pid = await redisPid();
    process.kill(pid, 'SIGSTOP');
    try {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        expect((await slow.get(key.secret)).status).toBe(200);
        times.push(performance.now() - started);
      }
      expectUnavailable(await slow.get(never.secret));
      expect(times[0]).toBeLessThan(1_000);
      expect(Math.max(...times.slice(1))).toBeLessThan(100);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await eventually(
      () =>
        expect(slow.log.lines.map(({ level, message }) => `${level} ${message.split(':')[0]}`)).toEqual([
          'warn Redis cannot be reached',
          'warn request answered 503',
          'info Redis is reachable again',
        ]),
      10_000,
    );
  });
});

describe('a batch that Redis answers only in part, or not at all', () => {
  it("answers the other keys of a turn from Redis when one key's count fails, and that one from memory, counted once", async () => {
    const namespace = `test-${randomUUID()}:`;
    const gateway = await redisGateway(namespace);
    const cli = await cliStore(namespace);
    const [good, broken] = [await createKey(cli), await createKey(cli)];
    for (const key of [good, broken]) expect((await gateway.get(key.secret)).status).toBe(200);
    // A bucket Redis cannot count in: not a hash.
    const writer = new Redis(redis.url);
    // Quiet while the next test kills Redis: ioredis prints the errors of a client without a listener.
    writer.on('error', () => {});
    closers.push(async () => writer.disconnect());
    await writer.del(bucketOf(namespace, broken.secret));
    await writer.set(bucketOf(namespace, broken.secret), 'not a hash');
    const now = gateway.harness.clock.now;
    const [fromRedis, fromMemory] = await Promise.all([good, broken].map((key) => gateway.access.verdicts.verdict(hashSecret(key.secret), now)));
    expect(counts([fromRedis!])).toEqual([`r=${LIMIT - 2}`]);
    expect(await writer.hget(bucketOf(namespace, good.secret), 'total')).toBe('2');
    // The key Redis judged a moment ago, vouched for from memory and counted here.
    expect(fromMemory).toMatchObject({ record: { id: broken.id } });
    expect(fromMemory!.rate).toBeUndefined();
    expect(gateway.log.lines.map(({ level, message }) => `${level} ${message.split(':')[0]}`)).toEqual(['warn Redis cannot be reached']);
    expect(String(gateway.log.lines[0]?.fields.err)).toMatch(/WRONGTYPE/);
    // Redis still answers: the next request's probe finds it, and the good key is counted there again.
    await eventually(async () => {
      await gateway.get(good.secret);
      expect(gateway.log.lines.at(-1)?.message).toMatch(/^Redis is reachable again/);
    });
    const counted = Number(await writer.hget(bucketOf(namespace, good.secret), 'total'));
    expect(counts([await gateway.access.verdicts.verdict(hashSecret(good.secret), now)])).toEqual([`r=${LIMIT - counted - 1}`]);
  });

  it('answers every request of a batch in flight when Redis dies under it, at once and without it, and counts in Redis again once it is back', async () => {
    const namespace = `test-${randomUUID()}:`;
    // A deadline far away: the batch is answered because its connection is gone, not because time ran out.
    const gateway = await redisGateway(namespace, { commandTimeoutMs: 30_000 });
    const cli = await cliStore(namespace);
    const [seen, unseen] = [await createKey(cli), await createKey(cli)];
    expect(remaining(await gateway.get(seen.secret))).toBe(LIMIT - 1);
    const pid = await redisPid();
    process.kill(pid, 'SIGSTOP');
    let verdicts: KeyVerdict[];
    const started = performance.now();
    try {
      const now = gateway.harness.clock.now;
      const asked = Promise.all([seen, seen, unseen].map((key) => gateway.access.verdicts.verdict(hashSecret(key.secret), now)));
      // The batch is written from a setImmediate of the turn that asked; this one runs after it: the batch is in flight.
      await new Promise((resolve) => setImmediate(resolve));
      await redis.halt();
      verdicts = await asked;
    } finally {
      await redis.resume();
    }
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(verdicts.map(({ record, rate, retryAfterSeconds }) => [record?.id, rate, retryAfterSeconds])).toEqual([
      [seen.id, undefined, undefined],
      [seen.id, undefined, undefined],
      [undefined, undefined, 5],
    ]);
    // Back to Redis: the unseen key is judged there, and the seen key's count in Redis holds only the request Redis answered.
    await eventually(async () => expect((await gateway.get(unseen.secret)).status).toBe(200), 15_000);
    expect(remaining(await gateway.get(seen.secret))).toBe(LIMIT - 2);
  });
});

describe('while the gateway itself stalls', () => {
  const namespace = `test-${randomUUID()}:`;

  it('reads a reply that arrived during the stall before calling Redis unreachable', async () => {
    const stalled = await redisGateway(namespace, { commandTimeoutMs: 200 });
    const key = await createKey(await cliStore(namespace));
    const verdict = stalled.access.verdicts.verdict(hashSecret(key.secret), Date.now());
    // The verdicts write their batch from a setImmediate; this one runs right after it, before the
    // loop reads any socket, and stalls for five times the timeout (a long garbage collection, a
    // paused process): Redis answers meanwhile, and its reply waits unread.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        const until = performance.now() + 1_000;
        while (performance.now() < until);
        resolve();
      }),
    );
    expect((await verdict).record?.id).toBe(key.id);
    expect(stalled.log.lines).toEqual([]);
    expect((await stalled.get(key.secret)).status).toBe(200);
  });
});

/**
 * The commands clients sent while `act` ran, as MONITOR shows them (without those a script
 * issued, and without the marker that tells when MONITOR has shown everything).
 */
async function watchCommands(url: string, act: () => Promise<void>): Promise<string[][]> {
  // Connected before MONITOR starts, so its handshake is not among what is seen.
  const other = new Redis(url);
  await other.ping();
  const watcher = await new Redis(url).monitor();
  const marker = `end-${randomUUID()}`;
  const seen: string[][] = [];
  let markerSeen: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    markerSeen = resolve;
  });
  watcher.on('monitor', (_time: string, args: string[], source: string) => {
    if (args[1] === marker) markerSeen();
    else if (source !== 'lua') seen.push(args);
  });
  try {
    await act();
    await other.echo(marker);
    await done;
  } finally {
    other.disconnect();
    watcher.disconnect();
  }
  return seen;
}

async function redisPid(): Promise<number> {
  const client = new Redis(redis.url);
  try {
    return Number(/^process_id:(\d+)/m.exec(await client.info('server'))?.[1]);
  } finally {
    client.disconnect();
  }
}
