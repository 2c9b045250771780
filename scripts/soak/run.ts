// The soak's run: requests at a steady rate, open-loop (each is sent at its scheduled instant
// whether or not earlier ones were answered, so a slow server shows as latency instead of a lower
// rate), alternating between the gateways, each gateway through its own undici Pool; meanwhile
// the platform changes through SQL, keys are created and revoked, revoked keys are tried on
// purpose, and every process's memory is sampled. Latency runs from the scheduled instant to the
// end of the body. Every answer is judged by traffic.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { KeyStore } from '../../records/keys/key-store.ts';
import { createOne, createWithCli, type KeyRing, revokeInStore, revokeWithCli } from './keys.ts';
import { cpuSeconds, openDescriptors, RssCurve } from './measures.ts';
import { changePlatform, pick, type SoakPlatform } from './platform.ts';
import { type Answer, chooseRequest, judge, type SoakRequest, type Verdict } from './traffic.ts';
import type { SoakWorld } from './world.ts';

interface RunOptions {
  /** Requests per second, over both gateways. */
  rate: number;
  seconds: number;
  /** Aborted on Ctrl-C: the run stops early (and fails). */
  signal: AbortSignal;
}

export interface Tally {
  sent: number;
  /** By status, or 'no answer'. */
  statuses: Map<string, number>;
  verdicts: Map<Verdict, number>;
  /** The first failures in full. */
  failures: string[];
  /** Milliseconds from the scheduled instant to the end of the body, per minute of the run. */
  latencies: number[][];
  perGateway: number[];
  perRoute: Map<string, number>;
  probes: number;
  /** Requests not sent because too many were in flight: the rate was not sustained. */
  notSent: number;
  maxInFlight: number;
  /** How late the scheduler sent a request, at worst (ms): the generator's own health. */
  maxLagMs: number;
  changes: Map<string, number>;
  /** Background steps that failed (a change, a key created or revoked). */
  stepErrors: string[];
  rss: RssCurve;
  /** CPU used during the run, as a share of one core, per process (and the soak itself). */
  cpu: Map<string, number>;
  /** s3rver's open file descriptors when the run started and ended: the rig's own health (it once leaked one per 304). */
  bucketDescriptors: { start: number | undefined; end: number | undefined };
  seconds: number;
}

/** How often each background activity runs. */
const CHANGE_EVERY_MS = 2_000;
const KEY_CHURN_EVERY_MS = 2_000;
/**
 * One probe a second with a revoked key, alternating gateways: 30 a minute on each. Every gateway
 * counts invalid keys per client address (60 a minute, then 429 instead of 401, docs/api.md §5.6)
 * and all of the soak comes from 127.0.0.1: this leaves room for the 401s of requests already in
 * flight when their key was revoked.
 */
const PROBE_EVERY_MS = 1_000;
const RSS_EVERY_MS = 10_000;
/** One change and one key creation and revocation in this many go through the real CLI. */
const CLI_EVERY = 10;
const TICK_MS = 5;
const CONNECTIONS_PER_GATEWAY = 16;
const REQUEST_TIMEOUT_MS = 30_000;
/** Answers still awaited after the run get this long. */
const DRAIN_MS = 30_000;
const SHOWN_FAILURES = 20;
/** The soak's own process and the bucket's in Tally.cpu. */
export const LOAD_GENERATOR = 'soak (load generator)';
export const BUCKET = 'bucket (s3rver)';
/** Entity tags remembered for If-None-Match (per organization and path); forgotten all at once when full. */
const MAX_TAGS = 50_000;
/** One request in this many that has a remembered tag sends it. */
const REVALIDATE_EVERY = 5;

