// A small recorded campaign that keeps every invariant (scripts/chaos/invariants.ts), including
// the answers a fault excuses; the tests plant one violation at a time in a fresh copy of it.
//
// Two gateways, two builders, three organizations. Faults: Redis restarted empty (30–35 s, every
// process), gateway-1's link to the store black-holed (50–56 s) while builder-2 is killed
// (52–53 s), builder-1 killed at its pointer write to org-a's snapshot A_LEFT, logged (60–61.5 s),
// PostgreSQL restarted (70–72 s, the builders only) while gateway-2 is killed (71.4–71.9 s).
// org-b is suspended and reactivated early; org-c is suspended at 40 s (published at 41 s) and
// stays so. key-a2 is revoked at 20 s. At the end, every history verifies with the publication
// log, and since the checkpoint kept at 120 leaves; A_LEFT is never current (the next publish
// vouches for it).
//
// Pins (a 6 s window): org-a's snapshot A0 is replaced by A1, published at 25.6 s. A site reads
// org-a in full pinned to A0 at 4 s; at 40 s it follows /changes?since=A0 at gateway-2 (A1), reads
// A0 again there (409: its window ended at 31.6 s) and the paths pinned to A1. At 45 s it reads
// suspended org-c pinned: 403.
//
// Usage per key: the builders counted every answer charged to a key (all but key-c1's 503 at 31 s,
// a key gateway-2 could not check while Redis was down), as gateways that lose nothing count; the
// warm-up, the final answers and the fresh build's gateway answered too (usage.otherAnswers).
import { expect } from 'vitest';
import type { CountedUsage, FinalAnswer, History, RequestRecord, SiteRead, SiteTurn, UsageAnswer } from '../../../scripts/chaos/history.ts';
import { checkAll } from '../../../scripts/chaos/invariants.ts';

export const EVENTS = '/api/integration/v1/events';
export const PROFILE = '/api/integration/v1/organization';

const BUILDERS = ['builder-1', 'builder-2'];
const GATEWAYS = ['gateway-1', 'gateway-2'];

/** A request answered in 20 ms; 200s carry their organization's ids, as the campaign's id map reads them. */
export function request(gateway: string, keyId: string, organizationId: string, sentAt: number, status: number | undefined, extra: Partial<RequestRecord> = {}): RequestRecord {
  return {
    gateway,
    keyId,
    organizationId,
    path: EVENTS,
    sentAt,
    answeredAt: status === undefined ? undefined : sentAt + 20,
    status,
    ...(status === 200 ? { bodyOrganizations: [organizationId], etag: `"${organizationId}-events"` } : {}),
    ...extra,
  };
}

export const A0 = '20261201T000000000Z-a0a0a0a0a0a0';
export const A1 = '20261201T000125600Z-a1a1a1a1a1a1';
/** The manifest builder-1 wrote and logged for org-a and was killed before pointing at (fault 6). */
export const A_LEFT = '20261201T000200000Z-afafafafafaf';
/** The checkpoint kept before the faults, and the file `verify --since` was given. */
export const KEPT_SIZE = 120;
export const VERIFY_ALL = 'marquee verify --all --json';
export const VERIFY_SINCE = 'marquee verify --all --since /tmp/marquee-chaos-28/start.checkpoint --json';
/** What verify's report says it checked, with the publication log (builder/history/verification-expectations.ts). */
export const AGAINST =
  'the platform database postgres://127.0.0.1:5432/postgres: every organization it knows, and those it records as built into this store, and every publication its publication log records';
const API = '/api/integration/v1';
export const PAGE = `${EVENTS}?timing=all&page=1&pageSize=3`;

/** A site's read of org-a with key-a1: pinned to `pin` when given, answered from `snapshotId`. */
export function siteRead(
  gateway: string,
  path: string,
  sentAt: number,
  status: number,
  pin: string | undefined,
  snapshotId: string | undefined,
  extra: Partial<SiteRead> = {},
): SiteRead {
  return request(gateway, 'key-a1', 'org-a', sentAt, status, {
    path,
    ...(pin === undefined ? {} : { pin }),
    ...(snapshotId === undefined ? {} : { snapshotId }),
    ...(status === 200 ? { etag: `"${snapshotId === A0 ? 'a0' : 'a1'}${path.replace(API, '').replaceAll('/', '-')}"` } : {}),
    ...extra,
  });
}

