// A small AdminServices in memory for the console's in-process tests: two organizations (one
// with a name that is markup), build runs that finish when told, keys, a history, a diff, an
// answer as of an instant, and usage counts a test adds (read back by the product's own report).
import { BuildRuns } from '../../../../builder/runs/build-runs.ts';
import { describeChanges } from '../../../../builder/history/diff.ts';
import type { OrganizationOverview } from '../../../../admin/organization-admin.ts';
import type { AdminServices } from '../../../../admin/services.ts';
import { currentAttribution } from '../../../../admin/acting.ts';
import type { AuditEntry } from '../../../../records/trail/audit-entry.ts';
import { adminError } from '../../../../admin/errors.ts';
import { OrganizationNotFoundError } from '../../../../builder/platform/organizations.ts';
import { type UsageRangeRequest, usageRange } from '../../../../admin/usage-admin.ts';
import { HOUR_MS, type RefusedOriginCount, type RequestCount } from '../../../../records/usage/usage-batch.ts';
import { type UsageSubject, usageReport } from '../../../../records/usage/usage-report.ts';

export const HOSTILE_NAME = '<script>alert(1)</script> & Co';

export const ORGS: OrganizationOverview[] = [
  {
    id: '00000000-0000-4000-8000-000000000001',
    slug: 'nordic-dev',
    name: 'Nordic Developer Community',
    state: 'active',
    snapshotId: 'snap-2',
    publishedAt: '2026-11-22T09:57:00.000Z',
    lastBuild: null,
  },
  { id: '00000000-0000-4000-8000-000000000002', slug: 'hostile', name: HOSTILE_NAME, state: 'suspended', snapshotId: null, publishedAt: null, lastBuild: null },
];

const TEAM_BEFORE = [
  { id: 'a', fullName: 'Ada', title: 'Chair' },
  { id: 'b', fullName: 'Bo', title: 'Host' },
  { id: 'c', fullName: 'Cy', title: 'Treasurer' },
];
const TEAM_AFTER = [
  { id: 'c', fullName: 'Cy', title: 'Treasurer' },
  { id: 'a', fullName: 'Ada', title: 'Chair' },
];

const AUDIT_ENTRIES: AuditEntry[] = [
  {
    seq: 1,
    at: '2026-11-22T09:30:00.000Z',
    actor: 'root',
    actorRole: 'owner',
    door: 'api',
    action: 'key.revoked',
    organizationId: '00000000-0000-4000-8000-000000000002',
    targetId: 'key_7',
    outcome: 'ok',
    reason: null,
    requestId: 'req-1',
    clientAddress: '127.0.0.1',
    changes: { note: HOSTILE_NAME },
    previousHash: '0'.repeat(64),
    hash: 'a'.repeat(64),
  },
];

type Key = Awaited<ReturnType<AdminServices['keys']['list']>>[number];

/** The instant the console's in-process tests fix as now (their `now` option): usage ranges end at the hour after it. */
export const CONSOLE_NOW = '2026-11-22T10:00:00Z';

/** Usage counts as the store holds them, for a test to add: what `countBatches` would have written. */
interface UsageCounts {
  counts: RequestCount[];
  origins: RefusedOriginCount[];
}