export async function runSoak(world: SoakWorld, platform: SoakPlatform, ring: KeyRing, options: RunOptions): Promise<Tally> {
  const processes = [world.builder, ...world.gateways];
  const tally = emptyTally(
    world.gateways.length,
    new RssCurve(
      processes.map((process) => process.name),
      processes.map((process) => process.pid),
    ),
  );
  const pools = world.gateways.map(
    (gateway) => new Pool(gateway.url, { connections: CONNECTIONS_PER_GATEWAY, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS }),
  );
  const store = await world.openKeys();
  const ended = new AbortController();
  const stopEarly = () => ended.abort();
  options.signal.addEventListener('abort', stopEarly);
  const cpu = cpuMeter([...processes, { name: BUCKET, pid: world.bucketPid }]);
  tally.bucketDescriptors.start = openDescriptors(world.bucketPid);
  const startedAt = performance.now();
  // Ten seconds' worth of requests in flight: the servers are not keeping up, and the run says so.
  const client = new Client(platform, pools, tally, startedAt, options.rate * 10);
  try {
    const background = [
      every(CHANGE_EVERY_MS, ended.signal, tally, async (serial) => count(tally.changes, await changePlatform(world.db, platform, serial))),
      every(KEY_CHURN_EVERY_MS, ended.signal, tally, (serial) => churnKeys(world, store.keys, platform, ring, serial)),
      every(PROBE_EVERY_MS, ended.signal, tally, async (serial) => {
        const key = pick(ring.revoked);
        if (key) client.send({ ...chooseRequest(platform, key), probe: true }, serial % pools.length, performance.now());
      }),
      every(RSS_EVERY_MS, ended.signal, tally, async () => tally.rss.sample(Math.round((performance.now() - startedAt) / 1000))),
    ];
    await schedule(options, ended.signal, startedAt, (index, scheduledAt) => client.send(chooseRequest(platform, ring.take()), index % pools.length, scheduledAt));
    ended.abort();
    await Promise.all(background);
    tally.seconds = (performance.now() - startedAt) / 1000;
    if (tally.rss.samples.at(-1)?.at !== Math.round(tally.seconds)) tally.rss.sample(Math.round(tally.seconds));
    tally.cpu = cpu(tally.seconds);
    tally.bucketDescriptors.end = openDescriptors(world.bucketPid);
    await client.drain(DRAIN_MS);
  } finally {
    options.signal.removeEventListener('abort', stopEarly);
    ended.abort();
    await Promise.all(pools.map((pool) => pool.destroy()));
    await store.close();
  }
  return tally;
}

function emptyTally(gateways: number, rss: RssCurve): Tally {
  return {
    sent: 0,
    statuses: new Map(),
    verdicts: new Map(),
    failures: [],
    latencies: [],
    perGateway: Array.from({ length: gateways }, () => 0),
    perRoute: new Map(),
    probes: 0,
    notSent: 0,
    maxInFlight: 0,
    maxLagMs: 0,
    changes: new Map(),
    stepErrors: [],
    rss,
    cpu: new Map(),
    bucketDescriptors: { start: undefined, end: undefined },
    seconds: 0,
  };
}

/** Starts counting the processes' CPU time (and this process's); the returned function gives each one's share of a core since. */
function cpuMeter(processes: Array<{ name: string; pid: number }>): (seconds: number) => Map<string, number> {
  const before = processes.map((process) => cpuSeconds(process.pid));
  const ownBefore = process.cpuUsage();
  return (seconds) => {
    const shares = new Map<string, number>();
    for (const [index, { name, pid }] of processes.entries()) {
      const [from, to] = [before[index], cpuSeconds(pid)];
      if (from !== undefined && to !== undefined) shares.set(name, (to - from) / seconds);
    }
    const own = process.cpuUsage(ownBefore);
    shares.set(LOAD_GENERATOR, (own.user + own.system) / 1e6 / seconds);
    return shares;
  };
}

