// What a marquee process logged during the soak (LOG_FORMAT=json, one object per line): how many
// lines of each level, how many snapshots the builder published, and the first warnings and
// errors word for word, for the summary.
import type { Readable } from 'node:stream';

export interface LogTally {
  levels: Map<string, number>;
  /** Builder lines `<slug>: published <snapshotId>` (builder/runs/runner.ts). */
  published: number;
  /** The first warn/error messages. */
  problems: string[];
}

const KEPT_PROBLEMS = 5;

/** Counts from now on: what was logged before the call (the start-up) is not the soak's. */
export function tallyLog(stream: Readable): LogTally {
  const tally: LogTally = { levels: new Map(), published: 0, problems: [] };
  let pending = '';
  stream.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) count(tally, line);
  });
  return tally;
}

function count(tally: LogTally, line: string): void {
  if (line.trim() === '') return;
  let entry: { level?: unknown; message?: unknown; result?: unknown };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    entry = { level: 'unparsed', message: line };
  }
  const level = String(entry.level);
  tally.levels.set(level, (tally.levels.get(level) ?? 0) + 1);
  if (entry.result === 'published') tally.published += 1;
  if ((level === 'warn' || level === 'error' || level === 'fatal' || level === 'unparsed') && tally.problems.length < KEPT_PROBLEMS) {
    tally.problems.push(`${level}: ${String(entry.message).slice(0, 300)}`);
  }
}
