// What another process uses, read from Linux's /proc: what a benchmark reports of a server it
// started as a child.
import { readFileSync } from 'node:fs';

/** Resident and peak resident memory of a process, in MB. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/**
 * User + system CPU time of a process and all its threads, in microseconds (Linux counts it in
 * clock ticks of 1/100 s: a measurement of a few seconds at full load is exact to a fraction of a percent).
 */
export function cpuMicrosecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
