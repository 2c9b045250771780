// A seeded chaos campaign on the production shape (`npm run chaos -- --minutes N --seed S`):
// PostgreSQL with the synthetic platform, Redis, s3rver behind nginx as the CDN, two `marquee
// builder`, two `marquee serve`, every link between them through a fault proxy of its own
// (scripts/chaos/world.ts); webhook receivers, some slow, some failing a message's first attempt
// (scripts/chaos/receivers.ts). For --minutes: steady open-loop load from many keys across every
// organization (scripts/chaos/load.ts), sites rebuilding from pinned reads and the change feed
// (scripts/chaos/sites.ts), a stream of changes (scripts/chaos/changes.ts) and the
// seed's fault schedule (scripts/chaos/schedule.ts, applied by scripts/chaos/faults.ts), several
// faults at once. Before the faults, the publication log's checkpoint is kept, as an auditor keeps
// it (scripts/chaos/publication-log.ts). After the last fault heals: the gateways' final answers
// against a fresh build of the final state, the webhook messages queued against those received, the
// durables and the audit trail's verification (scripts/chaos/final.ts), every history verified with
// the publication log and since the kept checkpoint (scripts/chaos/publication-log.ts), the snapshot
// chains the sites read (scripts/chaos/chains.ts), the usage per key the builders counted, against
// every answer the campaign got with each key (scripts/chaos/usage.ts; the gateways move their
// counts every USAGE_MOVE_SECONDS = 2 s, so that what a killed gateway may lose is a tight bound);
// then everything is stopped and every process checked gone. All of it is written down
// (scripts/chaos/history.ts), judged afterwards by scripts/chaos/invariants.ts, and reported
// (scripts/chaos/report.ts); the history and the report are written under a directory printed at
// the end. Exit status 1 on any violation, and the seed
// and the fault schedule printed: `--seed` with the same --minutes replays the same schedule.
//
//   node --import tsx scripts/chaos.ts [--minutes 30] [--seed N|random …] [--organizations 1000] [--rate 60] [--out DIR]
//
// Several --seed divide the fault window among them, in order, each part its seed's schedule: the
// suite's short campaign shares one set-up between a fixed seed and a random one.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openKeyStore } from '../records/keys/key-backends.ts';
import type { Log } from '../runtime/log.ts';
import { readChains } from './chaos/chains.ts';
import { ChangeStream } from './chaos/changes.ts';
import { runSchedule } from './chaos/faults.ts';
import { StallWatch, stallFaults } from './chaos/harness-stalls.ts';
import { expectedAnswers, pollFinal, probes, queuedMessages, readDurables, verifyAuditTrail, waitForQuiet } from './chaos/final.ts';
import type { History, ProcessRecord, RequestRecord, SiteTurn, UsageAnswer } from './chaos/history.ts';
import { checkAll } from './chaos/invariants.ts';
import { runLoad, warmUp } from './chaos/load.ts';
import { startReceivers } from './chaos/receivers.ts';
import { keepCheckpoint, markLogged, verifyHistories } from './chaos/publication-log.ts';
import { formatFaultSchedule, formatReport, passed } from './chaos/report.ts';
import { drawSchedules, overlaps, Random } from './chaos/schedule.ts';
import { runSites, SITE_SHARE } from './chaos/sites.ts';
import { readCountedUsage } from './chaos/usage.ts';
import { type ChaosWorld, PIN_WINDOW_SECONDS, startChaosWorld, USAGE_MOVE_SECONDS } from './chaos/world.ts';
import { createKeys, KeyRing } from './soak/keys.ts';
import { readPlatform } from './soak/platform.ts';

/**
 * Keys per organization at the start (more are made during the run); the load's rate per key stays
 * far under 600 a minute. --rate 60 by default: at 1,000 organizations nearly every request makes
 * its gateway re-read a pointer from the store, and at 120/s s3rver on a busy 2-core machine fell
 * behind (answers over 15 s, 503 "storage unreachable" outside any fault; 2026-11-26).
 */
const KEYS_PER_ORGANIZATION = 3;
/** The first faults come after the load has run this long, so the report's requests start on a healthy system. */
const WARM_UP_MS = 5_000;
const CHANGE_INTERVAL_MS = 1_500;
const EVENTS_PER_ORGANIZATION = 8;
const SESSIONS_PER_EVENT = 4;