/** The full turn pinned to A0, then the incremental one from it to A1. */
function siteTurns(): SiteTurn[] {
  const tag = (snapshot: string, path: string) => `"${snapshot === A0 ? 'a0' : 'a1'}${path.replace(API, '').replaceAll('/', '-')}"`;
  const paths = ['/events', '/events/e1', '/events/e1/sessions', '/speakers', '/team', '/organization'].map((path) => `${API}${path}`);
  const sessions = '[{"id":"s1"}]';
  const full: SiteTurn = {
    id: 1,
    site: 0,
    organizationId: 'org-a',
    kind: 'full',
    listingRead: siteRead('gateway-1', `${API}/changes`, 4_000, 200, undefined, A0),
    listing: { snapshotId: A0, since: null, changed: paths.map((path) => ({ path, etag: tag(A0, path) })), removed: [], nextClockChangeAt: undefined, answeredAt: 4_020 },
    reads: [
      siteRead('gateway-2', PAGE, 4_100, 200, A0, A0, { etag: '"a0-page-1"', page: { items: [{ id: 'e1', slug: 'gala', name: 'Gala' }], totalCount: 1, hasMore: false } }),
      siteRead('gateway-1', EVENTS, 4_200, 200, A0, A0),
      siteRead('gateway-2', `${EVENTS}/e1`, 4_300, 200, A0, A0, { event: { id: 'e1', slug: 'gala', name: 'Gala', sessions } }),
      siteRead('gateway-1', `${EVENTS}/e1/sessions`, 4_400, 200, A0, A0, { sessions }),
      siteRead('gateway-2', `${API}/speakers`, 4_500, 200, A0, A0),
      siteRead('gateway-1', `${API}/team`, 4_600, 200, A0, A0),
    ],
    outcome: 'complete',
  };
  const incremental: SiteTurn = {
    id: 2,
    site: 0,
    organizationId: 'org-a',
    kind: 'incremental',
    basedOn: 1,
    listingRead: siteRead('gateway-2', `${API}/changes?since=${A0}`, 40_000, 200, undefined, A1),
    listing: {
      snapshotId: A1,
      since: A0,
      changed: [`${API}/events`, `${API}/events/e1`].map((path) => ({ path, etag: tag(A1, path) })),
      removed: [],
      nextClockChangeAt: undefined,
      answeredAt: 40_020,
    },
    reads: [
      siteRead('gateway-2', `${API}/team`, 40_100, 409, A0, A1, { errorCode: 'SNAPSHOT_NOT_CURRENT' }),
      siteRead('gateway-1', EVENTS, 40_200, 200, A1, A1),
      siteRead('gateway-2', `${EVENTS}/e1`, 40_300, 200, A1, A1),
      // Unchanged since A0: the tag the site holds.
      siteRead('gateway-1', `${API}/team`, 40_400, 200, A1, A1, { etag: tag(A0, `${API}/team`) }),
    ],
    outcome: 'complete',
  };
  return [full, incremental];
}

/** 503 as the gateway answers an outage. */
export const unavailable = { retryAfter: '5', errorCode: 'SERVICE_UNAVAILABLE' } as const;
/** 503 for a key the gateway could not check (Redis unreachable, the key not in its memory): charged to no key. */
export const uncheckable = { ...unavailable, detail: 'The API key cannot be checked at the moment; try again shortly.' } as const;

/** The organization of the history's keys: key-a1 is org-a's. */
const organizationOfKey = (keyId: string): string => keyId.replace(/^key-([a-z])\d+$/, 'org-$1');

/**
 * What gateways that lose nothing count of the history's answers: every answer charged to its key
 * (docs/design.md "Usage per key"), that is all but a 503 for a key that could not be checked and a
 * 401 of a key never revoked (unknown: its copy lost with Redis's data), per key and outcome.
 */