/** Calls `send` at `rate` per second from `startedAt` until the time is up or the signal aborts. */
async function schedule(options: RunOptions, signal: AbortSignal, startedAt: number, send: (index: number, scheduledAt: number) => void): Promise<void> {
  const total = Math.floor(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  let index = 0;
  while (index < total && !signal.aborted) {
    const due = Math.min(total, Math.floor((performance.now() - startedAt) / interval) + 1);
    for (; index < due; index++) send(index, startedAt + index * interval);
    await sleep(TICK_MS);
  }
}

/** Runs `step` every `ms` (one at a time, never overlapping) until the signal aborts; a failing step is recorded, not fatal. */
async function every(ms: number, signal: AbortSignal, tally: Tally, step: (serial: number) => Promise<unknown>): Promise<void> {
  for (let serial = 0; !signal.aborted; serial++) {
    const next = performance.now() + ms;
    try {
      await step(serial);
    } catch (error) {
      tally.stepErrors.push((error as Error).message);
    }
    await sleep(Math.max(0, next - performance.now()), undefined, { signal }).catch(() => {});
  }
}

/** One key created (for a random organization) and one revoked; one in CLI_EVERY of each through `marquee keys`. */
async function churnKeys(world: SoakWorld, store: KeyStore, platform: SoakPlatform, ring: KeyRing, serial: number): Promise<void> {
  const ids = platform.organizations.map((organization) => organization.id);
  const organization = Math.floor(Math.random() * ids.length);
  const viaCli = serial % CLI_EVERY === CLI_EVERY - 1;
  ring.add(viaCli ? await createWithCli(world.cli, ids, organization) : await createOne(store, ids, organization));
  await ring.revokeOne(viaCli ? (id) => revokeWithCli(world.cli, id) : revokeInStore(store));
}

function count<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Sends requests without waiting for them, judges and records each answer. */
class Client {
  private inFlight = 0;
  private readonly tags = new Map<string, string>();
  private idle: (() => void) | undefined;

  constructor(
    private readonly platform: SoakPlatform,
    private readonly pools: Pool[],
    private readonly tally: Tally,
    private readonly startedAt: number,
    private readonly maxInFlight: number,
  ) {}

  send(request: SoakRequest, gateway: number, scheduledAt: number): void {
    const sentAt = performance.now();
    this.tally.maxLagMs = Math.max(this.tally.maxLagMs, sentAt - scheduledAt);
    if (this.inFlight >= this.maxInFlight) {
      this.tally.notSent += 1;
      return;
    }
    const tagKey = `${request.organization.index} ${request.path}`;
    const tag = this.tags.get(tagKey);
    if (tag !== undefined && Math.random() * REVALIDATE_EVERY < 1) request.ifNoneMatch = tag;
    this.inFlight += 1;
    this.tally.maxInFlight = Math.max(this.tally.maxInFlight, this.inFlight);
    this.tally.sent += 1;
    this.tally.perGateway[gateway]! += 1;
    if (request.probe) this.tally.probes += 1;
    else count(this.tally.perRoute, request.route);
    void this.exchange(request, gateway)
      .then((answer) => {
        this.record(request, gateway, scheduledAt, sentAt, answer);
        if (!(answer instanceof Error) && answer.status === 200 && answer.etag !== undefined) this.remember(tagKey, answer.etag);
      })
      // A fault of the soak itself: counted, never an unhandled rejection that would skip the clean-up.
      .catch((error: Error) => this.fail('no answer', `judging ${request.path}: ${error.stack ?? error.message}`))
      .finally(() => {
        this.inFlight -= 1;
        if (this.inFlight === 0) this.idle?.();
      });
  }

  /** Waits for the answers still awaited, at most `ms`; the rest are failures. */
  async drain(ms: number): Promise<void> {
    if (this.inFlight === 0) return;
    const idle = new Promise<void>((resolve) => (this.idle = resolve));
    // Not ref'ed: a pending timer would keep the soak alive after its report.
    await Promise.race([idle, sleep(ms, undefined, { ref: false })]);
    if (this.inFlight > 0) this.fail('no answer', `${this.inFlight} requests still unanswered ${ms / 1000} s after the run`);
  }

  private async exchange(request: SoakRequest, gateway: number): Promise<Answer | Error> {
    // Both ways of sending a key (docs/api.md §5.2).
    const headers: Record<string, string> = Math.random() < 0.5 ? { 'x-api-key': request.key.secret } : { authorization: `Bearer ${request.key.secret}` };
    if (request.ifNoneMatch !== undefined) headers['if-none-match'] = request.ifNoneMatch;
    try {
      const response = await this.pools[gateway]!.request({ path: request.path, method: 'GET', headers });
      const body = await response.body.text();
      const etag = response.headers.etag;
      return { status: response.statusCode, etag: typeof etag === 'string' ? etag : undefined, body };
    } catch (error) {
      return error as Error;
    }
  }

  private record(request: SoakRequest, gateway: number, scheduledAt: number, sentAt: number, answer: Answer | Error): void {
    const minute = Math.floor((scheduledAt - this.startedAt) / 60_000);
    (this.tally.latencies[minute] ??= []).push(performance.now() - scheduledAt);
    const what = `${request.probe ? 'revoked-key probe ' : ''}GET ${request.path} via gateway ${gateway + 1} (key ${request.key.id} of ${request.organization.id})`;
    if (answer instanceof Error) {
      count(this.tally.statuses, 'no answer');
      this.fail('no answer', `${what}: ${answer.message}`);
      return;
    }
    count(this.tally.statuses, String(answer.status));
    const { verdict, detail } = judge(this.platform, request, answer, sentAt);
    if (verdict !== 'ok') this.fail(verdict, `${what} → ${answer.status}: ${detail ?? ''}`);
    else count(this.tally.verdicts, verdict);
  }

  private fail(verdict: Verdict, detail: string): void {
    count(this.tally.verdicts, verdict);
    if (this.tally.failures.length < SHOWN_FAILURES) this.tally.failures.push(`${verdict}: ${detail}`);
  }

  private remember(tagKey: string, etag: string): void {
    if (this.tags.size >= MAX_TAGS) this.tags.clear();
    this.tags.set(tagKey, etag);
  }
}
