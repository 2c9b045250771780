// The campaign's own stalls, recorded as faults. Every backend link runs through a fault proxy in
// the campaign's process (world.ts), and the load is sent and read from it: while its event loop
// does not run (a long collection, the machine's other work holding both cores), no byte moves
// between any Marquee process and any backend, and no answer is read. To the processes that is an
// outage of every backend at once, and the gateways rightly answer 503 to what they cannot check;
// without this record the invariants would blame them for the campaign's own pause. A stall is
// written down as a fault like any other (kind 'harness-stall'), so the report shows it in the
// fault table and a reader can tell a disturbed run from a clean one.
import type { AppliedFault, Backend, ProcessName } from './history.ts';

/** How often the watch looks at the clock. */
const TICK_MS = 50;
/** A gap this much longer than a tick is a stall: below it, the proxies' delay is within any backend's normal jitter. */
export const STALL_MS = 250;
/** Stall faults are numbered apart from the schedule's (whose later seeds count in thousands), so the report and the replay name them apart. */
const FIRST_STALL_ID = 900_000;

const EVERY_BACKEND: Array<Backend | 'itself'> = ['postgres', 'redis', 'store', 'cdn', 'itself'];

/** The stalls among consecutive clock readings: a gap over STALL_MS beyond a tick, from the reading before it to the one after. */
export function stallsOf(readings: number[], tickMs = TICK_MS): Array<{ from: number; until: number }> {
  const stalls: Array<{ from: number; until: number }> = [];
  for (let i = 1; i < readings.length; i++) {
    if (readings[i]! - readings[i - 1]! - tickMs >= STALL_MS) stalls.push({ from: readings[i - 1]!, until: readings[i]! });
  }
  return stalls;
}

/** Each stall as a fault affecting every process's every backend, and the processes themselves. */
export function stallFaults(stalls: Array<{ from: number; until: number }>, processes: ProcessName[]): AppliedFault[] {
  return stalls.map((stall, index) => ({
    id: FIRST_STALL_ID + index,
    kind: 'harness-stall',
    target: 'campaign',
    startedAt: stall.from,
    healedAt: stall.until,
    affects: processes.flatMap((process) => EVERY_BACKEND.map((backend) => ({ process, backend }))),
  }));
}

/** Watches the campaign's event loop from `start()` until `stop()`, which returns the stalls seen. */
export class StallWatch {
  private readonly readings: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  start(): void {
    this.readings.push(performance.now());
    this.timer = setInterval(() => this.readings.push(performance.now()), TICK_MS);
  }

  stop(): Array<{ from: number; until: number }> {
    clearInterval(this.timer);
    this.readings.push(performance.now());
    return stallsOf(this.readings);
  }
}
