// The chaos campaign's report: a line per invariant with its counts, a failure's violations in
// full (then counted), and for a failed run the seed and the fault schedule as applied.
import { describe, expect, it } from 'vitest';
import { checkAll, INVARIANTS } from '../../../scripts/chaos/invariants.ts';
import { formatFaultSchedule, formatReport, passed } from '../../../scripts/chaos/report.ts';
import { planted, request, validHistory } from './campaign-history.ts';

describe('formatReport', () => {
  it('writes one line per invariant with what it judged, and says that all held', () => {
    const results = checkAll(validHistory());
    const report = formatReport(results);
    expect(passed(results)).toBe(true);
    for (const invariant of Object.values(INVARIANTS)) expect(report).toMatch(new RegExp(`^ok {3}${invariant} +checked +\\d+ +violations 0$`, 'm'));
    expect(report).toMatch(/^ok {3}no revoked key served after its revocation returned +checked +1 +violations 0$/m);
    expect(report).toContain('(1 duplicate deliveries (at least once: allowed))');
    expect(report.split('\n').at(-1)).toBe('every invariant held');
  });

  it('shows a failure with its first violations in full and counts the rest', () => {
    const history = planted((history) => {
      for (const sentAt of [21_000, 22_000, 23_000, 24_000, 25_000, 26_000, 27_000]) history.requests.push(request('gateway-2', 'key-a2', 'org-a', sentAt, 200));
    });
    const results = checkAll(history);
    const report = formatReport(results, 5);
    expect(passed(results)).toBe(false);
    expect(report).toMatch(/^FAIL no revoked key served after its revocation returned +checked +8 +violations 7$/m);
    expect(report).toContain('       - gateway-2 GET /api/integration/v1/events with key-a2 (org-a) sent at 21.000 s, answered 200 at 21.020 s: key-a2 was revoked at 20.000 s');
    expect(report).not.toContain('sent at 26.000 s');
    expect(report).toContain('       … and 2 more');
    expect(report.split('\n').at(-1)).toBe('1 invariants violated');
  });
});

describe('formatFaultSchedule', () => {
  it('prints the seed and every fault as applied, in order of start, with what it affected', () => {
    const history = validHistory();
    history.faults.push({ id: 0, kind: 'pause', target: 'gateway-2', startedAt: 10_000, healedAt: undefined, affects: [{ process: 'gateway-2', backend: 'itself' }] });
    const lines = formatFaultSchedule(history).split('\n');
    expect(lines[0]).toBe('seed 28 (the same seed replays this schedule); 7 faults, the last healed at 72.000 s');
    expect(lines[1]).toMatch(/^fault +kind +target +started +healed +lasted +affects$/);
    expect(lines.slice(3).map((line) => line.split(/ {2,}/))).toEqual([
      ['#0', 'pause', 'gateway-2', '10.000 s', 'never', 'unhealed', 'gateway-2:itself'],
      ['#1', 'redis-restart-empty', 'redis', '30.000 s', '35.000 s', '5.000 s', 'builder-1:redis builder-2:redis gateway-1:redis gateway-2:redis'],
      ['#2', 'blackhole', 'gateway-1→store', '50.000 s', '56.000 s', '6.000 s', 'gateway-1:store'],
      ['#3', 'kill', 'builder-2', '52.000 s', '53.000 s', '1.000 s', 'builder-2:itself'],
      ['#6', 'kill-at-pointer', 'builder-1', '60.000 s', '61.500 s', '1.500 s', 'builder-1:itself'],
      ['#4', 'postgres-restart', 'postgres', '70.000 s', '72.000 s', '2.000 s', 'builder-1:postgres builder-2:postgres'],
      ['#5', 'kill', 'gateway-2', '71.400 s', '71.900 s', '0.500 s', 'gateway-2:itself'],
    ]);
  });
});
