// Gateway benchmark (`npm run bench:gateway`): the gateway against references that return the
// same bytes from memory — a minimal Express 5 app with one middleware (the goal's reference), the
// same app on a server making its requests with the app's prototypes as the gateway's does
// (`express-classes`: the gateway's own work alone), the app sending the gateway's headers too
// (`express-same`: the same response, byte for byte but the request id), and a bare node:http
// server — and against
// itself on the production backends (keys and the rate limit in Redis, snapshots in S3 read
// through a CDN: redis-server, s3rver and nginx, started here and stopped at the end), measured
// side by side with wrk on loopback (bench/load-generator.ts), then the gateway's RSS with 1,000 organizations'
// snapshots served; before the memory phase, the gateway's coded answers (bench/coded-answers.ts:
// bytes per answer identity / br / gzip, br answers' requests/s and CPU against identity ones, and
// `GET /organization` against nginx serving the same bytes as precompressed static files,
// bench/nginx-static.ts). Each server runs alone in a child process with the node flags
// bin/marquee runs `serve` with (bench/node-flags.ts) and loads only what it serves (modules are imported per role, so the gateway
// child holds no builder, fixture or load-generator code; the production one loads the wiring of
// `marquee serve`, bin/services.ts, as that command does); the load generator runs in a process of
// its own per measurement, so neither shares a heap or event loop with the orchestrating process. The
// servers' order rotates every round, so a noisy neighbour does not always hit the same one.
// Every run is bounded in time; only 127.0.0.1 is used. Not a timed test: it prints a table and
// medians. Both gateways run with Prometheus metrics on, in a registry with the default process
// metrics, as `marquee serve` and `marquee start` run them (every response also carries a
// request id, which is always on).
//
//   node --import tsx bench/gateway.ts [--rounds 5] [--seconds 5] [--only TEXT] [--profile DIR] [--gateway-flags '…'] [--load wrk|autocannon]
//
// --only TEXT: only the scenarios whose name contains TEXT (e.g. `events`; a pinned read needs its
// unpinned one, so `/organization` for either), and neither /changes nor the memory phase after
// them: with --profile, a profile of that request alone. `--only memory`: the memory phase alone;
// `--only coded`: the coded answers alone (no production backends).
// --profile DIR: the embedded gateway and minimal Express run with node's --cpu-prof and write
// their CPU profiles into DIR when they stop (the file names carry the pids the run prints;
// summarize one with bench/cpu-profile.ts). --gateway-flags: more node flags
// for the embedded gateway alone (in both phases), to try one against the same references.
// --load autocannon: the load generator of figures before 2026-11-28 (bench/load-generator.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileKeyStore } from '../records/keys/file-store.ts';
import type { KeyStore } from '../records/keys/key-store.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import type { PlatformFixture } from '../test/support/platform-fixture.ts';
import { machine } from './machine.ts';
import { cpuMicrosecondsOf, memoryOf } from './process-usage.ts';
import { compiled, SERVER_NODE_FLAGS } from './node-flags.ts';
import { applyLoad, CONNECTIONS, type Load, type LoadGenerator, loadGeneratorOf } from './load-generator.ts';
import { gatewayOwnHeaders, PIN_WINDOW_MS, productionMetrics, quiet, startEmbeddedGateway, UNREACHABLE_LIMIT } from './embedded-gateway.ts';

const API = '/api/integration/v1';
const ORIGIN = 'https://site.example';
const SELF = fileURLToPath(import.meta.url);
/** The production gateway's store: s3://<bucket>/PREFIX, read through `${cdn}/<bucket>/PREFIX`. */
const PREFIX = 'bench';
const PIN_HEADER = 'marquee-snapshot-id';

// ---------------------------------------------------------------------------------------------
// Child processes: one server each.

interface ServeConfig {
  storeDir: string;
  keyFile: string;
  /**
   * For the references: request URL → the bytes and tag the gateway answered with, and the
   * headers minimal Express sends with them when not only its own three (bench/gateway-ab.ts --same-headers).
   */
  bodies: Record<string, { body: string; etag: string; headers?: Record<string, string> }>;
}

/**
 * `express-same`: minimal Express sending the gateway's whole answer, its headers too (CORS, request
 * id, rate limit, snapshot id): the same response on both sides, so that what is left between it
 * and the gateway is the gateway's own work (autocannon, which parses headers in JavaScript, once
 * paid more for the gateway's; bench/load-generator.ts). `express-classes`: the same minimal Express app on a server that makes its requests and responses
 * with the app's prototypes, as the gateway's does (runtime/express-messages.ts): what the gateway's
 * own work costs, apart from what it saves on every Express request (on Node 20, most of Express's cost).
 */
type ServerKind = 'gateway' | 'production' | 'express' | 'express-classes' | 'express-same' | 'bare';

