// Applies the schedule's faults to the world, each at its instant, and heals each after its
// duration, writing down when each really started and healed and which process lost which backend
// meanwhile (history.ts AppliedFault). How each kind is made:
// - kill: SIGKILL, then the restart systemd makes (Restart=always) after the fault's delay; healed
//   once the new process is ready.
// - kill-at-pointer: a builder killed at a set moment of a publish (builder/publish.ts): it has
//   written a new manifest, appended it to the publication log, and is writing the pointer that
//   names it. Seen on the builder's link to the store: a PUT of the organization's manifest, then a
//   PUT of its pointer whose body names that manifest (the append lies between the two: a publish
//   whose append fails writes no pointer). At that chunk the link becomes a black hole, so the
//   pointer write never reaches the store, and the builder is SIGKILLed; the link is lifted before
//   the restart, the dead process's connections long closed. Its history then holds a logged
//   manifest that never became current (AppliedFault.interrupted). No such write within
//   POINTER_WAIT_MS: killed where it is, as 'kill' does.
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
import { LINKS, linkName, POINTER_WAIT_MS, PROCESSES, resourcesOf, type ScheduledFault } from './schedule.ts';
import type { ChaosWorld } from './world.ts';

type Affects = AppliedFault['affects'];

const now = () => performance.now();

const everyProcessLoses = (backend: Backend, processes: readonly string[] = PROCESSES): Affects =>
  processes.filter((process) => LINKS[process as (typeof PROCESSES)[number]].includes(backend)).map((process) => ({ process, backend }));

const linksTo = (world: ChaosWorld, backend: string) =>
  PROCESSES.filter((process) => LINKS[process].includes(backend)).map((process) => world.links.get(linkName(process, backend))!);

/**
 * Applies `fault` now and resolves once it is healed; `applied` is filled in as it goes (and left
 * with healedAt undefined if healing failed). `release` hands back one of its resources before the
 * heal, once the fault no longer acts on it.
 */
export async function applyFault(
  world: ChaosWorld,
  fault: ScheduledFault,
  applied: AppliedFault,
  log: (line: string) => void,
  release: (resource: string) => void = () => {},
): Promise<void> {
  applied.startedAt = now();
  const { kind, target, durationMs } = fault;
  switch (kind) {
    case 'kill': {
      applied.affects = [{ process: target, backend: 'itself' }];
      await world.processes.get(target)!.kill(durationMs);
      break;
    }
    case 'kill-at-pointer': {
      applied.affects = [{ process: target, backend: 'itself' }];
      const link = world.links.get(linkName(target, 'store'))!;
      const interrupted = await pointerWriteAfterAppend(link, POINTER_WAIT_MS);
      // The fault is the kill: the builder worked normally while it was awaited.
      applied.startedAt = now();
      if (interrupted === undefined) log(`fault ${fault.id}: no pointer write of ${target} after a log append in ${POINTER_WAIT_MS / 1000} s: killed where it is`);
      else {
        applied.interrupted = interrupted;
        log(`fault ${fault.id}: ${target} killed at its pointer write of ${interrupted.organizationId}, snapshot ${interrupted.snapshotId} logged and not current`);
      }
      const lift = () => {
        link.set({ kind: 'pass' });
        release(linkName(target, 'store'));
      };
      try {
        await world.processes.get(target)!.kill(durationMs, lift);
      } finally {
        lift();
      }
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

/** A manifest's write and a pointer's, as request lines on a link to the store (S3 path style: /bucket/prefix/orgs/…). */
const MANIFEST_PUT = /^PUT \S*\/orgs\/([^/\s]+)\/snapshots\/([^/?\s]+)\.json/gm;
const POINTER_PUT = /^PUT \S*\/orgs\/([^/\s]+)\/current\.json/m;
const POINTER_NAMES = /"snapshotId":"([^"]+)"/;

/**
 * Resolves when a pointer write on `link` names the manifest the same organization's last manifest
 * write on it named, with the link made a black hole at the chunk that says so (it and all after are
 * held); undefined after `waitMs`, the link untouched. The pointer's body may come in a chunk after
 * its request line; a body naming another snapshot (a reactivation pointing back) is let through.
 */
function pointerWriteAfterAppend(link: FaultProxy, waitMs: number): Promise<{ organizationId: string; snapshotId: string } | undefined> {
  return new Promise((resolve) => {
    /** Organization → the snapshot its last manifest write named. */
    const written = new Map<string, string>();
    let pointer: { organizationId: string; snapshotId: string; text: string } | undefined;
    const done = (result: { organizationId: string; snapshotId: string } | undefined) => {
      clearTimeout(timer);
      unwatch();
      resolve(result);
    };
    const unwatch = link.watch((chunk) => {
      const text = chunk.toString('latin1');
      for (const [, organizationId, snapshotId] of text.matchAll(MANIFEST_PUT)) written.set(organizationId!, snapshotId!);
      const request = POINTER_PUT.exec(text);
      if (request !== null) {
        const snapshotId = written.get(request[1]!);
        pointer = snapshotId === undefined ? undefined : { organizationId: request[1]!, snapshotId, text: text.slice(request.index) };
      } else if (pointer !== undefined) pointer.text += text;
      const named = pointer === undefined ? null : POINTER_NAMES.exec(pointer.text);
      if (pointer === undefined || named === null) return;
      const { organizationId, snapshotId } = pointer;
      pointer = undefined;
      if (named[1] !== snapshotId) return;
      // Before this listener returns: the proxy then holds this very chunk.
      link.set({ kind: 'blackhole' });
      done({ organizationId, snapshotId });
    });
    const timer = setTimeout(() => done(undefined), waitMs);
  });
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
 * way at once. A fault whose resources (schedule.ts resourcesOf) another fault still holds waits
 * for it to heal or to hand it back (a kill at the pointer, its link once lifted): the draw keeps
 * them apart within a seed's part, but a fault of one part may still hold a process or a link when
 * the next part's first faults come, and a restart or a kill's wait for its moment may outlast what
 * the draw allowed. Resolves when every fault has healed, with them as applied; `signal` stops the
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
  /** Each resource's last fault, settled once it healed or handed the resource back. */
  const held = new Map<string, Promise<void>>();
  for (const fault of schedule) {
    const wait = startedAt + fault.at - now();
    if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => {});
    if (signal.aborted) break;
    const resources = resourcesOf(fault);
    const before = resources.flatMap((resource) => held.get(resource) ?? []);
    const releases = new Map<string, () => void>();
    for (const resource of resources) held.set(resource, new Promise<void>((free) => releases.set(resource, free)));
    const due = now();
    const run = Promise.all(before)
      .then(async () => {
        if (signal.aborted) return;
        const record: AppliedFault = { id: fault.id, kind: fault.kind, target: fault.target, startedAt: now(), healedAt: undefined, affects: [] };
        applied.push(record);
        const waited = now() - due > 100 ? ` (after ${((now() - due) / 1000).toFixed(1)} s waiting for a fault on ${resources.join(', ')} to heal)` : '';
        log(`fault ${fault.id}: ${fault.kind} ${fault.target} for ${(fault.durationMs / 1000).toFixed(1)} s${fault.delayMs ? ` (+${fault.delayMs} ms)` : ''}${waited}`);
        await applyFault(world, fault, record, log, (resource) => releases.get(resource)?.()).catch((error: Error) =>
          log(`fault ${fault.id} ${fault.kind} ${fault.target} FAILED to apply or heal: ${error.message}`),
        );
      })
      .finally(() => {
        for (const free of releases.values()) free();
      });
    underWay.push(run);
  }
  await Promise.all(underWay);
  return applied;
}