function countedAsAnswered(history: History): CountedUsage[] {
  const revoked = new Set(history.changes.flatMap((change) => (change.kind === 'key.revoked' ? [change.keyId] : [])));
  const rows = new Map<string, CountedUsage>();
  for (const answer of [...history.requests, ...history.usage.otherAnswers]) {
    if (answer.status === undefined || (answer.status === 503 && answer.detail === uncheckable.detail) || (answer.status === 401 && !revoked.has(answer.keyId))) continue;
    const errorCode = answer.status === 403 ? (answer.errorCode ?? '') : '';
    const name = `${answer.keyId} ${answer.status} ${errorCode}`;
    const row = rows.get(name) ?? { keyId: answer.keyId, organizationId: organizationOfKey(answer.keyId), status: answer.status, errorCode, requests: 0 };
    row.requests++;
    rows.set(name, row);
  }
  return [...rows.values()];
}

export function validHistory(): History {
  const expected = [
    { organizationId: 'org-a', path: EVENTS, status: 200, etag: '"org-a-events"' },
    { organizationId: 'org-a', path: PROFILE, status: 200, etag: '"org-a-profile"' },
    { organizationId: 'org-b', path: EVENTS, status: 200, etag: '"org-b-events"' },
    { organizationId: 'org-c', path: EVENTS, status: 403, etag: undefined },
  ];
  const final: FinalAnswer[] = GATEWAYS.flatMap((gateway, index) =>
    expected.map((answer) => ({ gateway, organizationId: answer.organizationId, path: answer.path, status: answer.status, etag: answer.etag, at: 75_000 + index * 100 })),
  );
  const turns = siteTurns();
  const keyOf = (organizationId: string) => `key-${organizationId.slice(-1)}1`;
  const otherAnswers: UsageAnswer[] = [
    // The warm-up: each key once at each gateway.
    ...['key-a1', 'key-b1', 'key-c1'].flatMap((keyId, index) =>
      GATEWAYS.map((gateway) => ({ gateway, keyId, sentAt: 500 + index * 10, answeredAt: 520 + index * 10, status: 200 })),
    ),
    ...final.map((answer) => ({
      gateway: answer.gateway,
      keyId: keyOf(answer.organizationId),
      sentAt: answer.at - 20,
      answeredAt: answer.at,
      status: answer.status,
      ...(answer.status === 403 ? { errorCode: 'ORGANIZATION_SUSPENDED' } : {}),
    })),
    ...expected.map((answer) => ({
      gateway: 'expected',
      keyId: keyOf(answer.organizationId),
      sentAt: 90_000,
      answeredAt: 90_020,
      status: answer.status,
      ...(answer.status === 403 ? { errorCode: 'ORGANIZATION_SUSPENDED' } : {}),
    })),
  ];
  const history: History = {
    seed: 28,
    healedAt: 72_000,
    faults: [
      {
        id: 1,
        kind: 'redis-restart-empty',
        target: 'redis',
        startedAt: 30_000,
        healedAt: 35_000,
        affects: [...BUILDERS, ...GATEWAYS].map((process) => ({ process, backend: 'redis' as const })),
      },
      { id: 2, kind: 'blackhole', target: 'gateway-1→store', startedAt: 50_000, healedAt: 56_000, affects: [{ process: 'gateway-1', backend: 'store' }] },
      { id: 3, kind: 'kill', target: 'builder-2', startedAt: 52_000, healedAt: 53_000, affects: [{ process: 'builder-2', backend: 'itself' }] },
      {
        id: 6,
        kind: 'kill-at-pointer',
        target: 'builder-1',
        startedAt: 60_000,
        healedAt: 61_500,
        affects: [{ process: 'builder-1', backend: 'itself' }],
        interrupted: { organizationId: 'org-a', snapshotId: A_LEFT, logged: true },
      },
      { id: 4, kind: 'postgres-restart', target: 'postgres', startedAt: 70_000, healedAt: 72_000, affects: BUILDERS.map((process) => ({ process, backend: 'postgres' as const })) },
      { id: 5, kind: 'kill', target: 'gateway-2', startedAt: 71_400, healedAt: 71_900, affects: [{ process: 'gateway-2', backend: 'itself' }] },
    ],
    requests: [
      request('gateway-1', 'key-a1', 'org-a', 2_000, 200),
      request('gateway-2', 'key-a1', 'org-a', 2_100, 200, { path: PROFILE, bodyOrganizations: undefined, profileOf: 'org-a' }),
      request('gateway-2', 'key-b1', 'org-b', 3_000, 304, { etag: '"org-b-events"' }),
      // org-b suspended at 10 s (published 11 s), reactivated at 14 s.
      request('gateway-1', 'key-b1', 'org-b', 13_100, 403, { errorCode: 'ORGANIZATION_SUSPENDED' }),
      request('gateway-2', 'key-b1', 'org-b', 16_000, 200),
      // key-a2: served before its revocation returned (20 s), refused after.
      request('gateway-1', 'key-a2', 'org-a', 19_000, 200),
      request('gateway-2', 'key-a2', 'org-a', 19_990, 200),
      request('gateway-1', 'key-a2', 'org-a', 20_500, 401, { errorCode: 'API_KEY_INVALID' }),
      // Redis down (30–35 s): a key never seen is refused 503; one seen is served from memory.
      request('gateway-2', 'key-c1', 'org-c', 31_000, 503, uncheckable),
      request('gateway-1', 'key-a1', 'org-a', 32_000, 200),
      // org-c suspended at 40 s, published at 41 s: refused from then on, but for gateway-1 while its store link is black-holed.
      request('gateway-2', 'key-c1', 'org-c', 44_000, 403, { errorCode: 'ORGANIZATION_SUSPENDED' }),
      request('gateway-1', 'key-c1', 'org-c', 51_000, 200),
      request('gateway-1', 'key-b1', 'org-b', 54_000, 503, unavailable),
      request('gateway-2', 'key-c1', 'org-c', 60_000, 403, { errorCode: 'ORGANIZATION_SUSPENDED' }),
      request('gateway-1', 'key-c1', 'org-c', 71_000, 403, { errorCode: 'ORGANIZATION_SUSPENDED' }),
      // gateway-2 killed: no answer.
      request('gateway-2', 'key-a1', 'org-a', 71_500, undefined),
      request('gateway-2', 'key-a1', 'org-a', 80_000, 200),
      ...turns.flatMap((turn) => [turn.listingRead, ...turn.reads]),
      request('gateway-2', 'key-c1', 'org-c', 45_000, 403, { path: PROFILE, pin: '20261201T000000000Z-c0c0c0c0c0c0', errorCode: 'ORGANIZATION_SUSPENDED' }),
    ],
    changes: [
      { kind: 'key.created', keyId: 'key-a2', organizationId: 'org-a', returnedAt: 1_000 },
      { kind: 'organization.suspended', organizationId: 'org-b', returnedAt: 10_000, publishedAt: 11_000 },
      { kind: 'organization.reactivated', organizationId: 'org-b', returnedAt: 14_000, publishedAt: 15_000 },
      { kind: 'key.revoked', keyId: 'key-a2', organizationId: 'org-a', returnedAt: 20_000 },
      { kind: 'platform.row', organizationId: 'org-a', statement: "UPDATE events SET title = 'x'", returnedAt: 25_000 },
      { kind: 'organization.suspended', organizationId: 'org-c', returnedAt: 40_000, publishedAt: 41_000 },
      { kind: 'webhook.added', endpointId: 'ep-1', organizationId: 'org-a', returnedAt: 5_000 },
      { kind: 'webhook.disabled', endpointId: 'ep-3', organizationId: 'org-a', returnedAt: 45_000 },
      { kind: 'admin.created', adminId: 'adm-1', returnedAt: 6_000 },
      { kind: 'admin.action', actor: 'alice', action: 'keys.revoke', returnedAt: 20_000 },
    ],
    final,
    expected,
    queued: [
      { endpointId: 'ep-1', messageId: 'msg-1', queuedAt: 26_000 },
      { endpointId: 'ep-2', messageId: 'msg-2', queuedAt: 26_500 },
      { endpointId: 'ep-1', messageId: 'msg-3', queuedAt: 27_000 },
      { endpointId: 'ep-3', messageId: 'msg-4', queuedAt: 27_500 },
      { endpointId: 'ep-1', messageId: 'msg-5', queuedAt: 60_000 },
    ],
    received: [
      { endpointId: 'ep-1', webhookId: 'msg-1', receivedAt: 26_100 },
      { endpointId: 'ep-2', webhookId: 'msg-2', receivedAt: 26_600 },
      { endpointId: 'ep-1', webhookId: 'msg-3', receivedAt: 27_100 },
      // Delivered again after a lost acknowledgement: at least once.
      { endpointId: 'ep-1', webhookId: 'msg-3', receivedAt: 35_000 },
      { endpointId: 'ep-1', webhookId: 'msg-5', receivedAt: 60_200 },
    ],
    enabledEndpoints: ['ep-1', 'ep-2'],
    durables: {
      keys: { created: ['key-a1', 'key-b1'], present: ['key-a1', 'key-a2', 'key-b1', 'key-c1'] },
      webhookSecrets: { created: { 'ep-1': 'whsec_one', 'ep-2': 'whsec_two' }, present: { 'ep-1': 'whsec_one', 'ep-2': 'whsec_two', 'ep-3': 'whsec_three' } },
      adminCredentials: { created: ['adm-1'], present: ['adm-1', 'root'] },
      auditEntries: { returned: ['req-1', 'req-2'], present: ['req-0', 'req-1', 'req-2'] },
    },
    verifications: [{ what: 'marquee audit-log verify --json', ok: true }],
    publicationLog: {
      keptSize: KEPT_SIZE,
      verifications: [
        { what: VERIFY_ALL, against: AGAINST, organizations: 3, breaks: [], neverCurrent: [{ organizationId: 'org-a', snapshotId: A_LEFT }] },
        { what: VERIFY_SINCE, against: `${AGAINST} from leaf ${KEPT_SIZE} on`, organizations: 3, breaks: [], neverCurrent: [{ organizationId: 'org-a', snapshotId: A_LEFT }] },
      ],
    },
    processes: [
      { name: 'gateway-1', pid: 101, peakRssMb: 180, targetRssMb: 256, leftBehind: false },
      { name: 'gateway-2', pid: 102, peakRssMb: 190, targetRssMb: 256, leftBehind: false },
      { name: 'builder-1', pid: 103, peakRssMb: 200, targetRssMb: 384, leftBehind: false },
      { name: 'builder-2', pid: 104, peakRssMb: 210, targetRssMb: 384, leftBehind: false },
    ],
    pinWindowMs: 6_000,
    turns,
    snapshots: [
      { organizationId: 'org-a', snapshotId: A0, previousSnapshotId: null, publishedAt: -100_000 },
      { organizationId: 'org-a', snapshotId: A1, previousSnapshotId: A0, publishedAt: 25_600 },
    ],
    usage: { moveMs: 2_000, counted: [], reads: 2, settled: true, otherAnswers, revocationsUnsure: [] },
  };
  history.usage.counted = countedAsAnswered(history);
  return history;
}

/**
 * The valid history with `change` applied to it. A change that leaves the usage counts as they are
 * (the same rows, unchanged) plants into the answers alone: the counts are then those of gateways
 * that lose nothing (countedAsAnswered), so that a planted answer breaks no line but its own. To
 * plant an answer that was not counted, the change replaces the rows (a copy of them will do).
 */
export function planted(change: (history: History) => void): History {
  const history = validHistory();
  const counted = history.usage.counted;
  const rows = JSON.stringify(counted);
  change(history);
  if (history.usage.counted === counted && JSON.stringify(counted) === rows) history.usage.counted = countedAsAnswered(history);
  return history;
}

/** Only `invariant` is violated, once, by a violation matching every pattern. */
export function expectOnly(history: History, invariant: string, ...patterns: RegExp[]): void {
  const results = checkAll(history);
  for (const result of results) if (result.invariant !== invariant) expect(result.violations, result.invariant).toEqual([]);
  const { violations } = results.find((result) => result.invariant === invariant)!;
  expect(violations).toHaveLength(1);
  for (const pattern of patterns) expect(violations[0]).toMatch(pattern);
}
