// Rolling restart benchmark (`npm run bench:rolling-restart`): two `marquee serve` of the production
// shape (test/support/production.ts: PostgreSQL, Redis, S3 behind the CDN, a builder) restarted one
// after the other under a steady load, with the drain (SHUTDOWN_DRAIN_SECONDS, default 5) and
// without it (0), in the same run, behind two kinds of balancer:
//
// - nginx (test/support/load-balancer.ts): an `upstream` of both gateways, which tries a request
//   again on the other gateway when its connection is refused (nginx's default), and cannot probe
//   /readyz (no active health checks without its commercial part);
// - a probing balancer, as cloud load balancers and Kubernetes work: it asks each gateway's /readyz
//   every second, sends requests only to those that answered 200 last time, and never retries.
//
// Each restart: SIGTERM, the process's exit, the replacement started on the same port, then the next
// gateway once the replacement is ready. Prints, per mode, the requests sent and failed (an answer
// that is not 200, or none: a refused or cut connection) and the seconds per gateway from its
// SIGTERM to its replacement being ready. Not a timed test: the figures are counts and their ratio
// between the two drains, measured side by side.
//
//   node --import tsx bench/rolling-restart.ts [--rate 40] [--drain 5]
import { setTimeout as sleep } from 'node:timers/promises';
import { openRedisKeyStore } from '../gateway/access/redis-access.ts';
import { SAMPLE } from '../builder/platform/sample.ts';
import { marqueeProcess } from '../test/support/cli.ts';
import { startLoadBalancer } from '../test/support/load-balancer.ts';
import { freePort } from '../test/support/ports.ts';
import { startProductionWorld, type ProductionWorld } from '../test/support/production.ts';
import { type LoadTally, steadyLoad } from '../test/support/steady-load.ts';
import { machine } from './machine.ts';

const API = '/api/integration/v1';
/** Keys taken in turn: each stays well inside its 600 a minute at the default rate. */
const KEYS = 16;
const PROBE_EVERY_MS = 1_000;

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? undefined : args[at + 1];
};
const rate = Number(option('rate') ?? 40);
const drainSeconds = Number(option('drain') ?? 5);

interface Gateway {
  port: number;
  child: import('node:child_process').ChildProcess;
  stop(): Promise<void>;
}

async function serve(world: ProductionWorld, port: number, drain: number): Promise<Gateway> {
  const started = await marqueeProcess(['serve'], { ...world.env, PORT: String(port), SHUTDOWN_DRAIN_SECONDS: String(drain) }, /gateway listening on (http:\/\/\S+),/);
  return { port, child: started.child, stop: started.stop };
}

/** Restarts each gateway in turn; resolves with the seconds from each SIGTERM to its replacement being ready. */
async function rollingRestart(world: ProductionWorld, gateways: Gateway[], drain: number): Promise<number[]> {
  const seconds: number[] = [];
  for (const [index, old] of gateways.entries()) {
    const started = performance.now();
    const exited = new Promise<void>((resolve) => old.child.once('exit', () => resolve()));
    old.child.kill('SIGTERM');
    await exited;
    gateways[index] = await serve(world, old.port, drain);
    seconds.push((performance.now() - started) / 1000);
  }
  return seconds;
}

/** A balancer that sends requests only to the gateways whose /readyz answered 200 at its last probe, round robin. */
function probingBalancer(ports: readonly number[]): { target(n: number): string; stop(): void } {
  const ready = new Set(ports);
  const probe = async () => {
    await Promise.all(
      ports.map(async (port) => {
        const answer = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(900) }).catch(() => undefined);
        await answer?.arrayBuffer().catch(() => undefined);
        if (answer?.status === 200) ready.add(port);
        else ready.delete(port);
      }),
    );
  };
  const timer = setInterval(() => void probe(), PROBE_EVERY_MS);
  return {
    target(n) {
      const live = [...ready];
      // None ready: the request goes to the first anyway, and fails as a balancer with no backend would.
      const port = live.length === 0 ? ports[0]! : live[n % live.length]!;
      return `http://127.0.0.1:${port}${API}/organization`;
    },
    stop: () => clearInterval(timer),
  };
}

interface ModeResult {
  balancer: string;
  drain: number;
  tally: LoadTally;
  seconds: number[];
}

async function mode(world: ProductionWorld, keys: string[], balancer: 'nginx' | 'probing', drain: number): Promise<ModeResult> {
  const ports = [await freePort(), await freePort()];
  const gateways = await Promise.all(ports.map((port) => serve(world, port, drain)));
  const nginx = balancer === 'nginx' ? await startLoadBalancer(ports) : undefined;
  const probing = balancer === 'probing' ? probingBalancer(ports) : undefined;
  const target = nginx ? `${nginx.url}${API}/organization` : (n: number) => probing!.target(n);
  try {
    const load = steadyLoad(target, { rate, clients: 8, headers: (n) => ({ authorization: `Bearer ${keys[n % keys.length]}` }) });
    // A few seconds of load before and after: the restart happens in the middle of steady traffic.
    await sleep(2_000);
    const seconds = await rollingRestart(world, gateways, drain);
    await sleep(2_000);
    return { balancer, drain, tally: await load.stop(), seconds };
  } finally {
    probing?.stop();
    await nginx?.stop();
    await Promise.all(gateways.map((gateway) => gateway.stop()));
  }
}

console.log(`${machine()}\n`);
const world = await startProductionWorld();
let exitCode = 0;
try {
  await world.builder();
  const keyStore = await openRedisKeyStore({ url: world.redis.url });
  const keys: string[] = [];
  try {
    for (let i = 0; i < KEYS; i++) keys.push((await keyStore.keys.create({ organizationId: SAMPLE.organizations.nordic.id, label: `bench ${i}`, origins: [] })).secret);
  } finally {
    await keyStore.close();
  }
  const results: ModeResult[] = [];
  for (const balancer of ['nginx', 'probing'] as const) {
    for (const drain of [drainSeconds, 0]) results.push(await mode(world, keys, balancer, drain));
  }
  console.log(`rolling restart of 2 gateways, ${rate} requests/s from 8 clients (GET /organization)\n`);
  console.log('| balancer | SHUTDOWN_DRAIN_SECONDS | requests | failed | seconds per gateway (SIGTERM to replacement ready) | failures seen |');
  console.log('|---|---:|---:|---:|---|---|');
  for (const { balancer, drain, tally, seconds } of results) {
    const kinds = [...new Set(tally.failures.map((failure) => failure.split(':')[0]))].join(', ');
    console.log(`| ${balancer} | ${drain} | ${tally.sent} | ${tally.failed} | ${seconds.map((s) => s.toFixed(1)).join(', ')} | ${kinds || '—'} |`);
  }
  // The verdict: with the drain, no request is lost behind either balancer.
  const lost = results.filter((result) => result.drain > 0 && result.tally.failed > 0);
  console.log(lost.length === 0 ? '\nwith the drain: 0 failed requests behind both balancers (target 0): met' : '\nwith the drain: requests failed (target 0): NOT met');
  if (lost.length > 0) exitCode = 1;
} finally {
  await world.stop();
}
process.exit(exitCode);
