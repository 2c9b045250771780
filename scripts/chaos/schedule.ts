// The campaign's fault schedule, drawn from its seed alone: the same seed and the same campaign
// length give the same faults, at the same instants, on the same targets, for the same durations,
// so a failed campaign is replayed by running it again with the seed it printed. Pure: no clock, no
// process; faults.ts applies what this draws.
//
// Faults arrive about FAULTS_PER_MINUTE, in bursts (BURST_SHARE of them within seconds of the one
// before) between Poisson gaps, each lasting a few seconds, so they overlap: a fault on Redis while a builder is paused and a gateway's link to the
// CDN drops everything. Two faults never hold the same resource at once (one link cannot be both
// slow and a black hole; a paused gateway is not also killed): a draw that meets a busy resource
// waits for it, so every fault drawn is applied.
//
// Every schedule starts with a builder killed at its pointer write ('kill-at-pointer', the builder
// chosen by the seed): its publish has logged its manifest and not yet named it in the pointer, the
// publication log's hardest moment (faults.ts). More of them are drawn like any other kind.

export type FaultKind = 'kill' | 'kill-at-pointer' | 'pause' | 'redis-restart-empty' | 'redis-flush' | 'postgres-restart' | 'halt' | 'slow' | 'latency' | 'reset' | 'blackhole';

export interface ScheduledFault {
  id: number;
  kind: FaultKind;
  /** A process (`gateway-1`), a backend (`redis`, `postgres`, `store`, `cdn`) or a link (`builder-2→store`). */
  target: string;
  /** Milliseconds from the start of the fault window. */
  at: number;
  /** How long it lasts before it is healed (a kill: how long systemd waits before the restart; a kill at the pointer: the same, after the wait for its moment). */
  durationMs: number;
  /** Extra latency for 'slow' and 'latency', in ms. */
  delayMs?: number;
}

/** The processes of the campaign and the backends each one uses, through a link of its own. */
export const PROCESSES = ['gateway-1', 'gateway-2', 'builder-1', 'builder-2'] as const;
export const LINKS: Record<(typeof PROCESSES)[number], readonly string[]> = {
  'gateway-1': ['redis', 'store', 'cdn'],
  'gateway-2': ['redis', 'store', 'cdn'],
  'builder-1': ['postgres', 'redis', 'store'],
  'builder-2': ['postgres', 'redis', 'store'],
};
export const linkName = (process: string, backend: string): string => `${process}→${backend}`;
const ALL_LINKS = PROCESSES.flatMap((process) => LINKS[process].map((backend) => linkName(process, backend)));
const BUILDERS = PROCESSES.filter((process) => process.startsWith('builder'));

/**
 * How long a 'kill-at-pointer' waits for its builder to write a pointer after its log append
 * (faults.ts); at that bound it kills the builder where it is. Builders publish new content every
 * few seconds under the campaign's changes, so the wait rarely comes near it.
 */
export const POINTER_WAIT_MS = 20_000;
/** The restart delay of the kill at the pointer that starts every schedule. */
const OPENING_KILL_DELAY_MS = 1_000;

export const FAULTS_PER_MINUTE = 7.5;
/** The share of faults that strike within about BURST_GAP_MS of the one before. */
const BURST_SHARE = 0.4;
const BURST_GAP_MS = 1_500;

/** How likely each kind is, and how to draw its target and its length. */
const KINDS: Array<{ kind: FaultKind; weight: number; target(random: Random): string; durationMs: [number, number]; delayMs?: [number, number] }> = [
  { kind: 'kill', weight: 3, target: (r) => r.pick(PROCESSES), durationMs: [500, 2_000] },
  { kind: 'kill-at-pointer', weight: 1.5, target: (r) => r.pick(BUILDERS), durationMs: [500, 2_000] },
  { kind: 'pause', weight: 3, target: (r) => r.pick(PROCESSES), durationMs: [1_000, 6_000] },
  { kind: 'redis-restart-empty', weight: 1, target: () => 'redis', durationMs: [500, 3_000] },
  { kind: 'redis-flush', weight: 1, target: () => 'redis', durationMs: [0, 0] },
  { kind: 'postgres-restart', weight: 1.5, target: () => 'postgres', durationMs: [500, 4_000] },
  { kind: 'halt', weight: 2, target: (r) => r.pick(['store', 'cdn']), durationMs: [1_000, 6_000] },
  { kind: 'slow', weight: 2, target: (r) => r.pick(['store', 'cdn']), durationMs: [2_000, 10_000], delayMs: [100, 800] },
  { kind: 'latency', weight: 4, target: (r) => r.pick(ALL_LINKS), durationMs: [2_000, 10_000], delayMs: [50, 1_500] },
  { kind: 'reset', weight: 3, target: (r) => r.pick(ALL_LINKS), durationMs: [1_000, 5_000] },
  { kind: 'blackhole', weight: 3, target: (r) => r.pick(ALL_LINKS), durationMs: [1_000, 6_000] },
];