async function serve(kind: ServerKind, configPath: string): Promise<void> {
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as ServeConfig;
  const bodies: Bodies = new Map(Object.entries(config.bodies).map(([url, { body, etag, headers }]) => [url, { bytes: Buffer.from(body), etag, headers }]));
  const port =
    kind === 'gateway'
      ? await embeddedGateway(config)
      : kind === 'production'
        ? await productionGateway()
        : kind === 'express' || kind === 'express-classes' || kind === 'express-same'
          ? await expressReference(bodies, kind === 'express-classes')
          : await bareReference(bodies);
  // Stopped with SIGTERM: exiting (rather than dying of the signal) lets --cpu-prof write its profile.
  process.once('SIGTERM', () => process.exit(0));
  process.stdout.write(`${JSON.stringify({ port })}\n`);
}

/** The embedded gateway (bench/embedded-gateway.ts), counting usage beside the key file as `serve` does in MARQUEE_HOME. */
async function embeddedGateway(config: ServeConfig): Promise<number> {
  return (await startEmbeddedGateway({ storeDir: config.storeDir, keyFile: config.keyFile, usageHome: dirname(config.keyFile) })).port;
}

/**
 * The compiled product wired as `marquee serve` wires it from its environment (SNAPSHOT_STORE,
 * S3_ENDPOINT, SNAPSHOT_CDN_URL, REDIS_URL): snapshots from S3 through the CDN, the publish
 * channel, and every request judged by Redis in one round trip; only the per-key limit is raised.
 */
async function productionGateway(): Promise<number> {
  const { InMemoryRateLimiter } = (await import(compiled('gateway/access/in-memory-rate-limiter.js'))) as typeof import('../gateway/access/in-memory-rate-limiter.ts');
  const { openRedisAccess } = (await import(compiled('gateway/access/redis-access.js'))) as typeof import('../gateway/access/redis-access.ts');
  const { startGateway } = (await import(compiled('gateway/server.js'))) as typeof import('../gateway/server.ts');
  const { parseConfig } = (await import(compiled('bin/config.js'))) as typeof import('../bin/config.ts');
  const { openSnapshotSource } = (await import(compiled('bin/services.js'))) as typeof import('../bin/services.ts');
  const { openPublishChannel } = (await import(compiled('snapshot/publish-channel-backends.js'))) as typeof import('../snapshot/publish-channel-backends.ts');
  const config = parseConfig(process.env);
  if (config.redisUrl === undefined || config.snapshotCdnUrl === undefined) throw new Error('the production gateway needs REDIS_URL and SNAPSHOT_CDN_URL');
  const access = await openRedisAccess({ url: config.redisUrl, log: quiet, limit: UNREACHABLE_LIMIT });
  const gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    snapshots: openSnapshotSource(config, config.snapshotStore.open()).source,
    keys: access.keys,
    keyVerdicts: access.verdicts,
    usage: access.usage,
    authFailures: new InMemoryRateLimiter({ limit: UNREACHABLE_LIMIT }),
    channel: openPublishChannel(config, quiet),
    log: quiet,
    metrics: await productionMetrics(),
    limits: { pinWindowMs: PIN_WINDOW_MS },
  });
  return gateway.port;
}

type Bodies = Map<string, { bytes: Buffer; etag: string; headers?: Record<string, string> }>;

const headersOf = (etag: string) => ({ ETag: etag, 'Cache-Control': 'private, max-age=60', 'Content-Type': 'application/json; charset=utf-8' });

async function expressReference(bodies: Bodies, gatewayClasses: boolean): Promise<number> {
  const { default: express } = await import('express');
  const app = express();
  app.set('etag', false);
  app.use(function sendFromMemory(req, res, next) {
    const entry = bodies.get(req.url);
    if (!entry) return next();
    res.set(entry.headers ?? headersOf(entry.etag));
    res.send(entry.bytes);
  });
  if (!gatewayClasses) return listen(createServer(app));
  const { messageClassesOf } = (await import(compiled('runtime/express-messages.js'))) as typeof import('../runtime/express-messages.ts');
  return listen(createServer({ ...messageClassesOf(app) }, app));
}

function bareReference(bodies: Bodies): Promise<number> {
  return listen(
    createServer((req, res) => {
      const entry = bodies.get(req.url ?? '');
      if (!entry) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { ...headersOf(entry.etag), 'Content-Length': entry.bytes.length });
      res.end(entry.bytes);
    }),
  );
}

