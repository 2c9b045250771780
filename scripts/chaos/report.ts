// The chaos campaign's report, as text: one line per invariant with its counts and the first
// violations in full, and for a failed run the seed and the fault schedule as applied, so that the
// failure can be replayed (the same seed draws the same schedule) and read against its faults.
// Pure: the campaign prints what these return.
import type { History } from './history.ts';
import { type InvariantResult, instant } from './describe.ts';

/** Violations shown in full per invariant; the rest are counted. */
const VIOLATIONS_SHOWN = 5;

/** Whether every invariant held. */
export const passed = (results: InvariantResult[]): boolean => results.every((result) => result.violations.length === 0);

/** One line per invariant (`ok` or `FAIL`, name, facts judged, violations), each failure's first violations and the notes under it. */
export function formatReport(results: InvariantResult[], shown = VIOLATIONS_SHOWN): string {
  const width = Math.max(...results.map((result) => result.invariant.length));
  const lines: string[] = [];
  for (const result of results) {
    const verdict = result.violations.length === 0 ? 'ok  ' : 'FAIL';
    lines.push(`${verdict} ${result.invariant.padEnd(width)}  checked ${String(result.checked).padStart(8)}  violations ${result.violations.length}`);
    for (const violation of result.violations.slice(0, shown)) lines.push(`       - ${violation}`);
    if (result.violations.length > shown) lines.push(`       … and ${result.violations.length - shown} more`);
    for (const note of (result.notes ?? []).slice(0, shown)) lines.push(`       (${note})`);
    if ((result.notes ?? []).length > shown) lines.push(`       (… and ${(result.notes ?? []).length - shown} more notes)`);
  }
  lines.push(passed(results) ? 'every invariant held' : `${results.filter((result) => result.violations.length > 0).length} invariants violated`);
  return lines.join('\n');
}

/** What a fault kept from whom; a campaign stall (harness-stalls.ts) held everything, said in words. */
function describeAffected(fault: History['faults'][number]): string {
  if (fault.kind === 'harness-stall') return 'every process, every backend (the campaign itself paused)';
  return fault.affects.map((affected) => `${affected.process}:${affected.backend}`).join(' ') || '—';
}

/** The seed and every fault as applied, in order of start: what a failed run prints so that it can be replayed and read. */
export function formatFaultSchedule(history: History): string {
  const rows = [...history.faults]
    .sort((a, b) => a.startedAt - b.startedAt || a.id - b.id)
    .map((fault) => [
      `#${fault.id}`,
      fault.kind,
      fault.target,
      instant(fault.startedAt),
      instant(fault.healedAt),
      fault.healedAt === undefined ? 'unhealed' : instant(fault.healedAt - fault.startedAt),
      describeAffected(fault),
    ]);
  const header = ['fault', 'kind', 'target', 'started', 'healed', 'lasted', 'affects'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [
    `seed ${history.seed} (the same seed replays this schedule); ${history.faults.length} faults, the last healed at ${instant(history.healedAt)}`,
    line(header),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map(line),
  ].join('\n');
}
