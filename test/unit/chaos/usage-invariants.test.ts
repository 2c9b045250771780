// The chaos campaign's usage line (scripts/chaos/usage-invariants.ts): what the builders counted per
// key and outcome against what the campaign was answered with each key. A count made twice and a
// count lost beyond a killed gateway's loss window are caught, planted alone in the recorded
// history of campaign-history.ts (gateway-2 killed at 71.4 s, restarted at 71.9 s; with moves every
// 2 s and 2 s of slack its window opens at 67.4 s); a loss inside that window passes, and so do the
// answers no gateway charges to a key.
import { describe, expect, it } from 'vitest';
import type { CountedUsage, History, RequestRecord } from '../../../scripts/chaos/history.ts';
import { checkAll, INVARIANTS } from '../../../scripts/chaos/invariants.ts';
import { checkUsage } from '../../../scripts/chaos/usage-invariants.ts';
import { expectOnly, planted, request, validHistory } from './campaign-history.ts';

/** The counted row of a key and outcome in `history`. */
function row(history: History, keyId: string, status: number, errorCode = ''): CountedUsage {
  const found = history.usage.counted.find((counted) => counted.keyId === keyId && counted.status === status && counted.errorCode === errorCode);
  if (found === undefined) throw new Error(`no counted row for ${keyId} ${status} ${errorCode}`);
  return found;
}

/** Answered, and counted by no one: the counts stay those of the history before it (a copy, so planted() keeps them). */
function answeredNotCounted(history: History, ...records: RequestRecord[]): void {
  history.usage.counted = history.usage.counted.map((counted) => ({ ...counted }));
  history.requests.push(...records);
}

const violationsOf = (history: History) => checkAll(history).flatMap((result) => result.violations);
const notesOf = (history: History) => checkUsage(history).notes ?? [];

