// A bounded soak on the production shape (`npm run soak`): PostgreSQL with the synthetic platform,
// one real `marquee builder` publishing into s3rver (S3's semantics) behind nginx as the CDN,
// Redis, and two real `marquee serve` (scripts/soak/world.ts). Keys are created in Redis through
// the store `marquee keys` writes, spread over the organizations (scripts/soak/keys.ts). Then, for
// --minutes, requests at --rate per second over every route and both gateways, open-loop, while
// the platform changes through SQL every 2 s (so builds publish continually) and a key is created
// and another revoked every 2 s; revoked keys are tried on purpose (scripts/soak/run.ts). Every
// answer is checked (scripts/soak/traffic.ts): no 5xx, no other organization's data, no revoked
// key served, only statuses the request could get. Each process's RSS is sampled every 10 s.
// Loopback only; stops by itself, and stops every server and process it started, also on Ctrl-C
// or a failure. Prints a summary and PASS or FAIL; exit status 1 on any failure.
//
//   node --import tsx scripts/soak.ts [--minutes 10] [--rate 300] [--organizations 1000] [--keys 10000]
//                                     [--full-builds '*/5 * * * *']
//
// --rate 300 by default: on a 2-core machine the same cores carry both gateways, Redis, the
// builder (a change build every 2 s, a full build of every organization every 5 minutes),
// PostgreSQL, s3rver, nginx and the load generator itself. Nearly every request makes its gateway
// re-read the organization's pointer from the store (at most once a second per organization, and
// each organization is asked less often than that), so a request costs far more here than in
// bench:gateway (~11,000/s on /organization). Measured at 300/s: each gateway ~0.26 of a core,
// s3rver ~0.29, the load generator ~0.13, the builder ~0.02 (between full builds): about one core,
// leaving the other for the full builds and the machine's neighbours. The soak is about time, not
// throughput.
import { parseArgs } from 'node:util';
import { createKeys, createWithCli, KeyRing, type SoakKey } from './soak/keys.ts';
import { readPlatform } from './soak/platform.ts';
import { type AfterRun, report } from './soak/report.ts';
import { runSoak } from './soak/run.ts';
import { type SoakWorld, startSoakWorld } from './soak/world.ts';

/** The per-key limit (docs/api.md §8) and the share of it a key may use: the rotation is even, but keys come and go. */
const KEY_LIMIT_PER_MINUTE = 600;
const KEY_SHARE = 0.5;
/** Keys made through `marquee keys create` at set-up, to prove the CLI and the store agree. */
const CLI_KEYS = 2;
/** What bench:build measures: 20 events of 10 sessions per organization. */
const EVENTS_PER_ORGANIZATION = 20;
const SESSIONS_PER_EVENT = 10;

interface Options {
  minutes: number;
  rate: number;
  organizations: number;
  keys: number;
  /** The builder's BUILD_SCHEDULE; the product's default unless a shorter run should meet more full builds. */
  fullBuilds: string;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      rate: { type: 'string', default: '300' },
      organizations: { type: 'string', default: '1000' },
      keys: { type: 'string', default: '10000' },
      'full-builds': { type: 'string', default: '*/5 * * * *' },
    },
  });
  const whole = (name: keyof typeof values) => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 1) refuse(`--${name} must be a positive integer, got ${values[name]}`);
    return value;
  };
  const options = {
    minutes: whole('minutes'),
    rate: whole('rate'),
    organizations: whole('organizations'),
    keys: whole('keys'),
    fullBuilds: values['full-builds'],
  };
  if (options.keys < options.organizations) refuse(`--keys (${options.keys}) must be at least --organizations (${options.organizations}): every organization gets a key`);
  const perKey = (options.rate * 60) / options.keys;
  if (perKey > KEY_LIMIT_PER_MINUTE * KEY_SHARE) {
    refuse(
      `--rate ${options.rate} over ${options.keys} keys is ${perKey.toFixed(0)} requests a minute per key; keep it under ${KEY_LIMIT_PER_MINUTE * KEY_SHARE} (more keys or a lower rate)`,
    );
  }
  return options;
}