function listen(server: ReturnType<typeof createServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

interface Child {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** `env`: added to this process's environment for the child. */
function startChild(kind: ServerKind, configPath: string, env: Record<string, string> = {}, flags: readonly string[] = []): Promise<Child> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...flags, SELF, 'serve', kind, configPath], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${kind} did not start within 30 s`)), 30_000);
    child.once('exit', (code) => reject(new Error(`${kind} exited with ${code}`)));
    const started = (port: number) => {
      clearTimeout(timer);
      resolve({
        process: child,
        url: `http://127.0.0.1:${port}`,
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    // The port comes as one JSON line; whatever else a child prints on stdout (V8's --trace-gc
    // given with --gateway-flags) is passed on to stderr, so such flags can be used here.
    let pending = '';
    let listening = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      for (let newline = pending.indexOf('\n'); newline !== -1; newline = pending.indexOf('\n')) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (!listening && line.startsWith('{"port":')) {
          listening = true;
          started((JSON.parse(line) as { port: number }).port);
        } else process.stderr.write(`${line}\n`);
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Data: organizations published through the real builder stages into a directory store, and the
// measured ones also into S3 for the production gateway.

interface Published {
  id: string;
  key: string;
  slugs: string[];
}

const builder = async () => ({
  ...(await import('../builder/projection/index.ts')),
  ...(await import('../builder/publish.ts')),
});

/** Publishes the fixture's organization as the builder would, at `now` (so that two stores get the same snapshot ids); the slugs of its events and the snapshot. */
async function publishFixture(store: SnapshotStore, fixture: PlatformFixture, now = new Date()): Promise<{ slugs: string[]; snapshotId: string }> {
  const { projectOrganization, publishSnapshot, resourcesOf } = await builder();
  const projection = projectOrganization(fixture.data(), { publicBaseUrl: 'https://events.example.com' });
  const outcome = await publishSnapshot(store, {
    organizationId: fixture.organization.id,
    organizationSlug: fixture.organization.slug,
    state: 'active',
    resources: resourcesOf(projection).map(({ path, value }) => ({ path, value })),
    slugs: projection.slugs,
    trigger: 'manual',
    now,
  });
  return { slugs: Object.keys(projection.slugs), snapshotId: outcome.snapshotId! };
}

async function createKey(keys: KeyStore, organizationId: string): Promise<string> {
  return (await keys.create({ organizationId, label: 'bench', origins: [ORIGIN] })).secret;
}

async function publishOrganization(store: SnapshotStore, keys: FileKeyStore, fixture: PlatformFixture, now?: Date): Promise<Published> {
  const { slugs } = await publishFixture(store, fixture, now);
  return { id: fixture.organization.id, key: await createKey(keys, fixture.organization.id), slugs };
}

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A typical small organization: team, speakers, sponsors, `events` events with a programme. */
function smallOrganization(PlatformFixture: typeof import('../test/support/platform-fixture.ts').PlatformFixture, n: number, events: number): PlatformFixture {
  const fixture = new PlatformFixture({ id: randomUUID(), name: `Organization ${n}`, slug: `org-${n}`, description: 'A community that runs events.' });
  for (let i = 0; i < 3; i++) fixture.teamMember({ fullName: `Member ${i}`, title: 'Organizer', sortOrder: i });
  const speakers = Array.from({ length: 6 }, (_, i) => fixture.speaker({ name: `Speaker ${i}`, company: 'Company', bio: 'Speaks about things.' }));
  const sponsors = Array.from({ length: 3 }, (_, i) => fixture.sponsor({ name: `Sponsor ${i}`, logo: fixture.image() }));
  const now = Date.now();
  for (let e = 0; e < events; e++) {
    const start = now + (e - events / 2) * 30 * DAY;
    const event = fixture.event({
      name: `Event ${e}`,
      slug: `event-${e}`,
      description: 'An event.',
      venueName: 'Venue',
      city: 'Berlin',
      country: 'DE',
      startsAt: iso(start),
      endsAt: iso(start + 8 * 3_600_000),
      capacity: 200,
    });
    for (let s = 0; s < 2; s++) {
      const session = fixture.session(event, { name: `Session ${s}`, startsAt: iso(start + s * 3_600_000), endsAt: iso(start + (s + 1) * 3_600_000) });
      fixture.bill(session, speakers[(e + s) % speakers.length]!);
    }
    fixture.place(event, sponsors[e % sponsors.length]!, { tier: 'Gold', sortOrder: 0 });
  }
  return fixture;
}

// ---------------------------------------------------------------------------------------------
// The production backends: Redis, s3rver and nginx as the CDN in front of it.

interface ProductionBackends {
  /** What the production gateway child is started with (its `marquee serve` configuration). */
  env: Record<string, string>;
  /** The S3 store the gateway reads, for publishing into. */
  store: SnapshotStore;
  /** Keys in Redis, as `keys create` makes them with REDIS_URL set. */
  keys: KeyStore;
  stop(): Promise<void>;
}

async function startProductionBackends(): Promise<ProductionBackends> {
  const { startRedis } = await import('../test/support/redis.ts');
  const { startS3 } = await import('../test/support/s3.ts');
  const { startHttpCache } = await import('../test/support/http-cache.ts');
  const { S3Store } = await import('../snapshot/stores/s3.ts');
  const { openRedisKeyStore } = await import('../gateway/access/redis-access.ts');
  const started: Array<{ stop(): Promise<void> }> = [];
  const stop = async () => {
    for (const part of started.reverse()) await part.stop();
  };
  try {
    const redis = await startRedis({ appendfsync: 'everysec' });
    started.push(redis);
    const s3 = await startS3();
    started.push(s3);
    const cdn = await startHttpCache(s3.endpoint);
    started.push(cdn);
    const keyStore = await openRedisKeyStore({ url: redis.url });
    started.push({ stop: () => keyStore.close() });
    const env: Record<string, string> = { ...s3.env(PREFIX), SNAPSHOT_CDN_URL: `${cdn.url}/${s3.bucket}/${PREFIX}`, REDIS_URL: redis.url };
    // The SDK's credential chain reads s3rver's credentials from this process's environment.
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION'] as const) process.env[name] = env[name]!;
    return { env, store: new S3Store({ bucket: s3.bucket, prefix: PREFIX, endpoint: s3.endpoint }), keys: keyStore.keys, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Measuring.

interface Measurement extends Load {
  /** The server's CPU time (all its threads) per request answered, in µs; taken by measureRounds. */
  cpuUs?: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const fixed = (value: number, digits = 0) => value.toFixed(digits).padStart(9);
const percent = (ratio: number) => `${(ratio * 100).toFixed(0)}%`;

interface Scenario {
  name: string;
  path: string;
  /** The key each gateway knows this organization by (the references ignore keys). */
  key: string;
  productionKey: string;
  /** Target: the embedded gateway's requests/s as a share of minimal Express's; a run that misses it fails. */
  expressTarget: number;
  /** A pinned read (Marquee-Snapshot-Id: this id) of the scenario named `unpinned`, judged against it rather than Express. */
  pin?: { snapshotId: string; unpinned: string };
  /** A higher share an open piece of work aims at: reported beside the target, never failing the run. */
  expressGoal?: number;
}

const headersFor = (scenario: Scenario, server: ServerKind): Record<string, string> => ({
  'x-api-key': server === 'production' ? scenario.productionKey : scenario.key,
  origin: ORIGIN,
  ...(scenario.pin && { [PIN_HEADER]: scenario.pin.snapshotId }),
});

type Servers = ReadonlyArray<readonly [ServerKind, Child]>;
type Results = Map<`${string}|${ServerKind}`, Measurement[]>;

/** Every scenario on every server, `rounds` times; the servers' order rotates each round. */
async function measureRounds(scenarios: Scenario[], servers: Servers, rounds: number, seconds: number, generator: LoadGenerator): Promise<Results> {
  const results: Results = new Map();
  const measure = (url: string, headers: Record<string, string>, seconds: number): Promise<Measurement> => applyLoad(generator, { url, headers, seconds });
  for (const scenario of scenarios) {
    for (const [name, server] of servers) await measure(`${server.url}${scenario.path}`, headersFor(scenario, name), 1); // warm-up
  }
  for (let round = 1; round <= rounds; round++) {
    for (const scenario of scenarios) {
      // Rotated per round: each server runs first, second, and so on, in turn.
      for (const [name, server] of servers.map((_, i) => servers[(i + round) % servers.length]!)) {
        const cpuBefore = cpuMicrosecondsOf(server.process.pid!);
        const measurement = await measure(`${server.url}${scenario.path}`, headersFor(scenario, name), seconds);
        measurement.cpuUs = (cpuMicrosecondsOf(server.process.pid!) - cpuBefore) / (measurement.requestsPerSecond * seconds);
        const key = `${scenario.name}|${name}` as const;
        results.set(key, [...(results.get(key) ?? []), measurement]);
        console.log(
          `round ${round}  ${scenario.name.padEnd(36)} ${name.padEnd(15)} ${fixed(measurement.requestsPerSecond)} req/s  p99 ${fixed(measurement.p99, 1)} ms ${fixed(measurement.cpuUs, 1)} µs CPU/request (load generator ${measurement.loadCpuUs.toFixed(1)} µs)${measurement.errors ? `  ${measurement.errors} errors!` : ''}`,
        );
      }
    }
  }
  return results;
}

/** The table of medians, then one verdict line per scenario against each target; the verdicts. */
function report(scenarios: Scenario[], servers: Servers, results: Results, rounds: number, seconds: number, generator: LoadGenerator): string[] {
  console.log(`\nmedians of ${rounds} rounds (node ${process.version}) × ${seconds} s, ${CONNECTIONS} connections from ${generator}, loopback, one server per process`);
  console.log(`${'scenario'.padEnd(36)} ${'server'.padEnd(15)} ${'req/s'.padStart(9)} ${'p99 ms'.padStart(9)} ${'CPU µs/req'.padStart(11)}`);
  const verdicts: string[] = [];
  /** Round by round, `field` of the measurement `a` over the measurement `b` of the same round. */
  const perRound = (a: `${string}|${ServerKind}`, b: `${string}|${ServerKind}`, field: 'requestsPerSecond' | 'cpuUs') =>
    results.get(a)!.map((m, round) => m[field]! / results.get(b)![round]![field]!);
  for (const scenario of scenarios) {
    const med = (server: ServerKind, field: 'requestsPerSecond' | 'p99' | 'cpuUs' | 'loadCpuUs') => median(results.get(`${scenario.name}|${server}`)!.map((m) => m[field]!));
    for (const [name] of servers)
      console.log(
        `${scenario.name.padEnd(36)} ${name.padEnd(15)} ${fixed(med(name, 'requestsPerSecond'))} ${fixed(med(name, 'p99'), 1)} ${fixed(med(name, 'cpuUs'), 1).padStart(11)}`,
      );
    // Each round's ratio is taken within the round (the two ran back to back), then the median of
    // those: a neighbour that slowed one round slows both sides of that round's ratio alike.
    if (scenario.pin) {
      // A pinned read against the same read unpinned, each server against itself, round by round.
      for (const server of ['gateway', 'production'] as const) {
        const ratios = perRound(`${scenario.name}|${server}`, `${scenario.pin.unpinned}|${server}`, 'requestsPerSecond');
        const ratio = median(ratios);
        const cost = 1 / ratio - 1;
        verdicts.push(
          `${scenario.name}: ${server} at ${percent(ratio)} of its unpinned requests/s (${ratios.map(percent).join(', ')}), ${(cost * 100).toFixed(0)}% more per request` +
            (server === 'gateway' ? ` (target ≤ 10%: ${cost <= 0.1 ? 'met' : 'NOT met'})` : ''),
        );
      }
      continue;
    }
    const roundRatios = perRound(`${scenario.name}|gateway`, `${scenario.name}|express`, 'requestsPerSecond');
    const vsExpress = median(roundRatios);
    console.log(`${scenario.name.padEnd(36)} gateway / express per round: ${roundRatios.map(percent).join(', ')}; median ${percent(vsExpress)}`);
    // The same comparison in CPU time per request, which a neighbour's load on the machine moves far
    // less than requests/s (it slows a server without making its requests cost more): shown beside
    // the verdict, which stays on requests/s.
    const cpuRatios = perRound(`${scenario.name}|express`, `${scenario.name}|gateway`, 'cpuUs');
    console.log(
      `${scenario.name.padEnd(36)} CPU per request, express / gateway per round: ${cpuRatios.map(percent).join(', ')}; median ${percent(median(cpuRatios))} (${med('gateway', 'cpuUs').toFixed(1)} µs against ${med('express', 'cpuUs').toFixed(1)} µs)`,
    );
    const sameRatios = perRound(`${scenario.name}|gateway`, `${scenario.name}|express-same`, 'requestsPerSecond');
    const sameCpuRatios = perRound(`${scenario.name}|express-same`, `${scenario.name}|gateway`, 'cpuUs');
    console.log(
      `${scenario.name.padEnd(36)} gateway / express sending the same headers per round: ${sameRatios.map(percent).join(', ')}; median ${percent(median(sameRatios))} (CPU per request ${percent(median(sameCpuRatios))}); the load generator's CPU per response: ${med('gateway', 'loadCpuUs').toFixed(1)} µs for the gateway's, ${med('express', 'loadCpuUs').toFixed(1)} µs for Express's, ${med('express-same', 'loadCpuUs').toFixed(1)} µs with the same headers`,
    );
    const classesRatios = perRound(`${scenario.name}|gateway`, `${scenario.name}|express-classes`, 'requestsPerSecond');
    const vsBare = med('gateway', 'requestsPerSecond') / med('bare', 'requestsPerSecond');
    const p99Ratio = med('gateway', 'p99') / Math.max(med('express', 'p99'), 1);
    const target = scenario.expressTarget;
    const goal = scenario.expressGoal === undefined ? '' : `; goal ≥ ${percent(scenario.expressGoal)}: ${vsExpress >= scenario.expressGoal ? 'reached' : 'not yet'}`;
    verdicts.push(
      `${scenario.name}: ${percent(vsExpress)} of minimal Express, median of the rounds' ratios (target ≥ ${percent(target)}: ${vsExpress >= target ? 'met' : 'NOT met'}${goal}; in CPU per request ${percent(median(cpuRatios))}; ${percent(median(sameRatios))} of minimal Express sending the gateway's headers too), ${percent(median(classesRatios))} of minimal Express made with the gateway's request classes, ${percent(vsBare)} of bare node:http; p99 ${p99Ratio.toFixed(2)}× Express's (target ≤ 1.5×: ${p99Ratio <= 1.5 ? 'met' : 'NOT met'})`,
    );
    const production = med('production', 'requestsPerSecond') / med('gateway', 'requestsPerSecond');
    const productionP99 = med('production', 'p99') / Math.max(med('gateway', 'p99'), 1);
    verdicts.push(
      `${scenario.name}: production ${percent(production)} of the embedded gateway's req/s (target ≥ 70%: ${production >= 0.7 ? 'met' : 'NOT met'}); p99 ${med('production', 'p99').toFixed(0)} / ${med('gateway', 'p99').toFixed(0)} ms = ${productionP99.toFixed(2)}× (target ≤ 2×: ${productionP99 <= 2 ? 'met' : 'NOT met'})`,
    );
  }
  console.log(`\n${verdicts.join('\n')}`);
  return verdicts;
}

/** Memory: a fresh gateway serves every resource of every organization once; its RSS after, and the verdict. */
async function measureMemory(configPath: string, everyone: Published[], children: Child[], flags: readonly string[]): Promise<string> {
  const { request } = await import('undici');
  const fresh = await startChild('gateway', configPath, {}, flags);
  children.push(fresh);
  const started = performance.now();
  let served = 0;
  let failed = 0;
  const queue = [...everyone];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let org = queue.pop(); org; org = queue.pop()) {
        const paths = ['/organization', '/team', '/speakers', '/sponsors', '/events', '/events?timing=all&pageSize=100', '/events?timing=past'];
        for (const slug of org.slugs.slice(0, 5)) paths.push(`/events/${slug}`, `/events/${slug}/sessions`, `/events/${slug}/speakers`, `/events/${slug}/sponsors`);
        for (const path of paths) {
          const reply = await request(`${fresh.url}${API}${path}`, { headers: { 'x-api-key': org.key, origin: ORIGIN } });
          await reply.body.dump();
          if (reply.statusCode === 200) served++;
          else failed++;
        }
      }
    }),
  );
  const memory = memoryOf(fresh.process.pid!);
  const verdict =
    `memory: ${served} responses (${failed} not 200) over ${everyone.length} organizations in ${((performance.now() - started) / 1000).toFixed(1)} s;` +
    ` gateway RSS ${memory.rss.toFixed(0)} MB, peak ${memory.peak.toFixed(0)} MB (target ≤ 200 MB: ${memory.peak <= 200 && failed === 0 ? 'met' : 'NOT met'})`;
  console.log(`\n${verdict}`);
  return verdict;
}

/**
 * GET /changes over the 5,000-event organization, one request at a time after a warm-up (its
 * manifests then cached): the time of each answer, p50 and p95, since the snapshot before
 * (one event renamed) and without since (the initial sync, every path: no target).
 */
async function measureChanges(gatewayUrl: string, key: string, since: string): Promise<string> {
  const { Pool } = await import('undici');
  const pool = new Pool(gatewayUrl, { connections: 1 });
  const timed = async (path: string, count: number) => {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const reply = await pool.request({ method: 'GET', path, headers: { 'x-api-key': key, origin: ORIGIN } });
      await reply.body.dump();
      if (reply.statusCode !== 200) throw new Error(`${path} answered ${reply.statusCode}`);
      times.push(performance.now() - started);
    }
    const sorted = times.sort((a, b) => a - b);
    return { p50: sorted[Math.floor(count * 0.5)]!, p95: sorted[Math.floor(count * 0.95)]! };
  };
  try {
    const deltaPath = `${API}/changes?since=${since}`;
    await timed(deltaPath, 50);
    const delta = await timed(deltaPath, 500);
    await timed(`${API}/changes`, 5);
    const initial = await timed(`${API}/changes`, 50);
    const verdict =
      `GET /changes over 5,000 events, since the snapshot before: p50 ${delta.p50.toFixed(2)} ms, p95 ${delta.p95.toFixed(2)} ms (target ≤ 5 ms: ${delta.p95 <= 5 ? 'met' : 'NOT met'}); ` +
      `without since (every one of 20,005 paths): p50 ${initial.p50.toFixed(1)} ms, p95 ${initial.p95.toFixed(1)} ms`;
    console.log(`\n${verdict}`);
    return verdict;
  } finally {
    await pool.close();
  }
}

