// Each invariant checker of the chaos campaign catches its violation, planted alone in a recorded
// history that otherwise keeps every invariant (campaign-history.ts), names what broke it, and
// leaves the other lines clean; the answers a fault excuses are shown to depend on that fault; and
// a campaign that did nothing fails.
import { describe, expect, it } from 'vitest';
import type { History } from '../../../scripts/chaos/history.ts';
import {
  checkAll,
  checkCrossOrganization,
  checkServerErrors,
  checkSuspendedOrganizations,
  checkWebhooks,
  INVARIANTS,
  REQUIRED_CHANGES,
} from '../../../scripts/chaos/invariants.ts';
import type { InvariantResult } from '../../../scripts/chaos/describe.ts';
import { EVENTS, PROFILE, request, unavailable, uncheckable, validHistory, expectOnly, planted } from './campaign-history.ts';

const named = (results: InvariantResult[], invariant: string) => results.find((result) => result.invariant === invariant)!;

describe('a campaign that kept every invariant', () => {
  it('passes every line, each having judged real facts', () => {
    const results = checkAll(validHistory());
    expect(results.map((result) => result.invariant)).toEqual(Object.values(INVARIANTS));
    for (const result of results) {
      expect(result.violations, result.invariant).toEqual([]);
      expect(result.checked, result.invariant).toBeGreaterThan(0);
    }
    expect(named(results, INVARIANTS.revokedKeys).checked).toBe(1);
    expect(named(results, INVARIANTS.suspendedOrganizations).checked).toBe(5);
    expect(named(results, INVARIANTS.serverErrors).checked).toBe(29);
    expect(named(results, INVARIANTS.pinnedCrawls).checked).toBe(10);
    expect(named(results, INVARIANTS.changeFeed).checked).toBe(11);
    expect(named(results, INVARIANTS.pinWindow).checked).toBe(3);
    expect(named(results, INVARIANTS.convergence).checked).toBe(8);
    expect(named(results, INVARIANTS.webhooks).checked).toBe(4);
  });
});

describe("no response carries another organization's data", () => {
  it("catches a body holding another organization's id", () => {
    expectOnly(
      planted((history) => history.requests.push(request('gateway-2', 'key-a1', 'org-a', 9_000, 200, { bodyOrganizations: ['org-a', 'org-b'] }))),
      INVARIANTS.crossOrganization,
      /gateway-2 GET \/api\/integration\/v1\/events with key-a1 \(org-a\) sent at 9\.000 s/,
      /holds ids of org-b$/,
    );
  });

  it("catches another organization's profile", () => {
    expectOnly(
      planted((history) => history.requests.push(request('gateway-1', 'key-a1', 'org-a', 9_000, 200, { path: PROFILE, bodyOrganizations: undefined, profileOf: 'org-c' }))),
      INVARIANTS.crossOrganization,
      /key-a1 \(org-a\)/,
      /the profile answered is org-c's/,
    );
  });

  it('judges a body by the organization the key was created for, not the one the request was filed under', () => {
    const history = planted((history) => history.requests.push(request('gateway-1', 'key-a2', 'org-b', 5_000, 200)));
    expect(checkCrossOrganization(history).violations).toEqual([
      'gateway-1 GET /api/integration/v1/events with key-a2 (org-b) sent at 5.000 s, answered 200 at 5.020 s: the key belongs to org-a, not org-b',
      'gateway-1 GET /api/integration/v1/events with key-a2 (org-b) sent at 5.000 s, answered 200 at 5.020 s: the body holds ids of org-b',
    ]);
  });
});