interface Options {
  minutes: number;
  /** One or more: the fault window is divided among them (schedule.ts drawSchedules). */
  seeds: number[];
  organizations: number;
  rate: number;
  out: string | undefined;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '30' },
      seed: { type: 'string', multiple: true },
      organizations: { type: 'string', default: '1000' },
      rate: { type: 'string', default: '60' },
      out: { type: 'string' },
    },
  });
  const number = (name: 'minutes' | 'organizations' | 'rate', value: string) => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0) refuse(`--${name} must be a positive number, got ${value}`);
    return parsed;
  };
  // 'random' (or no --seed at all) draws one, printed with the others.
  const seeds = (values.seed ?? ['random']).map((text) => (text === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(text)));
  for (const [place, seed] of seeds.entries()) if (!Number.isInteger(seed) || seed < 0) refuse(`--seed must be a whole number or random, got ${values.seed![place]}`);
  const organizations = number('organizations', values.organizations);
  if (!Number.isInteger(organizations) || organizations < 10) refuse(`--organizations must be a whole number of at least 10, got ${values.organizations}`);
  return { minutes: number('minutes', values.minutes), seeds, organizations, rate: number('rate', values.rate), out: values.out };
}

function refuse(message: string): never {
  process.stderr.write(`chaos: ${message}\n`);
  process.exit(2);
}

/** On the history's clock (performance.now()), so that the log and the report name the same instants. */
const say = (line: string) => process.stdout.write(`[${(performance.now() / 1000).toFixed(1).padStart(6)} s] ${line}\n`);