describe('usage counts are exact within the loss bound', () => {
  it('judges every answer sent with a key, the warm-up, the final answers and the fresh build’s gateway among them', () => {
    const history = validHistory();
    const result = checkUsage(history);
    expect(result.violations).toEqual([]);
    expect(result.checked).toBe(history.requests.length + history.usage.otherAnswers.length);
    expect(result.notes).toContain('0 lost within the bound, 0 counted of the unanswered or unsure');
    expect(result.notes).toContainEqual(expect.stringMatching(/^4 keys: answered 46, counted 46; 1 unanswered, 0 unsure, 1 charged to no key/));
    expect(result.notes).toContainEqual(expect.stringMatching(/fault #5 on gateway-2 at 71\.400 s: 67\.400 s–71\.900 s, 0 answers of 0 keys$/));
  });

  it('catches a request counted twice', () => {
    expectOnly(
      planted((history) => {
        row(history, 'key-b1', 200).requests += 1;
      }),
      INVARIANTS.usage,
      /^key-b1 \(org-b\): counted 10 in all, more than the 9 requests sent with it; /,
      /200 counted 7, answered 6 \(0 of them in a killed gateway's loss window\), 0 unsure, 0 unanswered: 1 counted more than sent$/,
    );
  });

  it('lets a request that got no answer have been counted, once', () => {
    // key-a1's request to gateway-2 at 71.5 s was cut by the kill: the gateway may have counted it.
    expect(violationsOf(planted((history) => void (row(history, 'key-a1', 200).requests += 1)))).toEqual([]);
    expectOnly(
      planted((history) => {
        row(history, 'key-a1', 200).requests += 2;
      }),
      INVARIANTS.usage,
      /^key-a1 \(org-a\): counted 26 in all, more than the 25 requests sent with it; 200 counted 25, answered 23 .* 1 unanswered: 1 counted more than sent$/,
    );
  });

  it('catches a count lost beyond the bound', () => {
    expectOnly(
      planted((history) => {
        row(history, 'key-c1', 403, 'ORGANIZATION_SUSPENDED').requests -= 1;
      }),
      INVARIANTS.usage,
      /^key-c1 \(org-c\): 403 ORGANIZATION_SUSPENDED counted 6, answered 7 \(0 of them in a killed gateway's loss window\), 0 unsure, 0 unanswered: 1 lost beyond the bound$/,
    );
  });

  it('lets a killed gateway lose what it answered within its loss window, and nothing before it or at another gateway', () => {
    const within = planted((history) => answeredNotCounted(history, request('gateway-2', 'key-b1', 'org-b', 67_400, 200), request('gateway-2', 'key-b1', 'org-b', 71_000, 200)));
    expect(violationsOf(within)).toEqual([]);
    expect(notesOf(within)).toContain('2 lost within the bound, 0 counted of the unanswered or unsure');
    expect(notesOf(within)).toContainEqual(expect.stringMatching(/67\.400 s–71\.900 s, 2 answers of 1 keys$/));
    expectOnly(
      planted((history) => answeredNotCounted(history, request('gateway-2', 'key-b1', 'org-b', 67_300, 200))),
      INVARIANTS.usage,
      /^key-b1 \(org-b\): 200 counted 6, answered 7 \(0 of them in a killed gateway's loss window\), .*: 1 lost beyond the bound$/,
    );
    expectOnly(
      planted((history) => answeredNotCounted(history, request('gateway-1', 'key-b1', 'org-b', 69_000, 200))),
      INVARIANTS.usage,
      /^key-b1 .*: 1 lost beyond the bound$/,
    );
    // Within the window, but more than it answered.
    expectOnly(
      planted((history) => {
        answeredNotCounted(history, request('gateway-2', 'key-b1', 'org-b', 69_000, 200));
        row(history, 'key-b1', 200).requests -= 1;
      }),
      INVARIANTS.usage,
      /^key-b1 \(org-b\): 200 counted 5, answered 7 \(1 of them in a killed gateway's loss window\), .*: 1 lost beyond the bound$/,
    );
  });

  it('holds a campaign with no gateway killed to the exact count', () => {
    const withoutKill = (history: History) => {
      history.faults = history.faults.filter((fault) => fault.id !== 5);
    };
    expect(notesOf(planted(withoutKill))).toContain('no gateway killed: every key counted exactly as answered (and at most its unanswered)');
    expectOnly(
      planted((history) => {
        withoutKill(history);
        answeredNotCounted(history, request('gateway-2', 'key-b1', 'org-b', 71_000, 200));
      }),
      INVARIANTS.usage,
      /^key-b1 \(org-b\): 200 counted 6, answered 7 .*: 1 lost beyond the bound$/,
    );
  });

  it('widens a loss window across a fault that kept the gateway from moving its counts', () => {
    // gateway-2 could not reach Redis from 60 to 66 s: it held its counts, and lost them when killed at 71.4 s.
    const cutOff = (history: History) =>
      history.faults.push({ id: 7, kind: 'blackhole', target: 'gateway-2→redis', startedAt: 60_000, healedAt: 66_000, affects: [{ process: 'gateway-2', backend: 'redis' }] });
    const held = planted((history) => {
      cutOff(history);
      answeredNotCounted(history, request('gateway-2', 'key-b1', 'org-b', 58_000, 200));
    });
    expect(violationsOf(held)).toEqual([]);
    // key-c1's 403 at 60 s is in it too.
    expect(notesOf(held)).toContainEqual(expect.stringMatching(/fault #5 on gateway-2 at 71\.400 s: 56\.000 s–71\.900 s, widened by fault #7 blackhole, 2 answers of 2 keys$/));
    expectOnly(
      planted((history) => {
        cutOff(history);
        answeredNotCounted(history, request('gateway-2', 'key-b1', 'org-b', 55_900, 200));
      }),
      INVARIANTS.usage,
      /^key-b1 .*: 1 lost beyond the bound$/,
    );
  });

  it('widens it back to an intake round before the builders went away when Redis lost the batches waiting', () => {
    // Flushed at 71 s, while PostgreSQL (down from 70 s) kept every builder's intake away: the batches
    // gateway-2 put since the last round before 70 s were lost, and it was killed before it put them again.
    const flush = (history: History) =>
      history.faults.push({
        id: 7,
        kind: 'redis-flush',
        target: 'redis',
        startedAt: 71_000,
        healedAt: 71_000,
        affects: ['builder-1', 'builder-2', 'gateway-1', 'gateway-2'].map((process) => ({ process, backend: 'redis' as const })),
      });
    const flushed = planted((history) => {
      flush(history);
      answeredNotCounted(history, request('gateway-2', 'key-b1', 'org-b', 64_000, 200));
    });
    expect(violationsOf(flushed)).toEqual([]);
    expect(notesOf(flushed)).toContainEqual(expect.stringMatching(/: 64\.000 s–71\.900 s, widened by fault #7 redis-flush, 1 answers of 1 keys$/));
    expectOnly(
      planted((history) => {
        flush(history);
        answeredNotCounted(history, request('gateway-2', 'key-b1', 'org-b', 63_900, 200));
      }),
      INVARIANTS.usage,
      /^key-b1 .*: 1 lost beyond the bound$/,
    );
  });

  it('charges no key for an unknown credential or a key that could not be checked', () => {
    // key-c1's 503 at 31 s: Redis down, gateway-2 could not check it. Counted, it is one too many.
    expectOnly(
      planted((history) => {
        history.usage.counted.push({ keyId: 'key-c1', organizationId: 'org-c', status: 503, errorCode: '', requests: 1 });
      }),
      INVARIANTS.usage,
      /^key-c1 \(org-c\): counted 11 in all, more than the 10 requests sent with it; 503 counted 1, answered 0 .*: 1 counted more than sent$/,
    );
    // A 401 for key-b1, never revoked: unknown to the gateway (created while its writer could not copy it to Redis).
    expect(
      violationsOf(
        planted((history) => {
          history.faults.push({ id: 7, kind: 'blackhole', target: 'builder-1→redis', startedAt: 62_000, healedAt: 64_000, affects: [{ process: 'builder-1', backend: 'redis' }] });
          history.changes.push({ kind: 'key.created', keyId: 'key-b2', organizationId: 'org-b', returnedAt: 63_000 });
          answeredNotCounted(history, request('gateway-1', 'key-b2', 'org-b', 64_500, 401, { errorCode: 'API_KEY_INVALID' }));
        }),
      ),
    ).toEqual([]);
    // A revoked key's 401 is charged to it, but while Redis's copy was lost it may have been unknown.
    expectOnly(
      planted((history) => answeredNotCounted(history, request('gateway-1', 'key-a2', 'org-a', 22_000, 401, { errorCode: 'API_KEY_INVALID' }))),
      INVARIANTS.usage,
      /^key-a2 \(org-a\): 401 counted 1, answered 2 .*: 1 lost beyond the bound$/,
    );
    expect(violationsOf(planted((history) => answeredNotCounted(history, request('gateway-1', 'key-a2', 'org-a', 36_000, 401, { errorCode: 'API_KEY_INVALID' }))))).toEqual([]);
  });

  it('reports counts that could not be read, once', () => {
    expectOnly(
      planted((history) => {
        history.usage = { ...history.usage, counted: [], settled: false, failure: 'connect ECONNREFUSED 127.0.0.1:5432' };
      }),
      INVARIANTS.usage,
      /^marquee_key_usage could not be read: connect ECONNREFUSED 127\.0\.0\.1:5432$/,
    );
  });
});