/**
 * The gateway's coded answers (bench/coded-answers.ts): bytes per answer and br against identity on
 * `/organization`, the 5,000-event list and its largest detail, then `/organization` against nginx
 * serving the same bytes as static files, with the coded forms the builder stores beside them.
 */
async function measureCodings(gateway: Child, solo: Published, big: Published, rounds: number, seconds: number, generator: LoadGenerator): Promise<string[]> {
  const { answerAs, measureAgainstStatic, measureBytes, measureCodedAgainstIdentity } = await import('./coded-answers.ts');
  const { startStaticFiles } = await import('./nginx-static.ts');
  const { LARGE_PROGRAMME_SLUG } = await import('../test/support/large-organization.ts');
  const served = { url: gateway.url, pid: () => gateway.process.pid! };
  const keyed = (key: string) => ({ 'x-api-key': key, origin: ORIGIN });
  const organization = { name: 'GET /organization', path: `${API}/organization`, headers: keyed(solo.key), bytesTarget: false };
  const routes = [
    organization,
    { name: 'GET /events?pageSize=100 of 5,000', path: `${API}/events?pageSize=100`, headers: keyed(big.key), bytesTarget: true },
    { name: `GET /events/${LARGE_PROGRAMME_SLUG}`, path: `${API}/events/${LARGE_PROGRAMME_SLUG}`, headers: keyed(big.key), bytesTarget: true },
  ];
  const verdicts = [...(await measureBytes(gateway.url, routes)), ...(await measureCodedAgainstIdentity(generator, served, routes, rounds, seconds))];
  // The files as the builder stored them, read back through the gateway: the JSON, and each coded
  // form the gateway answers with (gzip alone, by default: a br request gets it from both), so that
  // nginx answers every request with the gateway's bytes.
  const answer = (asked: 'identity' | 'gzip' | 'br') => answerAs(`${gateway.url}${organization.path}`, organization.headers, asked);
  const forms: { '': Buffer; '.gz'?: Buffer; '.br'?: Buffer } = { '': (await answer('identity')).bytes };
  for (const asked of ['gzip', 'br'] as const) {
    const coded = await answer(asked);
    if (coded.coding === asked) forms[asked === 'gzip' ? '.gz' : '.br'] = coded.bytes;
  }
  const nginx = await startStaticFiles({ 'organization.json': forms });
  try {
    verdicts.push(
      ...(await measureAgainstStatic(generator, served, organization, { url: nginx.url, pid: nginx.workerPid, brotli: nginx.brotli }, 'organization.json', rounds, seconds)),
    );
  } finally {
    await nginx.stop();
  }
  return verdicts;
}