export function fakeServices(): AdminServices & { runs: BuildRuns; keyList: Key[]; rolls: Array<{ id: string; graceSeconds?: number }>; counted: UsageCounts } {
  const runs = new BuildRuns();
  const keyList: Key[] = [];
  const rolls: Array<{ id: string; graceSeconds?: number }> = [];
  const counted: UsageCounts = { counts: [], origins: [] };
  const now = Date.parse(CONSOLE_NOW);
  /** As usage-store.ts reads: the counts of one subject in the range, origins summed, into the product's report. */
  const readUsage = (subject: UsageSubject, request: UsageRangeRequest = {}) => {
    const range = usageRange(request, now);
    const of = (count: { keyId: string; organizationId: string; hour: number }) =>
      ('keyId' in subject ? count.keyId === subject.keyId : count.organizationId === subject.organizationId) &&
      count.hour >= range.since.getTime() &&
      count.hour < range.until.getTime();
    const origins = new Map<string, number>();
    for (const origin of counted.origins.filter(of)) origins.set(origin.origin, (origins.get(origin.origin) ?? 0) + origin.requests);
    return usageReport(
      subject,
      range,
      counted.counts.filter(of),
      [...origins].map(([origin, requests]) => ({ origin, requests })),
    );
  };
  const organization = async (idOrSlug: string) => {
    const found = ORGS.find((org) => org.id === idOrSlug || org.slug === idOrSlug);
    if (!found) throw new OrganizationNotFoundError(idOrSlug);
    return { id: found.id, slug: found.slug, status: found.state };
  };
  const findKey = (id: string) => {
    const key = keyList.find((candidate) => candidate.id === id);
    if (!key) throw adminError('KEY_NOT_FOUND', `no key has the id ${id}`);
    return key;
  };
  const listKeys = async (idOrSlug?: string) => {
    const id = idOrSlug === undefined ? undefined : (await organization(idOrSlug)).id;
    return keyList.filter((key) => id === undefined || key.organizationId === id);
  };
  const lastDay = async (idOrSlug?: string) => {
    const id = idOrSlug === undefined ? undefined : (await organization(idOrSlug)).id;
    const requests = new Map<string, number>();
    for (const count of counted.counts) {
      if (count.hour < now - 24 * HOUR_MS || (id !== undefined && count.organizationId !== id)) continue;
      requests.set(count.keyId, (requests.get(count.keyId) ?? 0) + count.requests);
    }
    return requests;
  };
  let counter = 0;
  const mint = async (organizationId: string, origins: readonly string[], label: string | null) => {
    if (origins.some((origin) => !origin.startsWith('https://'))) throw adminError('BAD_REQUEST', `origin ${origins[0]} is not an https origin`);
    counter++;
    const key: Key = {
      id: `key_${counter}`,
      organizationId,
      organizationSlug: ORGS.find((org) => org.id === organizationId)?.slug ?? null,
      prefix: null,
      label,
      origins: [...origins],
      createdAt: '2026-11-22T09:00:00.000Z',
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
    };
    keyList.push(key);
    return { ...key, key: `mqk_secret${counter}` } as Awaited<ReturnType<AdminServices['keys']['create']>>;
  };
  return {
    runs,
    keyList,
    rolls,
    counted,
    organizations: {
      find: organization,
      overview: async (idOrSlug) => {
        const { id } = await organization(idOrSlug);
        return ORGS.find((org) => org.id === id)!;
      },
      list: async () => ORGS,
      page: async () => ({ organizations: ORGS, total: ORGS.length, next: null, previous: null }),
    },
    builds: {
      list: async () => runs.list(),
      get: async (id) => runs.get(id),
      start: async (names) => {
        const ids = await Promise.all(names.map(async (name) => (await organization(name)).id));
        return runs.queued('manual', ids.length ? ids : ORGS.map((org) => org.id), currentAttribution().actor.name);
      },
    },
    keys: {
      list: async (name) => keyList.filter((key) => name === undefined || key.organizationId === name),
      get: async (id) => findKey(id),
      create: async (request) => mint((await organization(request.organization)).id, request.origins ?? [], request.label ?? null),
      update: async (id, changes) => Object.assign(findKey(id), { ...(changes.origins ? { origins: [...changes.origins] } : {}), label: changes.label ?? null }),
      revoke: async (id) => Object.assign(findKey(id), { revokedAt: '2026-11-22T09:59:00.000Z' }),
      findBySecret: async () => undefined,
      roll: async (id, options) => {
        const old = findKey(id);
        rolls.push({ id, ...options });
        return { replacement: await mint(old.organizationId, old.origins, old.label), replaced: old };
      },
    },
    // The console pages tested here do not reach webhooks (they are tested through the real program).
    webhooks: new Proxy({} as AdminServices['webhooks'], {
      get: (_target, name) => async () => {
        throw new Error(`fake services: webhooks.${String(name)} is not faked`);
      },
    }),
    // Verifications are tested through the real program (test/integration/admin/auditor-checks.test.ts).
    verifications: new Proxy({} as AdminServices['verifications'], {
      get: (_target, name) => async () => {
        throw new Error(`fake services: verifications.${String(name)} is not faked`);
      },
    }),
    checkpoints: {
      latest: async () => {
        throw new Error('fake services: checkpoints.latest is not faked');
      },
    },
    // Named credentials are tested through the real program; here no secret but the token is known.
    admins: {
      list: async () => [],
      authenticate: async () => undefined,
      create: async () => {
        throw new Error('fake services: admins.create is not faked');
      },
      revoke: async () => {
        throw new Error('fake services: admins.revoke is not faked');
      },
    },
    audit: {
      list: async () => ({ entries: AUDIT_ENTRIES, next: null }),
      verify: async () => ({ ok: true, entries: AUDIT_ENTRIES.length, head: { seq: 1, hash: AUDIT_ENTRIES[0]!.hash }, headsChecked: 0, broken: null }),
      recordRefusal: async () => {},
    },
    snapshots: {
      history: async () =>
        [
          { snapshotId: 'snap-2', publishedAt: '2026-11-22T09:57:00.000Z', trigger: 'change', resources: 9, current: true },
          { snapshotId: 'snap-1', publishedAt: '2026-11-22T08:00:00.000Z', trigger: 'start', resources: 9, current: false },
        ] as Awaited<ReturnType<AdminServices['snapshots']['history']>>,
      diff: async () =>
        ({
          added: ['/events/new'],
          removed: [],
          changed: [{ path: '/team', patch: [], changes: describeChanges(TEAM_BEFORE, TEAM_AFTER, 'team') }],
        }) as Awaited<ReturnType<AdminServices['snapshots']['diff']>>,
      asOf: async (name, at, path) => {
        const { id } = await organization(name);
        const org = ORGS.find((candidate) => candidate.id === id)!;
        return { status: 200, body: { path, at, name: org.name }, snapshotId: org.snapshotId, state: org.state, evidence: { manifestHash: null, signature: null, etag: null } };
      },
      verify: async () => {
        throw new Error('not in the console fakes');
      },
      snapshotAt: async () => 'snap-1',
      // A proof itself is tested through the real program (test/integration/admin/auditor-checks.test.ts); here, the page's line without one.
      inclusion: async (name, snapshotId) => ({
        organizationId: (await organization(name)).id,
        snapshotId,
        manifestHash: '0'.repeat(64),
        inclusion: null,
        inclusionReason: 'no checkpoint covers it yet (the fakes keep no log)',
      }),
    },
    usage: {
      key: async (keyId, range) => {
        findKey(keyId);
        return readUsage({ keyId }, range);
      },
      organization: async (idOrSlug, range) => readUsage({ organizationId: (await organization(idOrSlug)).id }, range),
      keyList: async (idOrSlug) => {
        const [keys, requests] = await Promise.all([listKeys(idOrSlug), lastDay(idOrSlug)]);
        return keys.map((key) => ({ ...key, requests24h: requests.get(key.id) ?? 0 }));
      },
    },
  };
}
