// The pin lines of the chaos campaign (issue 36): each catches its violation planted alone in the
// recorded history (campaign-history.ts), names it, and leaves the other lines clean; the clock's
// margins leave the undecidable cases unjudged rather than broken.
import { describe, expect, it } from 'vitest';
import type { History } from '../../../scripts/chaos/history.ts';
import { checkChangeFeed } from '../../../scripts/chaos/crawl-invariants.ts';
import { checkAll, checkPinWindow, INVARIANTS } from '../../../scripts/chaos/invariants.ts';
import { A0, A1, EVENTS, PAGE, PROFILE, request, siteRead, expectOnly, planted } from './campaign-history.ts';

const full = (history: History) => history.turns[0]!;
const incremental = (history: History) => history.turns[1]!;

describe('every pinned crawl reads one snapshot, consistent', () => {
  it('catches a pinned answer from another snapshot', () => {
    expectOnly(
      planted((history) => {
        full(history).reads[4]!.snapshotId = A1;
      }),
      INVARIANTS.pinnedCrawls,
      /^gateway-2 GET \/api\/integration\/v1\/speakers pinned to 20261201T000000000Z-a0a0a0a0a0a0 .*: answered from 20261201T000125600Z-a1a1a1a1a1a1$/,
    );
  });

  it('catches an event whose detail is not the one its page listed (a torn crawl)', () => {
    expectOnly(
      planted((history) => {
        full(history).reads[2]!.event!.name = 'Gala (renamed)';
      }),
      INVARIANTS.pinnedCrawls,
      /^site 0 turn #1 \(full, org-a, from gateway-1 at 4\.000 s, snapshot 20261201T000000000Z-a0a0a0a0a0a0\): event e1 is listed as "Gala" \(gala\), its detail says "Gala \(renamed\)" \(gala\)$/,
    );
  });

  it('catches an event on two pages, and a listed event without its detail', () => {
    const history = planted((history) => {
      const reads = full(history).reads;
      reads[0]!.page = { items: [{ id: 'e1', slug: 'gala', name: 'Gala' }], totalCount: 1, hasMore: true };
      reads.splice(
        1,
        0,
        siteRead('gateway-1', PAGE.replace('page=1', 'page=2'), 4_150, 200, A0, A0, { page: { items: [{ id: 'e1', slug: 'gala', name: 'Gala' }], totalCount: 1, hasMore: false } }),
      );
      reads.splice(3, 1, siteRead('gateway-2', `${EVENTS}/e1`, 4_300, 404, A0, A0, { errorCode: 'EVENT_NOT_FOUND' }));
    });
    const { violations } = checkAll(history).find((result) => result.invariant === INVARIANTS.pinnedCrawls)!;
    expect(violations).toEqual([expect.stringMatching(/event e1 listed on page 1 and on page 2$/), expect.stringMatching(/event e1 is listed, and its detail answered 404$/)]);
  });

  it('counts a turn a 409 ended as started over, not as broken', () => {
    const history = planted((history) => {
      const turn = full(history);
      turn.reads.splice(2);
      turn.reads.push(siteRead('gateway-2', `${EVENTS}/e1`, 4_300, 409, A0, A1, { errorCode: 'SNAPSHOT_NOT_CURRENT' }));
      turn.outcome = 'not-current';
    });
    const result = checkAll(history).find((line) => line.invariant === INVARIANTS.pinnedCrawls)!;
    expect(result.violations).toEqual([]);
    expect(result.notes).toContain('0 full turns complete, 1 started over after a 409, 0 cut (a fault, a key revoked)');
    expect(checkAll(history).find((line) => line.invariant === INVARIANTS.exercised)!.violations).toContain(`${INVARIANTS.pinnedCrawls}: no pinned crawl completed`);
  });
});