describe('no revoked key served after its revocation returned', () => {
  it('catches a revoked key answered 200 by a request sent after the revocation returned', () => {
    expectOnly(
      planted((history) => history.requests.push(request('gateway-2', 'key-a2', 'org-a', 25_000, 200))),
      INVARIANTS.revokedKeys,
      /gateway-2 .* with key-a2 \(org-a\) sent at 25\.000 s, answered 200/,
      /key-a2 was revoked at 20\.000 s/,
    );
  });

  it('catches a 304 as well', () => {
    expectOnly(
      planted((history) => history.requests.push(request('gateway-1', 'key-a2', 'org-a', 21_000, 304))),
      INVARIANTS.revokedKeys,
      /answered 304/,
    );
  });

  it('allows a request sent before the revocation returned, though answered after', () => {
    const history = planted((history) => history.requests.push(request('gateway-1', 'key-a2', 'org-a', 19_999, 200, { answeredAt: 20_400 })));
    expect(checkAll(history).flatMap((result) => result.violations)).toEqual([]);
  });

  it('excuses a gateway that cannot reach Redis (it answers from memory) until 3 s after Redis is back, not later', () => {
    const during = planted((history) => history.requests.push(request('gateway-1', 'key-a2', 'org-a', 37_900, 200)));
    expect(checkAll(during).flatMap((result) => result.violations)).toEqual([]);
    expectOnly(
      planted((history) => history.requests.push(request('gateway-1', 'key-a2', 'org-a', 38_100, 200))),
      INVARIANTS.revokedKeys,
      /sent at 38\.100 s/,
    );
  });

  it("excuses a revocation whose copy to Redis waited for a builder's Redis to heal, not a gateway's own link", () => {
    const builderLink = (history: History, process: string) => {
      history.faults.push({ id: 6, kind: 'blackhole', target: `${process}→redis`, startedAt: 62_000, healedAt: 64_000, affects: [{ process, backend: 'redis' }] });
      history.changes.push({ kind: 'key.revoked', keyId: 'key-b1', organizationId: 'org-b', returnedAt: 63_000 });
      history.requests.push(request('gateway-2', 'key-b1', 'org-b', 66_500, 200));
    };
    expect(checkAll(planted((history) => builderLink(history, 'builder-1'))).flatMap((result) => result.violations)).toEqual([]);
    expectOnly(
      planted((history) => builderLink(history, 'gateway-1')),
      INVARIANTS.revokedKeys,
      /gateway-2 .* key-b1 \(org-b\) sent at 66\.500 s/,
    );
  });
});

describe('no valid key answered 401', () => {
  const refused = { errorCode: 'API_KEY_INVALID' } as const;
  /** Redis flushed at 71 s, its refill held back by the PostgreSQL restart (70–72 s), gateway-2 restarted at 71.9 s. */
  const flushedDuringRestarts = (history: History) => {
    history.faults.push({
      id: 7,
      kind: 'redis-flush',
      target: 'redis',
      startedAt: 71_000,
      healedAt: 71_050,
      affects: ['builder-1', 'builder-2', 'gateway-1', 'gateway-2'].map((process) => ({ process, backend: 'redis' as const })),
    });
  };

  it('catches a key never revoked answered 401, whatever Redis went through (its copy is marked complete or the key is 503)', () => {
    expectOnly(
      planted((history) => history.requests.push(request('gateway-1', 'key-b1', 'org-b', 31_500, 401, refused))),
      INVARIANTS.validKeys,
      /gateway-1 .* with key-b1 \(org-b\) sent at 31\.500 s, answered 401/,
      /key-b1 was never revoked$/,
    );
  });

  it('does not judge a key whose revocation was tried, nor a request sent before the key was created', () => {
    const tried = planted((history) => {
      history.requests.push(request('gateway-1', 'key-a3', 'org-a', 9_000, 401, refused));
      history.usage.revocationsUnsure.push('key-a3');
      history.changes.push({ kind: 'key.created', keyId: 'key-a4', organizationId: 'org-a', returnedAt: 9_500 });
      history.requests.push(request('gateway-2', 'key-a4', 'org-a', 9_400, 401, refused));
    });
    expect(checkAll(tried).flatMap((result) => result.violations)).toEqual([]);
  });

  it("excuses a key created while its writer's Redis was away (a keeper copies it) until 3 s after the heal, not later", () => {
    const createdAway = (sentAt: number) =>
      planted((history) => {
        history.faults.push({ id: 7, kind: 'blackhole', target: 'builder-1→redis', startedAt: 62_000, healedAt: 64_000, affects: [{ process: 'builder-1', backend: 'redis' }] });
        history.changes.push({ kind: 'key.created', keyId: 'key-b2', organizationId: 'org-b', returnedAt: 63_000 });
        history.requests.push(request('gateway-2', 'key-b2', 'org-b', sentAt, 401, refused));
      });
    expect(checkAll(createdAway(66_500)).flatMap((result) => result.violations)).toEqual([]);
    expectOnly(createdAway(67_500), INVARIANTS.validKeys, /key-b2 \(org-b\) sent at 67\.500 s/);
  });

  it('excuses a gateway that started while Redis had lost its copy (it has not seen the mark yet), and no other', () => {
    const restarted = planted((history) => {
      flushedDuringRestarts(history);
      history.requests.push(request('gateway-2', 'key-b1', 'org-b', 72_100, 401, refused));
    });
    expect(checkAll(restarted).flatMap((result) => result.violations)).toEqual([]);
    expectOnly(
      planted((history) => {
        flushedDuringRestarts(history);
        history.requests.push(request('gateway-1', 'key-b1', 'org-b', 72_100, 401, refused));
      }),
      INVARIANTS.validKeys,
      /gateway-1 .* key-b1 \(org-b\) sent at 72\.100 s/,
    );
  });

  it("excuses a key that cannot be checked (503) until Redis's copy is refilled, however long a PostgreSQL restart holds the refill back, and no other 503", () => {
    const flushedAt60 = (history: History, extra: typeof unavailable) => {
      history.faults.push({
        id: 7,
        kind: 'redis-flush',
        target: 'redis',
        startedAt: 60_000,
        healedAt: 60_050,
        affects: ['builder-1', 'builder-2', 'gateway-1', 'gateway-2'].map((process) => ({ process, backend: 'redis' as const })),
      });
      history.requests.push(request('gateway-1', 'key-b1', 'org-b', 75_000, 503, extra));
    };
    expect(checkServerErrors(planted((history) => flushedAt60(history, uncheckable))).violations).toEqual([]);
    expect(checkServerErrors(planted((history) => flushedAt60(history, unavailable))).violations).toEqual([
      expect.stringMatching(/key-b1 \(org-b\) sent at 75\.000 s, answered 503 .*: no backend gateway-1 needs was down/),
    ]);
  });
});