function onInterrupt(): AbortController {
  const interrupted = new AbortController();
  const stop = (why: string) => {
    if (!interrupted.signal.aborted) say(`chaos: ${why}: stopping everything…`);
    interrupted.abort();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('uncaughtException', (error) => stop(`uncaught ${error.stack ?? error.message}`));
  process.on('unhandledRejection', (error) => stop(`unhandled rejection ${(error as Error)?.stack ?? String(error)}`));
  return interrupted;
}

/** A process still there (and not a zombie) after it was stopped. */
function running(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function main(): Promise<number> {
  const options = parseOptions();
  const interrupted = onInterrupt();
  const windowMs = options.minutes * 60_000;
  const schedule = drawSchedules(options.seeds, windowMs);
  const seedArguments = options.seeds.map((seed) => `--seed ${seed}`).join(' ');
  const out = options.out ?? (await mkdtemp(join(tmpdir(), `marquee-chaos-${options.seeds.join('-')}-`)));
  await mkdir(out, { recursive: true });
  say(
    `chaos: ${seedArguments}, ${options.minutes} min, ${options.organizations} organizations, ${options.rate} requests/s; ` +
      `${schedule.length} faults drawn (${overlaps(schedule)} overlapping pairs); output in ${out}`,
  );
  const world: ChaosWorld = await startChaosWorld(
    { organizations: options.organizations, eventsPerOrganization: EVENTS_PER_ORGANIZATION, sessionsPerEvent: SESSIONS_PER_EVENT },
    out,
    say,
    interrupted.signal,
  );
  const random = new Random(options.seeds[0]! ^ 0x5eed);
  const receivers = await startReceivers(new Random(options.seeds[0]! ^ 0xbeef));
  let changes: ChangeStream | undefined;
  const requests: RequestRecord[] = [];
  const turns: SiteTurn[] = [];
  /** The answers outside `requests` that the gateways count in the keys' usage all the same. */
  const otherAnswers: UsageAnswer[] = [];
  let history: History | undefined;
  try {
    const platform = await readPlatform(world.db);
    const keyLog: Log = { info: () => {}, warn: (message) => say(`warning: ${message}`), error: (message) => say(`error: ${message}`) };
    const keyStore = await openKeyStore({ redisUrl: world.redis.url, home: world.home }, async () => world.db, keyLog);
    const initialKeys = await createKeys(
      keyStore.keys,
      platform.organizations.map((organization) => organization.id),
      options.organizations * KEYS_PER_ORGANIZATION,
    ).finally(() => keyStore.close());
    const ring = new KeyRing(initialKeys);
    say(`${initialKeys.length} keys`);
    changes = new ChangeStream(world, platform, ring, receivers, random);
    await changes.createAdmins();
    await changes.createEndpoints();
    say(`${changes.endpoints.length} webhook endpoints, ${changes.adminsCreated.length} admin credentials`);
    // Not among the requests judged: every key asked once at each gateway, so that the campaign
    // starts on warm caches (the gateways' key verdicts, pointers and manifests) rather than
    // measuring their first fill. Their answers count in the keys' usage all the same.
    const warmed = await warmUp(world.gateways, initialKeys, otherAnswers);
    say(`warm-up: ${warmed} requests (not recorded)`);
    // What an auditor keeps before the storm; `verify --since` it at the end.
    const keptFile = join(out, 'start.checkpoint');
    const kept = await keepCheckpoint(world, keptFile);
    say('size' in kept ? `the publication log's checkpoint kept at ${kept.size} leaves (${keptFile}); the campaign starts` : `no checkpoint kept: ${kept.problem}`);
    interrupted.signal.throwIfAborted();

    const stallWatch = new StallWatch();
    stallWatch.start();
    const sampler = setInterval(() => {
      for (const process of world.processes.values()) process.sample();
    }, 1_000);
    const loadStop = new AbortController();
    const changeStop = new AbortController();
    const stopAll = () => {
      loadStop.abort();
      changeStop.abort();
    };
    interrupted.signal.addEventListener('abort', stopAll);
    const load = runLoad(platform, ring, { rate: options.rate * (1 - SITE_SHARE), gateways: world.gateways, signal: loadStop.signal }, requests);
    const stream = changes;
    const sites = runSites(
      {
        platform,
        keys: initialKeys,
        organizations: changes.webhookOrganizations,
        suspended: () => stream.suspendedOrganizations(),
        changedAt: (organizationId) => stream.lastRowChange(organizationId),
        change: (organization) => stream.touch(organization),
        random: new Random(options.seeds[0]! ^ 0x517e),
      },
      { rate: options.rate, gateways: world.gateways, signal: loadStop.signal, pinWindowMs: PIN_WINDOW_SECONDS * 1000 },
      requests,
      turns,
    );
    const changing = changes.run(CHANGE_INTERVAL_MS, changeStop.signal);
    const faultsFrom = performance.now() + WARM_UP_MS;
    const progress = setInterval(() => say(`  ${requests.length} requests answered or given up, ${changes!.changes.length} changes`), 30_000);
    // The changes stop with the fault window, so that the final state is fixed before the last heal.
    const window = setTimeout(() => changeStop.abort(), WARM_UP_MS + windowMs);
    const faults = await runSchedule(world, schedule, faultsFrom, say, interrupted.signal);
    clearTimeout(window);
    changeStop.abort();
    await changing;
    const healedAt = Math.max(performance.now() - 1, ...faults.map((fault) => fault.healedAt ?? 0));
    say(`every fault healed (${faults.length} applied); asking every gateway for every organization's answers`);

    // The load stops with the faults: after the heal the gateways answer the final rounds, whose
    // every answer is judged against the fresh build (a 503 there is a violation too).
    loadStop.abort();
    await Promise.all([load, sites]);
    const stalls = stallFaults(stallWatch.stop(), [...world.processes.keys()]);
    if (stalls.length > 0) {
      const longest = Math.max(...stalls.map((stall) => stall.healedAt! - stall.startedAt));
      say(
        `the campaign's own event loop stalled ${stalls.length} times (longest ${(longest / 1000).toFixed(1)} s): recorded as faults of every link, since no byte moved through its proxies meanwhile`,
      );
    }
    const all = probes(platform, initialKeys);
    const final: History['final'] = [];
    const rounds = await pollFinal(world, all, healedAt, final, otherAnswers);
    say(`final answers: ${final.length} in ${rounds} rounds; computing a fresh build of the final state apart`);
    // The fresh build is apart from the campaign's backends, so builds and deliveries settle meanwhile.
    const [expected, settled] = await Promise.all([expectedAnswers(world, all, say, otherAnswers), waitForQuiet(world.db, 90_000)]);
    say(`${expected.length} expected answers; builds and deliveries ${settled ? 'settled' : 'still under way after 90 s: reading what there is'}`);
    await changes.awaitPublications(performance.now() + 5_000);
    const { queued, enabledEndpoints } = await queuedMessages(world.db);
    // Each only reads: the durables, the verifications, the chains and the usage counted at once.
    // Every request is answered by now and the fresh build's gateway has moved its counts as it
    // stopped: the usage read waits until the builders' intake has taken what is left.
    const [durables, auditTrail, histories, , snapshots, counted] = await Promise.all([
      readDurables(world, {
        keys: [...initialKeys, ...changes.keysCreated].filter((key) => !changes!.revocationsTried.has(key.id)).map((key) => key.id),
        webhookSecrets: Object.fromEntries(changes.endpoints.map((endpoint) => [endpoint.id, endpoint.secret])),
        admins: changes.adminsCreated,
        auditedRequests: changes.auditedRequests,
      }),
      verifyAuditTrail(world),
      verifyHistories(world, 'size' in kept ? { file: keptFile } : kept),
      markLogged(world, faults),
      readChains(world, [...new Set(turns.map((turn) => turn.organizationId))]),
      readCountedUsage(world.db, USAGE_MOVE_SECONDS * 1000),
    ]);
    const revoked = new Set(changes.changes.flatMap((change) => (change.kind === 'key.revoked' ? [change.keyId] : [])));
    clearInterval(sampler);
    clearInterval(progress);
    interrupted.signal.removeEventListener('abort', stopAll);
    history = {
      seed: options.seeds[0]!,
      ...(options.seeds.length > 1 ? { seeds: options.seeds } : {}),
      healedAt,
      faults: [...faults, ...stalls],
      requests: requests.sort((a, b) => a.sentAt - b.sentAt),
      changes: changes.changes,
      final,
      expected,
      queued,
      received: receivers.received(),
      enabledEndpoints,
      durables,
      verifications: [auditTrail],
      publicationLog: { ...('size' in kept ? { keptSize: kept.size } : {}), verifications: histories },
      processes: [],
      pinWindowMs: PIN_WINDOW_SECONDS * 1000,
      turns,
      snapshots,
      usage: {
        moveMs: USAGE_MOVE_SECONDS * 1000,
        ...counted,
        otherAnswers,
        revocationsUnsure: [...changes.revocationsTried].filter((id) => !revoked.has(id)),
      },
    };
    if (changes.failures.length > 0) say(`${changes.failures.length} changes failed (a backend down): first: ${changes.failures[0]}`);
  } finally {
    say('stopping every server and process…');
    changes?.close();
    await receivers.close();
    await world.stop();
  }
  // By name: the processes after the first builder started together, in no set order.
  const supervised = [...world.processes.values()].sort((a, b) => a.name.localeCompare(b.name));
  const processes: ProcessRecord[] = supervised.map((process) => ({
    name: process.name,
    pid: process.pids.at(-1) ?? 0,
    peakRssMb: Math.round(process.peakRssMb),
    targetRssMb: process.targetRssMb,
    leftBehind: process.pids.some(running),
  }));
  history.processes = processes;
  for (const process of supervised) say(`${process.name}: ${process.pids.length} lives, peak RSS ${process.peakRssMb.toFixed(0)} MB`);

  const results = checkAll(history);
  const kinds = new Map<string, number>();
  for (const fault of history.faults) kinds.set(fault.kind, (kinds.get(fault.kind) ?? 0) + 1);
  const summary = [
    `${seedArguments}, ${options.minutes} min, ${options.organizations} organizations`,
    `faults: ${history.faults.length} (${[...kinds].map(([kind, count]) => `${kind} ${count}`).join(', ')})`,
    `requests: ${history.requests.length} (${history.requests.filter((request) => request.status === undefined).length} unanswered, ${history.requests.filter((request) => request.pin !== undefined).length} pinned); site turns: ${history.turns.length}`,
    `changes: ${history.changes.length}; webhook messages queued: ${history.queued.length}, received: ${history.received.length}`,
    '',
    formatReport(results),
  ];
  const ok = passed(results);
  if (!ok)
    summary.push(
      '',
      `FAILED: replay with npm run chaos -- ${seedArguments} --minutes ${options.minutes} --organizations ${options.organizations} --rate ${options.rate}`,
      formatFaultSchedule(history),
    );
  const report = summary.join('\n');
  await writeFile(join(out, 'history.json'), JSON.stringify(history));
  await writeFile(join(out, 'report.txt'), `${report}\n`);
  process.stdout.write(`\n${report}\n\nhistory and report in ${out}\n${ok ? 'PASS' : 'FAIL'}\n`);
  return ok ? 0 : 1;
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`\nFAIL: ${(error as Error).stack ?? (error as Error).message}\n`);
  process.exitCode = 1;
}
