// The soak's measurements: each marquee process's resident memory sampled on a schedule (VmRSS
// from /proc, Linux) with the flatness verdict, and latency percentiles.
import { readdirSync, readFileSync } from 'node:fs';

/** VmRSS in MB; undefined once the process is gone. */
export function vmRssMb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** How many file descriptors a process holds open; undefined once it is gone. */
export function openDescriptors(pid: number): number | undefined {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
}

/** Nearest rank, of numbers sorted ascending. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/**
 * Flat: once warmed up (the gateways' bounded caches filled, the first full build behind), memory
 * no longer climbs. The warm-up is the run's first 30%; the level is the median of the samples from
 * 30% to 50% of the run, the end the median of those in its last fifth (8 to 10 minutes of 10);
 * medians, because a collector's sawtooth (bin/marquee's --heap-growing-percent) moves single
 * samples by tens of MB. Flat when the end is at most the level plus the larger of FLAT_SLACK_MB
 * and FLAT_SLACK_SHARE of it.
 */
export const FLAT_SLACK_MB = 32;
export const FLAT_SLACK_SHARE = 0.15;

interface RssSample {
  /** Seconds since the run started. */
  at: number;
  /** One value per process, in the order of the curve's names; undefined: the process was gone. */
  mb: Array<number | undefined>;
}

interface RssVerdict {
  name: string;
  start: number;
  min: number;
  max: number;
  end: number;
  level: number;
  endMedian: number;
  flat: boolean;
}

export class RssCurve {
  readonly samples: RssSample[] = [];

  constructor(
    readonly names: string[],
    private readonly pids: number[],
  ) {}

  sample(at: number): void {
    this.samples.push({ at, mb: this.pids.map(vmRssMb) });
  }

  /** Per process: start, min, max, end, the level after warm-up and whether it stayed flat. */
  verdicts(runSeconds: number): RssVerdict[] {
    return this.names.map((name, index) => {
      const series = this.samples.flatMap(({ at, mb }) => (mb[index] === undefined ? [] : [{ at, mb: mb[index]! }]));
      const within = (from: number, to: number) => series.filter(({ at }) => at >= from * runSeconds && at <= to * runSeconds).map(({ mb }) => mb);
      const values = series.map(({ mb }) => mb);
      const level = median(within(0.3, 0.5));
      const endMedian = median(within(0.8, 1));
      const end = values.at(-1) ?? Number.NaN;
      const gone = series.length < this.samples.length;
      return {
        name,
        start: values[0] ?? Number.NaN,
        min: Math.min(...values),
        max: Math.max(...values),
        end,
        level,
        endMedian,
        flat: !gone && endMedian <= level + Math.max(FLAT_SLACK_MB, FLAT_SLACK_SHARE * level),
      };
    });
  }
}

/** CPU seconds (user + system) the process has used so far; undefined once it is gone. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    // After the command name (which may hold spaces, hence the last ')'): utime and stime are fields 14 and 15, in clock ticks.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK). */
const CLOCK_TICKS_PER_SECOND = 100;