/**
 * The gateway's answer to `url`, which the references will return and the production gateway must
 * match: its bytes, its tag, and its headers besides Node's own (for `express-same`).
 */
async function answerOf(url: string, headers: Record<string, string>, what: string): Promise<{ body: string; etag: string; headers: Record<string, string> }> {
  const { request } = await import('undici');
  const reply = await request(url, { headers });
  const body = await reply.body.text();
  if (reply.statusCode !== 200) throw new Error(`${what} answered ${reply.statusCode}: ${body.slice(0, 200)}`);
  const answered = Object.entries(reply.headers).map(([name, value]) => [name, String(value)] as const);
  return { body, etag: String(reply.headers.etag), headers: gatewayOwnHeaders(answered) };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string, fallback: number) => {
    const at = args.indexOf(`--${name}`);
    return at === -1 ? fallback : Number(args[at + 1]);
  };
  const rounds = option('rounds', 5);
  const seconds = option('seconds', 5);
  const text = (name: string) => {
    const at = args.indexOf(`--${name}`);
    return at === -1 ? undefined : args[at + 1];
  };
  const profileDir = text('profile');
  const generator = loadGeneratorOf(args);
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const gatewayFlags = [...(text('gateway-flags')?.split(' ').filter(Boolean) ?? []), ...profile];
  console.log(`command: node --import tsx bench/gateway.ts ${args.join(' ')}`.trimEnd());
  console.log(`${machine()}\n`);

  const { FileKeyStore } = await import('../records/keys/file-store.ts');
  const { DirectoryStore } = await import('../snapshot/stores/directory.ts');
  const { PlatformFixture } = await import('../test/support/platform-fixture.ts');
  const { largeOrganization } = await import('../test/support/large-organization.ts');
  const dir = await mkdtemp(join(tmpdir(), 'marquee-bench-'));
  const children: Child[] = [];
  let backends: ProductionBackends | undefined;
  try {
    const storeDir = join(dir, 'snapshots');
    const keyFile = join(dir, 'keys.json');
    const store = new DirectoryStore(storeDir);
    const keys = new FileKeyStore(keyFile);
    let started = performance.now();
    const soloFixture = smallOrganization(PlatformFixture, 0, 6);
    const bigFixture = largeOrganization();
    // Each measured organization twice, at the same instants in both stores (so with the same
    // snapshot ids): the pinned scenario reads the first, and /changes compares the two.
    const firstAt = new Date(Date.now() - 60_000);
    const secondAt = new Date(firstAt.getTime() + 1000);
    const soloFirst = (await publishFixture(store, soloFixture, firstAt)).snapshotId;
    const bigFirst = (await publishFixture(store, bigFixture, firstAt)).snapshotId;
    const measuredAs = (snapshot: 'first' | 'second') => {
      soloFixture.organization.description = snapshot === 'first' ? 'A community that runs events.' : 'A community that runs events, and now says so.';
      bigFixture.events[1]!.name = snapshot === 'first' ? 'Big Event 1' : 'Big Event 1, renamed';
    };
    measuredAs('second');
    const solo = await publishOrganization(store, keys, soloFixture, secondAt);
    const big = await publishOrganization(store, keys, bigFixture, secondAt);
    const many: Published[] = [];
    for (let n = 1; n <= 1000; n++) many.push(await publishOrganization(store, keys, smallOrganization(PlatformFixture, n, 5)));
    console.log(`published 1,002 organizations (one with 5,000 events) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    if (text('only') === 'coded') {
      // The coded answers alone (bytes, br against identity, nginx static), on the embedded gateway.
      const configPath = join(dir, 'serve.json');
      await writeFile(configPath, JSON.stringify({ storeDir, keyFile, bodies: {} } satisfies ServeConfig));
      const gateway = await startChild('gateway', configPath, {}, gatewayFlags);
      children.push(gateway);
      if ((await measureCodings(gateway, solo, big, rounds, seconds, generator)).some((verdict) => verdict.includes('NOT met'))) process.exitCode = 1;
      return;
    }
    if (text('only') === 'memory') {
      // The memory phase alone, to weigh a node flag (--gateway-flags) against the memory target in a minute.
      const configPath = join(dir, 'serve.json');
      await writeFile(configPath, JSON.stringify({ storeDir, keyFile, bodies: {} } satisfies ServeConfig));
      if ((await measureMemory(configPath, [solo, big, ...many], children, gatewayFlags)).includes('NOT met')) process.exitCode = 1;
      return;
    }

    // Only the two measured organizations go to S3: s3rver takes about 20 s for the big one's
    // 20,000 objects, and the memory phase below runs on the embedded gateway.
    started = performance.now();
    backends = await startProductionBackends();
    // The first snapshots' rows, then the second's, as in the directory store.
    measuredAs('first');
    for (const fixture of [soloFixture, bigFixture]) await publishFixture(backends.store, fixture, firstAt);
    measuredAs('second');
    for (const fixture of [soloFixture, bigFixture]) await publishFixture(backends.store, fixture, secondAt);
    const soloProductionKey = await createKey(backends.keys, solo.id);
    const allScenarios: Scenario[] = [
      // Targets: where the gateway was before a regression (80%); the goal: 90% of Express for both.
      {
        name: 'GET /organization',
        path: `${API}/organization`,
        key: solo.key,
        productionKey: soloProductionKey,
        expressTarget: 0.8,
        expressGoal: 0.9,
      },
      {
        // The same organization read pinned to its snapshot before the current one.
        name: 'GET /organization, pinned',
        path: `${API}/organization?pinned`,
        key: solo.key,
        productionKey: soloProductionKey,
        expressTarget: 0,
        pin: { snapshotId: soloFirst, unpinned: 'GET /organization' },
      },
      {
        name: 'GET /events upcoming, 100 of 5,000',
        path: `${API}/events?timing=upcoming&pageSize=100`,
        key: big.key,
        productionKey: await createKey(backends.keys, big.id),
        expressTarget: 0.8,
        expressGoal: 0.9,
      },
    ];
    const only = text('only');
    const scenarios = allScenarios.filter((scenario) => only === undefined || scenario.name.includes(only));
    if (scenarios.length === 0) throw new Error(`--only ${only}: no scenario's name contains it (${allScenarios.map(({ name }) => name).join('; ')})`);
    if (scenarios.some(({ pin }) => pin && !scenarios.some(({ name }) => name === pin.unpinned)))
      throw new Error(`--only ${only}: a pinned read is measured against its unpinned one, which it leaves out`);
    console.log(`production backends started, the 2 measured organizations published into s3rver in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const configPath = join(dir, 'serve.json');
    const config: ServeConfig = { storeDir, keyFile, bodies: {} };
    const sameConfigPath = join(dir, 'serve-same-headers.json');
    const sameConfig: ServeConfig = { storeDir, keyFile, bodies: {} };
    await writeFile(configPath, JSON.stringify(config));
    const gateway = await startChild('gateway', configPath, {}, gatewayFlags);
    children.push(gateway);
    const production = await startChild('production', configPath, backends.env);
    children.push(production);
    for (const scenario of scenarios) {
      const embedded = await answerOf(`${gateway.url}${scenario.path}`, headersFor(scenario, 'gateway'), `${scenario.name}: gateway`);
      // Also fills the production gateway's caches through the CDN before the warm-up.
      const fromS3 = await answerOf(`${production.url}${scenario.path}`, headersFor(scenario, 'production'), `${scenario.name}: production gateway`);
      if (fromS3.body !== embedded.body || fromS3.etag !== embedded.etag) throw new Error(`${scenario.name}: the production gateway answered other bytes than the embedded one`);
      config.bodies[scenario.path] = { body: embedded.body, etag: embedded.etag };
      sameConfig.bodies[scenario.path] = embedded;
    }
    await writeFile(configPath, JSON.stringify(config));
    await writeFile(sameConfigPath, JSON.stringify(sameConfig));
    const express5 = await startChild('express', configPath, {}, profile);
    if (profileDir) console.log(`CPU profiles in ${profileDir}: the gateway is process ${gateway.process.pid}, minimal Express ${express5.process.pid}`);
    const expressClasses = await startChild('express-classes', configPath);
    const expressSame = await startChild('express-same', sameConfigPath);
    const bare = await startChild('bare', configPath);
    children.push(express5, expressClasses, expressSame, bare);
    const servers: Servers = [
      ['gateway', gateway],
      ['production', production],
      ['express', express5],
      ['express-classes', expressClasses],
      ['express-same', expressSame],
      ['bare', bare],
    ];
    const verdicts = report(scenarios, servers, await measureRounds(scenarios, servers, rounds, seconds, generator), rounds, seconds, generator);
    if (only === undefined) verdicts.push(await measureChanges(gateway.url, big.key, bigFirst));
    if (only === undefined) verdicts.push(...(await measureCodings(gateway, solo, big, rounds, seconds, generator)));
    await Promise.all(children.splice(0).map((child) => child.stop()));
    if (only === undefined) verdicts.push(await measureMemory(configPath, [solo, big, ...many], children, gatewayFlags));
    // A target missed is a failed run, so that no change can be described as measured while one is
    // (docs/development.md: run it before resolving anything that touches the gateway or its caches).
    const missed = verdicts.filter((verdict) => verdict.includes('NOT met'));
    if (missed.length > 0) {
      console.log(`\n${missed.length} target(s) NOT met: exit 1`);
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await backends?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const [mode, kind, configPath] = process.argv.slice(2);
if (mode === 'serve') await serve(kind as ServerKind, configPath!);
else await main();