describe('no suspended organization served after its suspension was published', () => {
  it('catches a suspended organization served 3 s after its publish by a gateway with no fault', () => {
    expectOnly(
      planted((history) => history.requests.push(request('gateway-2', 'key-c1', 'org-c', 44_000, 200))),
      INVARIANTS.suspendedOrganizations,
      /gateway-2 .* key-c1 \(org-c\) sent at 44\.000 s, answered 200/,
      /org-c was suspended at 40\.000 s, published at 41\.000 s$/,
    );
  });

  it('allows the 2 s a gateway takes to serve a publish', () => {
    const history = planted((history) => history.requests.push(request('gateway-2', 'key-c1', 'org-c', 42_900, 200)));
    expect(checkAll(history).flatMap((result) => result.violations)).toEqual([]);
  });

  it('excuses a gateway whose store link is black-holed (it serves its last good snapshot), and only that', () => {
    expect(checkSuspendedOrganizations(validHistory()).notes).toEqual([
      expect.stringMatching(/gateway-1 .* \(org-c\) sent at 51\.000 s.*excused by fault #2 blackhole on gateway-1→store/),
    ]);
    const elsewhere = planted((history) => {
      history.faults[1]!.affects = [{ process: 'gateway-2', backend: 'store' }];
    });
    expect(checkSuspendedOrganizations(elsewhere).violations).toEqual([expect.stringMatching(/^gateway-1 .* \(org-c\) sent at 51\.000 s, answered 200 .*: org-c was suspended/)]);
  });

  it('allows 32 s when the announcement of the publish may have been lost with Redis, not more', () => {
    const suspendDuringRedisFault = (history: History, servedAt: number) => {
      history.changes.push({ kind: 'organization.suspended', organizationId: 'org-b', returnedAt: 33_000, publishedAt: 34_000 });
      history.changes.push({ kind: 'organization.reactivated', organizationId: 'org-b', returnedAt: 68_000, publishedAt: 69_000 });
      history.requests.push(request('gateway-2', 'key-b1', 'org-b', servedAt, 200));
    };
    expect(checkAll(planted((history) => suspendDuringRedisFault(history, 65_900))).flatMap((result) => result.violations)).toEqual([]);
    expectOnly(
      planted((history) => suspendDuringRedisFault(history, 66_100)),
      INVARIANTS.suspendedOrganizations,
      /sent at 66\.100 s/,
      /announcement possibly lost to fault #1 redis-restart-empty on redis/,
    );
  });

  it('excuses a paused gateway answering from what it held as it resumes', () => {
    const history = planted((history) => {
      history.faults.push({ id: 6, kind: 'pause', target: 'gateway-2', startedAt: 46_000, healedAt: 47_000, affects: [{ process: 'gateway-2', backend: 'itself' }] });
      history.requests.push(request('gateway-2', 'key-c1', 'org-c', 46_500, 200, { answeredAt: 47_050 }));
    });
    expect(checkAll(history).flatMap((result) => result.violations)).toEqual([]);
  });
});

describe('every 5xx a documented 503 while a backend it needs is down', () => {
  it('catches a 500, even during a fault', () => {
    expectOnly(
      planted((history) => history.requests.push(request('gateway-2', 'key-a1', 'org-a', 31_500, 500, { errorCode: 'INTERNAL_ERROR' }))),
      INVARIANTS.serverErrors,
      /gateway-2 .* sent at 31\.500 s, answered 500/,
      /a 500, not a 503; no Retry-After; errorCode INTERNAL_ERROR, not SERVICE_UNAVAILABLE$/,
    );
  });

  it('catches a 503 without Retry-After, or with another code', () => {
    expectOnly(
      planted((history) => history.requests.push(request('gateway-2', 'key-a1', 'org-a', 31_500, 503, { errorCode: 'SERVICE_UNAVAILABLE' }))),
      INVARIANTS.serverErrors,
      /: no Retry-After$/,
    );
    expectOnly(
      planted((history) => history.requests.push(request('gateway-2', 'key-a1', 'org-a', 31_500, 503, { retryAfter: '5' }))),
      INVARIANTS.serverErrors,
      /: errorCode missing/,
    );
    expectOnly(
      planted((history) => history.requests.push(request('gateway-2', 'key-a1', 'org-a', 31_500, 503, { ...unavailable, retryAfter: 'soon' }))),
      INVARIANTS.serverErrors,
      /Retry-After "soon"/,
    );
  });

  it("catches a 503 with no fault on that gateway's backends", () => {
    expectOnly(
      planted((history) => history.requests.push(request('gateway-2', 'key-b1', 'org-b', 54_000, 503, unavailable))),
      INVARIANTS.serverErrors,
      /gateway-2 .* sent at 54\.000 s, answered 503 .*: no backend gateway-2 needs was down$/,
    );
  });

  it('catches a 503 during a PostgreSQL fault: gateways never use it', () => {
    expectOnly(
      planted((history) => history.requests.push(request('gateway-1', 'key-a1', 'org-a', 71_000, 503, unavailable))),
      INVARIANTS.serverErrors,
      /sent at 71\.000 s.*no backend gateway-1 needs/,
    );
  });

  it('catches a 503 once everything is back', () => {
    expectOnly(
      planted((history) => history.requests.push(request('gateway-1', 'key-a1', 'org-a', 82_500, 503, unavailable))),
      INVARIANTS.serverErrors,
      /sent 10\.500 s after every fault had healed \(72\.000 s\)$/,
    );
  });

  it('excuses a 503 during a Redis fault affecting that gateway, and within the recovery grace after its store came back', () => {
    expect(checkServerErrors(validHistory()).notes).toEqual(['2 × 503 during a fault', '1 requests unanswered, 0 of them outside any fault of their gateway']);
    const recovering = planted((history) => history.requests.push(request('gateway-1', 'key-b1', 'org-b', 65_900, 503, unavailable)));
    expect(checkServerErrors(recovering).violations).toEqual([]);
    // A Redis fault that loses no data (a 503 for a key not found in a copy that lost its data is excused by the loss itself, below).
    const notAffected = planted((history) => {
      history.faults[0]!.kind = 'halt';
      history.faults[0]!.affects = history.faults[0]!.affects.filter((affected) => affected.process !== 'gateway-2');
    });
    expect(checkServerErrors(notAffected).violations).toEqual([
      expect.stringMatching(/^gateway-2 .* key-c1 \(org-c\) sent at 31\.000 s, answered 503 .*no backend gateway-2 needs was down$/),
    ]);
  });
});

describe('every gateway converged within 30 s of the last heal', () => {
  const answer = (history: History, gateway: string, organizationId: string, path = EVENTS) =>
    history.final.find((final) => final.gateway === gateway && final.organizationId === organizationId && final.path === path)!;

  it('catches a stale ETag after healing', () => {
    expectOnly(
      planted((history) => {
        answer(history, 'gateway-2', 'org-a').etag = '"org-a-old"';
      }),
      INVARIANTS.convergence,
      /^gateway-2 org-a \/api\/integration\/v1\/events: answered 200 "org-a-old" at 75\.100 s; expected 200 "org-a-events"$/,
    );
  });

  it('catches an answer that came only 31 s after the heal', () => {
    expectOnly(
      planted((history) => {
        answer(history, 'gateway-1', 'org-b').at = 103_000;
      }),
      INVARIANTS.convergence,
      /^gateway-1 org-b \/api\/integration\/v1\/events: 200 "org-b-events" only at 103\.000 s, 31\.000 s after the heal$/,
    );
  });

  it('catches a gateway that answered nothing for an organization (an answer before the heal proves nothing), or the wrong status', () => {
    expectOnly(
      planted((history) => {
        history.final = history.final.filter((final) => final !== answer(history, 'gateway-2', 'org-b'));
      }),
      INVARIANTS.convergence,
      /^gateway-2 org-b .*: no answer after the heal at 72\.000 s; expected 200 "org-b-events"$/,
    );
    expectOnly(
      planted((history) => {
        answer(history, 'gateway-2', 'org-b').at = 71_000;
      }),
      INVARIANTS.convergence,
      /^gateway-2 org-b .*: no answer after the heal at 72\.000 s/,
    );
    expectOnly(
      planted((history) => {
        Object.assign(answer(history, 'gateway-1', 'org-c'), { status: 200, etag: '"org-c-events"' });
      }),
      INVARIANTS.convergence,
      /^gateway-1 org-c .*: answered 200 "org-c-events" at 75\.000 s; expected 403$/,
    );
  });

  it('catches an organization the campaign used that nothing was expected of', () => {
    expectOnly(
      planted((history) => {
        history.expected = history.expected.filter((expected) => expected.organizationId !== 'org-b');
        history.final = history.final.filter((final) => final.organizationId !== 'org-b');
      }),
      INVARIANTS.convergence,
      /^org-b: no answer of a fresh build to compare the gateways' with$/,
    );
  });

  it('allows wrong answers before the converged one, and catches one that relapses after it', () => {
    const early = planted((history) => history.final.push({ ...answer(history, 'gateway-1', 'org-a'), etag: '"org-a-old"', at: 73_000 }));
    expect(checkAll(early).flatMap((result) => result.violations)).toEqual([]);
    expectOnly(
      planted((history) => history.final.push({ ...answer(history, 'gateway-1', 'org-a'), etag: '"org-a-old"', at: 90_000 })),
      INVARIANTS.convergence,
      /^gateway-1 org-a .*: answered 200 "org-a-old" at 90\.000 s after 200 "org-a-events" at 75\.000 s$/,
    );
  });
});

describe('every webhook message delivered, in order per endpoint', () => {
  it('catches a lost webhook-id', () => {
    expectOnly(
      planted((history) => {
        history.received = history.received.filter((receipt) => receipt.webhookId !== 'msg-3');
      }),
      INVARIANTS.webhooks,
      /^msg-3 queued for ep-1 at 27\.000 s: never received$/,
    );
  });

  it('catches messages first received out of queue order', () => {
    expectOnly(
      planted((history) => {
        history.received[0]!.receivedAt = 28_000;
      }),
      INVARIANTS.webhooks,
      /^ep-1: msg-3 \(queued at 27\.000 s\) first received at 27\.100 s, before msg-1 \(queued at 26\.000 s\) at 28\.000 s$/,
    );
  });

  it('counts duplicates without failing, and asks nothing of an endpoint disabled at the end', () => {
    const result = checkWebhooks(validHistory());
    expect(result.violations).toEqual([]);
    expect(result.notes).toEqual(['1 duplicate deliveries (at least once: allowed)']);
    const reenabled = planted((history) => history.enabledEndpoints.push('ep-3'));
    expect(checkWebhooks(reenabled).violations).toEqual(['msg-4 queued for ep-3 at 27.500 s: never received']);
  });
});

describe('no key, webhook secret, admin credential or audit entry lost', () => {
  it.each<[string, (history: History) => void, RegExp]>([
    ['a key', (history) => history.durables.keys.present.splice(history.durables.keys.present.indexOf('key-b1'), 1), /^key key-b1 lost$/],
    ['a webhook secret', (history) => delete history.durables.webhookSecrets.present['ep-2'], /^webhook secret of ep-2 lost$/],
    ['a changed webhook secret', (history) => (history.durables.webhookSecrets.present['ep-1'] = 'whsec_other'), /^webhook secret of ep-1 changed/],
    ['an admin credential', (history) => (history.durables.adminCredentials.present = ['root']), /^admin credential adm-1 lost$/],
    ['an audit entry', (history) => (history.durables.auditEntries.present = ['req-0', 'req-1']), /^audit entry of request req-2 lost$/],
  ])('catches %s lost', (_, change, pattern) => {
    expectOnly(planted(change), INVARIANTS.durables, pattern);
  });
});

describe('the audit trail verifies', () => {
  it('catches a failed verification', () => {
    expectOnly(
      planted((history) => {
        history.verifications[0] = { what: 'marquee audit-log verify --json', ok: false, detail: 'exit 1: entry 42 was edited' };
      }),
      INVARIANTS.verifications,
      /^marquee audit-log verify --json failed: exit 1: entry 42 was edited$/,
    );
  });
});

describe('no process left behind, each within its RSS target', () => {
  it('catches a process left behind', () => {
    expectOnly(
      planted((history) => {
        history.processes[3]!.leftBehind = true;
      }),
      INVARIANTS.processes,
      /^builder-2 \(pid 104\) still ran after the campaign stopped it$/,
    );
  });

  it('catches RSS over its target', () => {
    expectOnly(
      planted((history) => {
        history.processes[0]!.peakRssMb = 300;
      }),
      INVARIANTS.processes,
      /^gateway-1 \(pid 101\) peaked at 300 MB RSS, over its target of 256 MB$/,
    );
  });
});

describe('campaign exercised', () => {
  it('fails a campaign that did nothing, naming every line that judged nothing', () => {
    const empty: History = {
      seed: 1,
      healedAt: 0,
      faults: [],
      requests: [],
      changes: [],
      final: [],
      expected: [],
      queued: [],
      received: [],
      enabledEndpoints: [],
      durables: {
        keys: { created: [], present: [] },
        webhookSecrets: { created: {}, present: {} },
        adminCredentials: { created: [], present: [] },
        auditEntries: { returned: [], present: [] },
      },
      verifications: [],
      publicationLog: { verifications: [] },
      processes: [],
      pinWindowMs: 6_000,
      turns: [],
      snapshots: [],
      usage: { moveMs: 2_000, counted: [], reads: 2, settled: true, otherAnswers: [], revocationsUnsure: [] },
    };
    const results = checkAll(empty);
    for (const result of results.slice(0, -1)) {
      expect(result.violations, result.invariant).toEqual([]);
      expect(result.checked, result.invariant).toBe(0);
    }
    const exercised = named(results, INVARIANTS.exercised).violations;
    for (const invariant of Object.values(INVARIANTS).slice(0, -1)) expect(exercised).toContainEqual(expect.stringMatching(new RegExp(`^${invariant}: judged nothing`)));
    expect(exercised).toEqual(
      expect.arrayContaining([
        'no fault was applied',
        'no key was created',
        'no webhook endpoint was created',
        'no admin credential was created',
        'no audited admin action returned',
        ...REQUIRED_CHANGES.map((kind) => `no ${kind} change was made`),
      ]),
    );
  });

  it('fails a campaign whose stream of changes left a kind out', () => {
    expectOnly(
      planted((history) => {
        history.changes = history.changes.filter((change) => change.kind !== 'organization.reactivated');
        // Without its reactivation org-b stays suspended: no request for it after 11 s may be served.
        history.requests = history.requests.filter((record) => !(record.organizationId === 'org-b' && record.sentAt > 11_000));
      }),
      INVARIANTS.exercised,
      /^no organization.reactivated change was made$/,
    );
  });

  it('fails a campaign that revoked no key it then used', () => {
    expectOnly(
      planted((history) => {
        history.requests = history.requests.filter((record) => !(record.keyId === 'key-a2' && record.sentAt > 20_000));
      }),
      INVARIANTS.exercised,
      /^no revoked key served after its revocation returned: judged nothing \(no request used a key after its revocation returned\)$/,
    );
  });

  it('fails a campaign whose fault never healed, or healed after the recorded last heal', () => {
    expectOnly(
      planted((history) => {
        history.faults[2]!.healedAt = undefined;
      }),
      INVARIANTS.exercised,
      /^fault #3 kill on builder-2 \(52\.000 s–never\) never healed$/,
    );
    expectOnly(
      planted((history) => {
        history.healedAt = 71_950;
      }),
      INVARIANTS.exercised,
      /^fault #4 postgres-restart on postgres .* healed after the recorded last heal at 71\.950 s$/,
    );
  });
});