/**
 * The resources a fault holds while it lasts: its target, and for a fault on a whole backend every
 * link to it (slowing every link to the store while one of them is a black hole would undo the
 * black hole when the slowness heals); a kill at the pointer also holds its builder's link to the
 * store, which it black-holes to keep the pointer write from the store.
 */
export function resourcesOf(fault: Pick<ScheduledFault, 'kind' | 'target'>): string[] {
  if (fault.kind === 'slow' || fault.kind === 'halt') return [fault.target, ...ALL_LINKS.filter((link) => link.endsWith(`→${fault.target}`))];
  if (fault.kind === 'kill-at-pointer') return [fault.target, linkName(fault.target, 'store')];
  return [fault.target];
}

/**
 * Until when a fault holds its resources, from its instant: its length, and a process killed is busy
 * until its restart is ready: seconds more than its delay on a busy machine (a builder's start took
 * 9 s on two cores shared with a build); kill() also waits for a restart still under way, so this
 * only keeps the faults apart as drawn. A kill at the pointer first waits for its moment.
 */
function heldUntil(kind: FaultKind, at: number, durationMs: number): number {
  if (kind === 'kill') return at + durationMs + 12_000;
  if (kind === 'kill-at-pointer') return at + POINTER_WAIT_MS + durationMs + 12_000;
  return at + durationMs + (kind.includes('restart') ? 5_000 : 500);
}

export function drawSchedule(seed: number, windowMs: number): ScheduledFault[] {
  const random = new Random(seed);
  const count = Math.max(1, Math.round((FAULTS_PER_MINUTE * windowMs) / 60_000));
  const meanGapMs = windowMs / count;
  const busyUntil = new Map<string, number>();
  // The opening kill at the pointer: it takes nothing from the random stream, so the draw below
  // draws the same kinds, targets and lengths as without it (those on its resources come later).
  const opening: ScheduledFault = { id: count + 1, kind: 'kill-at-pointer', target: BUILDERS[seed % BUILDERS.length]!, at: 0, durationMs: OPENING_KILL_DELAY_MS };
  for (const resource of resourcesOf(opening)) busyUntil.set(resource, heldUntil(opening.kind, opening.at, opening.durationMs));
  const faults: ScheduledFault[] = [opening];
  let clock = 0;
  for (let id = 1; id <= count; id++) {
    // Incidents come together: a share of the faults follow the one before within a few seconds
    // (a burst), the others after an exponential gap long enough to keep the mean rate.
    const burst = random.next() < BURST_SHARE;
    const gap = burst ? random.between(0, 2 * BURST_GAP_MS) : -Math.log(1 - random.next()) * ((meanGapMs - BURST_SHARE * BURST_GAP_MS) / (1 - BURST_SHARE));
    clock += Math.max(0, gap);
    const choice = random.weighted(KINDS);
    const target = choice.target(random);
    const durationMs = Math.round(random.between(...choice.durationMs));
    const delayMs = choice.delayMs && Math.round(random.between(...choice.delayMs));
    const resources = resourcesOf({ kind: choice.kind, target });
    // Waits for its resources; the stream goes on from the instant drawn, so faults still crowd.
    const at = Math.round(Math.max(clock, ...resources.map((resource) => busyUntil.get(resource) ?? 0)));
    const holds = heldUntil(choice.kind, at, durationMs);
    for (const resource of resources) busyUntil.set(resource, holds);
    faults.push({ id, kind: choice.kind, target, at, durationMs, ...(delayMs === undefined ? {} : { delayMs }) });
  }
  return faults.sort((a, b) => a.at - b.at || a.id - b.id);
}

/** How many pairs of faults were under way at the same instant (if applied on time). */
export function overlaps(faults: readonly ScheduledFault[]): number {
  let pairs = 0;
  for (const [i, a] of faults.entries()) for (const b of faults.slice(i + 1)) if (b.at < a.at + a.durationMs && a.at < b.at + b.durationMs) pairs++;
  return pairs;
}

/** mulberry32: small, fast and the same on every machine for the same seed. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** In [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  between(low: number, high: number): number {
    return low + this.next() * (high - low);
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  weighted<T extends { weight: number }>(items: readonly T[]): T {
    let roll = this.next() * items.reduce((sum, item) => sum + item.weight, 0);
    return items.find((item) => (roll -= item.weight) < 0) ?? items.at(-1)!;
  }
}

/**
 * One campaign, several seeds: the fault window divided evenly, each part the schedule of its own
 * seed (as drawn for a window of that length), its faults numbered from 1,000 × its place. So a
 * run shares its set-up between a fixed seed and a random one, and each part replays alone too.
 */
export function drawSchedules(seeds: readonly number[], windowMs: number): ScheduledFault[] {
  const partMs = windowMs / seeds.length;
  return seeds.flatMap((seed, place) => drawSchedule(seed, partMs).map((fault) => ({ ...fault, id: place * 1_000 + fault.id, at: Math.round(place * partMs + fault.at) })));
}
