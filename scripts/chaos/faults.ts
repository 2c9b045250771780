// Applies the schedule's faults to the world, each at its instant, and heals each after its
// duration, writing down when each really started and healed and which process lost which backend
// meanwhile (history.ts AppliedFault). How each kind is made:
// - kill: SIGKILL, then the restart systemd makes (Restart=always) after the fault's delay; healed
//   once the new process is ready.
// - pause: SIGSTOP, then SIGCONT (a long garbage collection, a frozen VM).
// - redis-restart-empty: Redis killed and started again without its data; redis-flush: FLUSHALL.
// - postgres-restart: an immediate-mode stop (a crash), then a start on the same data.
// - halt: the object store's process SIGSTOPped (s3rver and its conditional-writes proxy), or every
//   gateway's link to the CDN a black hole (nginx holds its cache; what a CDN that stops answering
//   looks like from the gateways).
// - slow: every link to the store or to the CDN adds latency.
// - latency, reset, blackhole: one link's fault proxy.
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { Fault, FaultProxy } from '../../test/support/fault-proxy.ts';
import type { AppliedFault, Backend } from './history.ts';
import { LINKS, linkName, PROCESSES, type ScheduledFault } from './schedule.ts';
import type { ChaosWorld } from './world.ts';

type Affects = AppliedFault['affects'];

const now = () => performance.now();

const everyProcessLoses = (backend: Backend, processes: readonly string[] = PROCESSES): Affects =>
  processes.filter((process) => LINKS[process as (typeof PROCESSES)[number]].includes(backend)).map((process) => ({ process, backend }));

const linksTo = (world: ChaosWorld, backend: string) =>
  PROCESSES.filter((process) => LINKS[process].includes(backend)).map((process) => world.links.get(linkName(process, backend))!);

/** Applies `fault` now and resolves once it is healed; `applied` is filled in as it goes (and left with healedAt undefined if healing failed). */
export async function applyFault(world: ChaosWorld, fault: ScheduledFault, applied: AppliedFault, log: (line: string) => void): Promise<void> {
  applied.startedAt = now();
  const { kind, target, durationMs } = fault;
  switch (kind) {
    case 'kill': {
      applied.affects = [{ process: target, backend: 'itself' }];
      await world.processes.get(target)!.kill(durationMs);
      break;
    }
    case 'pause': {
      applied.affects = [{ process: target, backend: 'itself' }];
      const process = world.processes.get(target)!;
      process.signal('SIGSTOP');
      await sleep(durationMs);
      process.signal('SIGCONT');
      break;
    }
    case 'redis-restart-empty': {
      applied.affects = everyProcessLoses('redis');
      await world.redis.halt();
      await sleep(durationMs);
      await world.redis.replace();
      break;
    }
    case 'redis-flush': {
      applied.affects = everyProcessLoses('redis');
      const client = new Redis(world.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await client.connect();
        await client.flushall();
      } finally {
        client.disconnect();
      }
      break;
    }
    case 'postgres-restart': {
      applied.affects = everyProcessLoses('postgres');
      await world.postgres.halt();
      await sleep(durationMs);
      await world.postgres.resume();
      break;
    }
    case 'halt': {
      if (target === 'store') {
        // The gateways' CDN asks the store for what it has not cached: it is lost to them too.
        applied.affects = [...everyProcessLoses('store'), ...everyProcessLoses('cdn')];
        process.kill(world.bucket.pid, 'SIGSTOP');
        try {
          await sleep(durationMs);
        } finally {
          process.kill(world.bucket.pid, 'SIGCONT');
        }
      } else {
        applied.affects = everyProcessLoses('cdn');
        await onLinks(linksTo(world, 'cdn'), { kind: 'blackhole' }, durationMs);
      }
      break;
    }
    case 'slow': {
      applied.affects = everyProcessLoses(target as Backend);
      await onLinks(linksTo(world, target), { kind: 'delay', ms: fault.delayMs! }, durationMs);
      break;
    }
    case 'latency':
    case 'reset':
    case 'blackhole': {
      const [process, backend] = target.split('→') as [string, Backend];
      applied.affects = [{ process, backend }];
      const setting = kind === 'latency' ? { kind: 'delay' as const, ms: fault.delayMs! } : { kind };
      await onLinks([world.links.get(target)!], setting, durationMs);
      break;
    }
  }
  applied.healedAt = now();
  log(`fault ${fault.id} ${kind} ${target} healed after ${((applied.healedAt - applied.startedAt) / 1000).toFixed(1)} s`);
}

async function onLinks(proxies: FaultProxy[], fault: Fault, durationMs: number): Promise<void> {
  for (const proxy of proxies) proxy.set(fault);
  try {
    await sleep(durationMs);
  } finally {
    for (const proxy of proxies) proxy.set({ kind: 'pass' });
  }
}

/**
 * Runs the schedule from `startedAt` (performance.now()): each fault at its instant, several under
 * way at once. Resolves when every fault has healed, with them as applied; `signal` stops the
 * faults not yet started (those under way still heal).
 */
export async function runSchedule(
  world: ChaosWorld,
  schedule: readonly ScheduledFault[],
  startedAt: number,
  log: (line: string) => void,
  signal: AbortSignal,
): Promise<AppliedFault[]> {
  const applied: AppliedFault[] = [];
  const underWay: Promise<void>[] = [];
  for (const fault of schedule) {
    const wait = startedAt + fault.at - now();
    if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => {});
    if (signal.aborted) break;
    const record: AppliedFault = { id: fault.id, kind: fault.kind, target: fault.target, startedAt: now(), healedAt: undefined, affects: [] };
    applied.push(record);
    log(`fault ${fault.id}: ${fault.kind} ${fault.target} for ${(fault.durationMs / 1000).toFixed(1)} s${fault.delayMs ? ` (+${fault.delayMs} ms)` : ''}`);
    underWay.push(applyFault(world, fault, record, log).catch((error: Error) => log(`fault ${fault.id} ${fault.kind} ${fault.target} FAILED to apply or heal: ${error.message}`)));
  }
  await Promise.all(underWay);
  return applied;
}