describe('/changes describes the answers the gateways give', () => {
  it('catches a tag the listing without since does not give', () => {
    expectOnly(
      planted((history) => {
        full(history).listing!.changed[3]!.etag = '"stale"';
      }),
      INVARIANTS.changeFeed,
      /^site 0 turn #1 .*: gateway-2 GET \/api\/integration\/v1\/speakers pinned to .* with ETag "a0-speakers", the listing without since lists "stale"$/,
    );
  });

  it('catches a listing without since that leaves a path out', () => {
    expectOnly(
      planted((history) => {
        full(history).listing!.changed.splice(3, 1);
      }),
      INVARIANTS.changeFeed,
      /GET \/api\/integration\/v1\/speakers pinned to .* with ETag "a0-speakers", and the listing without since does not list it$/,
    );
  });

  it('catches a change /changes?since= did not list: the mirror with the changes applied is not what the gateway answers', () => {
    expectOnly(
      planted((history) => {
        incremental(history).reads[3]!.etag = '"a1-team"';
      }),
      INVARIANTS.changeFeed,
      /^site 0 turn #2 \(incremental, .*\): gateway-1 GET \/api\/integration\/v1\/team pinned to 20261201T000125600Z-a1a1a1a1a1a1 .* with ETag "a1-team", the mirror \(turn #1\), unchanged by the listing, lists "a0-team"$/,
    );
  });

  it('catches a removed path still answered, and changes listed since the snapshot itself', () => {
    const history = planted((history) => {
      const turn = incremental(history);
      turn.listing!.removed = [`${EVENTS}/e1/sessions`];
      turn.reads.push(siteRead('gateway-2', `${EVENTS}/e1/sessions`, 40_500, 200, A1, A1));
    });
    expect(checkChangeFeed(history).violations).toEqual([
      expect.stringMatching(/GET \/api\/integration\/v1\/events\/e1\/sessions pinned to .* answered 200 at 40\.520 s, and the listing says it was removed$/),
    ]);
    const same = planted((history) => {
      incremental(history).listing!.snapshotId = A0;
    });
    expect(checkChangeFeed(same).violations).toContainEqual(expect.stringMatching(/since its own snapshot, lists 2 changed and 0 removed paths$/));
  });

  it("compares no tag across the clock's next change", () => {
    const history = planted((history) => {
      const turn = incremental(history);
      turn.reads[3]!.etag = '"a1-team"';
      full(history).listing!.nextClockChangeAt = 40_000;
    });
    const result = checkChangeFeed(history);
    expect(result.violations).toEqual([]);
    expect(result.notes).toContain("1 tags not compared: read across the clock's next change");
  });
});

describe('no pin outlives its window or a suspension', () => {
  it('catches a pin served past its window at a gateway that knew its successor', () => {
    expectOnly(
      planted((history) => {
        Object.assign(incremental(history).reads[0]!, { status: 200, snapshotId: A0, errorCode: undefined });
      }),
      INVARIANTS.pinWindow,
      /^gateway-2 GET \/api\/integration\/v1\/team pinned to 20261201T000000000Z-a0a0a0a0a0a0 with key-a1 \(org-a\) sent at 40\.100 s, answered 200 at 40\.120 s: served 14\.500 s after its successor 20261201T000125600Z-a1a1a1a1a1a1 was published \(at 25\.600 s\), past the 6 s window; gateway-2 had answered from 20261201T000125600Z-a1a1a1a1a1a1 at 40\.020 s$/,
    );
  });

  it('leaves unjudged a pin served by a gateway not known to have seen the successor, or within the margin', () => {
    const unknown = planted((history) => {
      const turn = incremental(history);
      Object.assign(turn.reads[0]!, { status: 200, snapshotId: A0, errorCode: undefined, gateway: 'gateway-1' });
    });
    expect(checkPinWindow(unknown).violations).toEqual([]);
    const margin = planted((history) => {
      history.snapshots[1]!.publishedAt = 32_500;
      Object.assign(incremental(history).reads[0]!, { status: 200, snapshotId: A0, errorCode: undefined });
    });
    expect(checkPinWindow(margin).violations).toEqual([]);
  });

  it('catches a 409 well within the window', () => {
    const history = planted((history) => {
      history.snapshots[1]!.publishedAt = 38_000;
    });
    expect(checkPinWindow(history).violations).toEqual([
      expect.stringMatching(
        /pinned to 20261201T000000000Z-a0a0a0a0a0a0 .* answered 409 at 40\.120 s: refused within the 6 s window: readable until 44\.000 s \(20261201T000125600Z-a1a1a1a1a1a1 current\)$/,
      ),
    ]);
  });

  it('counts a 409 from a gateway behind the pinned snapshot', () => {
    const history = planted((history) => {
      history.requests.push(siteRead('gateway-1', '/api/integration/v1/team', 26_000, 409, A1, A0, { errorCode: 'SNAPSHOT_NOT_CURRENT' }));
    });
    const result = checkPinWindow(history);
    expect(result.violations).toEqual([]);
    expect(result.notes).toContain("1 × 409 from a gateway behind the pinned snapshot's publish; 0 answers of pins outside the chains read");
  });

  it("catches a suspended organization's pinned read served, whatever the pin, and leaves the unpinned line alone", () => {
    for (const status of [200, 409]) {
      expectOnly(
        planted((history) => {
          history.requests.push(request('gateway-2', 'key-c1', 'org-c', 46_000, status, { path: PROFILE, pin: '20000101T000000000Z-000000000000', profileOf: 'org-c' }));
        }),
        INVARIANTS.pinWindow,
        new RegExp(`GET /api/integration/v1/organization pinned to 20000101T000000000Z-000000000000 .* answered ${status} at 46\\.020 s: org-c was suspended at 40\\.000 s`),
      );
    }
  });
});
