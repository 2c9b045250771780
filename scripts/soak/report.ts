// The soak's summary: the memory curve and its verdict per process, latency per minute and
// overall, answers by status, the checks with their counts, and the failed ones by name, which
// decide PASS or FAIL.
import { FLAT_SLACK_MB, FLAT_SLACK_SHARE, percentile } from './measures.ts';
import { BUCKET, LOAD_GENERATOR, type Tally } from './run.ts';
import type { SoakProcess } from './world.ts';

export interface AfterRun {
  /** Processes that were gone, or a gateway whose /readyz did not answer 200, after the run. */
  unhealthy: string[];
  interrupted: boolean;
  keys: { created: number; revoked: number };
}

type Write = (text: string) => void;

/** Prints everything; returns the checks that failed (none: PASS). */
export function report(tally: Tally, processes: SoakProcess[], after: AfterRun, write: Write): string[] {
  const flat = printMemory(tally, write);
  printLatency(tally, write);
  write(`\nanswers by status\n${table(['status', 'count'], sortedRows(tally.statuses))}`);
  write(`\nrequests by route (revoked-key probes apart)\n${table(['route', 'count'], sortedRows(tally.perRoute))}`);
  write(`\nplatform changes (SQL) during the run\n${table(['change', 'count'], sortedRows(tally.changes))}`);
  const failed = printChecks(tally, processes, after, flat, write);
  printProblems(tally, processes, write);
  return failed;
}

/** The curve, and per process its figures and whether it stayed flat; returns the flat verdicts' summary. */
function printMemory(tally: Tally, write: Write): { ok: boolean; summary: string } {
  const curve = tally.rss.samples.map(({ at, mb }) => [String(at), ...mb.map((value) => (value === undefined ? 'gone' : value.toFixed(0)))]);
  write(`\nRSS (MB), sampled every 10 s\n${table(['t (s)', ...tally.rss.names], curve)}`);
  const verdicts = tally.rss.verdicts(tally.seconds);
  const rows = verdicts.map((v) => [v.name, mb(v.start), mb(v.min), mb(v.max), mb(v.end), mb(v.level), mb(v.endMedian), cores(tally.cpu.get(v.name)), v.flat ? 'yes' : 'NO']);
  write(
    `\nper process (MB): level = median from 30% to 50% of the run, end = median of its last fifth; flat: end ≤ level + max(${FLAT_SLACK_MB} MB, ${FLAT_SLACK_SHARE * 100}%)\n` +
      table(['process', 'start', 'min', 'max', 'last', 'level', 'end', 'CPU (cores)', 'flat'], rows),
  );
  const descriptors = tally.bucketDescriptors;
  write(
    `CPU of the rig (cores): load generator ${cores(tally.cpu.get(LOAD_GENERATOR))}, s3rver ${cores(tally.cpu.get(BUCKET))}; ` +
      `s3rver's open files ${descriptors.start ?? 'gone'} → ${descriptors.end ?? 'gone'}\n`,
  );
  return { ok: verdicts.every((v) => v.flat), summary: verdicts.map((v) => `${v.name} ${mb(v.level)}→${mb(v.endMedian)}`).join(', ') };
}

function printLatency(tally: Tally, write: Write): void {
  const row = (label: string, values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return [label, String(sorted.length), ms(percentile(sorted, 50)), ms(percentile(sorted, 99)), ms(sorted.at(-1))];
  };
  const rows = [...tally.latencies.map((values, index) => row(String(index + 1), values ?? [])), row('all', tally.latencies.flat())];
  write(`\nlatency (ms, client side: scheduled send → end of body)\n${table(['minute', 'answers', 'p50', 'p99', 'max'], rows)}`);
}

/** The checks, printed; returns the names of those that failed. */
function printChecks(tally: Tally, processes: SoakProcess[], after: AfterRun, flat: { ok: boolean; summary: string }, write: Write): string[] {
  const failed: string[] = [];
  const check = (name: string, ok: boolean, value: string) => {
    if (!ok) failed.push(name);
    return [name, value, ok ? 'ok' : 'FAILED'];
  };
  const n = (verdict: Parameters<typeof tally.verdicts.get>[0]) => tally.verdicts.get(verdict) ?? 0;
  const published = processes.find((process) => process.name === 'builder')?.log.published ?? 0;
  const rows = [
    ['requests sent', `${tally.sent} in ${tally.seconds.toFixed(0)} s (${(tally.sent / tally.seconds).toFixed(0)}/s; per gateway ${tally.perGateway.join(' / ')})`, ''],
    check('5xx answers', n('server error') === 0, String(n('server error'))),
    check('wrong-organization bodies', n('wrong organization') === 0, String(n('wrong organization'))),
    check(
      'revoked keys served',
      n('revoked key served') === 0,
      `${n('revoked key served')} (${tally.probes} probes; ${after.keys.revoked} keys revoked, ${after.keys.created} created)`,
    ),
    check('unexpected statuses (429, 401 to a valid key, 404 to a published event…)', n('unexpected status') === 0, String(n('unexpected status'))),
    check('bodies not as asked (JSON, ETag, page, errorCode)', n('bad body') === 0, String(n('bad body'))),
    check('requests unanswered (errors, timeouts)', n('no answer') === 0, String(n('no answer'))),
    check(
      'requests not sent (rate not sustained)',
      tally.notSent === 0,
      `${tally.notSent} (at most ${tally.maxInFlight} in flight; scheduler late by ${tally.maxLagMs.toFixed(0)} ms at worst)`,
    ),
    check('RSS flat', flat.ok, flat.summary),
    check('builds published during the run', published > 0, String(published)),
    check('background steps (changes, keys) failed', tally.stepErrors.length === 0, String(tally.stepErrors.length)),
    check('processes alive and healthy after the run', after.unhealthy.length === 0, after.unhealthy.join('; ') || 'all'),
    check('ran to the end', !after.interrupted, after.interrupted ? 'interrupted' : 'yes'),
  ];
  write(`\nchecks\n${table(['check', 'value', ''], rows)}`);
  return failed;
}

/** The processes' warnings and errors, the first failures word for word, the failed background steps. */
function printProblems(tally: Tally, processes: SoakProcess[], write: Write): void {
  const levels = processes.map((process) => [process.name, [...process.log.levels].map(([level, count]) => `${level} ${count}`).join(', ') || 'nothing']);
  write(`\nlog lines by level (during the run)\n${table(['process', 'levels'], levels)}`);
  for (const process of processes) for (const problem of process.log.problems) write(`  ${process.name}: ${problem}\n`);
  if (tally.failures.length > 0) write(`\nfirst failures:\n${tally.failures.map((failure) => `  - ${failure}`).join('\n')}\n`);
  if (tally.stepErrors.length > 0)
    write(
      `\nbackground steps that failed:\n${tally.stepErrors
        .slice(0, 10)
        .map((error) => `  - ${error}`)
        .join('\n')}\n`,
    );
}

function sortedRows(counts: Map<string, number>): string[][] {
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => [name, String(count)]);
}

/** Left-aligned columns, two spaces apart. */
function table(head: string[], rows: string[][]): string {
  const widths = head.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return `${[line(head), ...rows.map(line)].join('\n')}\n`;
}

const mb = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '—');
const ms = (value: number | undefined) => (value !== undefined && Number.isFinite(value) ? value.toFixed(1) : '—');
const cores = (value: number | undefined) => (value === undefined ? '—' : value.toFixed(2));