function refuse(message: string): never {
  process.stderr.write(`soak: ${message}\n`);
  process.exit(2);
}

const say = (line: string) => process.stdout.write(`${line}\n`);

/**
 * Ctrl-C, SIGTERM or a fault of the soak itself: the run stops early, everything is stopped, and
 * the soak fails. A second one is left to the clean-up already under way.
 */
function onInterrupt(): AbortController {
  const interrupted = new AbortController();
  const stop = (why: string) => {
    if (!interrupted.signal.aborted) say(`\nsoak: ${why}: stopping everything…`);
    interrupted.abort();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // Node would exit at once on these, leaving every server running.
  process.on('uncaughtException', (error) => stop(`uncaught ${error.stack ?? error.message}`));
  process.on('unhandledRejection', (error) => stop(`unhandled rejection ${(error as Error)?.stack ?? String(error)}`));
  return interrupted;
}

async function createSoakKeys(world: SoakWorld, organizationIds: string[], count: number): Promise<SoakKey[]> {
  const started = performance.now();
  const viaCli = await Promise.all(Array.from({ length: Math.min(CLI_KEYS, count) }, (_, organization) => createWithCli(world.cli, organizationIds, organization)));
  const store = await world.openKeys();
  try {
    const keys = await createKeys(store.keys, organizationIds, count - viaCli.length);
    say(`${count} keys (${viaCli.length} by marquee keys create, the rest through its store) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return [...viaCli, ...keys];
  } finally {
    await store.close();
  }
}

/** What is wrong with the processes after the run: gone, or a gateway not answering /readyz 200. */
async function unhealthy(world: SoakWorld): Promise<string[]> {
  const problems = [world.builder, ...world.gateways].filter((process) => !process.alive()).map((process) => `${process.name} exited`);
  for (const gateway of world.gateways.filter((process) => process.alive())) {
    const health = await fetch(`${gateway.url}/readyz`).catch((error: Error) => error);
    if (health instanceof Error || health.status !== 200) problems.push(`${gateway.name} /readyz: ${health instanceof Error ? health.message : health.status}`);
  }
  return problems;
}

async function main(): Promise<number> {
  const options = parseOptions();
  const interrupted = onInterrupt();
  say(
    `soak: ${options.minutes} min at ${options.rate} requests/s over ${options.organizations} organizations and ${options.keys} keys ` +
      `(${((options.rate * 60) / options.keys).toFixed(1)} a minute per key); full builds at "${options.fullBuilds}"; 1 builder, 2 gateways, Redis, s3rver behind nginx`,
  );
  const world = await startSoakWorld(
    { organizations: options.organizations, eventsPerOrganization: EVENTS_PER_ORGANIZATION, sessionsPerEvent: SESSIONS_PER_EVENT, fullBuilds: options.fullBuilds },
    say,
    interrupted.signal,
  );
  try {
    const platform = await readPlatform(world.db);
    const ring = new KeyRing(
      await createSoakKeys(
        world,
        platform.organizations.map((organization) => organization.id),
        options.keys,
      ),
    );
    interrupted.signal.throwIfAborted();
    say(`running for ${options.minutes} min…`);
    const tally = await runSoak(world, platform, ring, { rate: options.rate, seconds: options.minutes * 60, signal: interrupted.signal });
    const after: AfterRun = {
      unhealthy: await unhealthy(world),
      interrupted: interrupted.signal.aborted,
      keys: { created: ring.creations, revoked: ring.revocations },
    };
    const failed = report(tally, [world.builder, ...world.gateways], after, (text) => process.stdout.write(text));
    if (after.interrupted) say("\n(a terminal's Ctrl-C reaches the servers too: what failed after it may be its doing)");
    say(failed.length === 0 ? '\nPASS' : `\nFAIL: ${failed.join('; ')}`);
    return failed.length === 0 ? 0 : 1;
  } finally {
    say('stopping every server and process…');
    await world.stop();
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`\nFAIL: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
