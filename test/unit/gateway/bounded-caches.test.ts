// The bounded cache contract (test/contracts/bounded-cache.ts) run against every cache the gateway
// keeps per organization or per key (gateway/cache-budget.ts), each through its own API with its
// own weigh function: pointers and manifests, stored objects, event views, key verdicts, rate
// buckets, parsed keys, compiled origin lists.
import { InMemoryRateLimiter } from '../../../gateway/access/in-memory-rate-limiter.ts';
import { OriginMatcherCache } from '../../../gateway/access/origin-matchers.ts';
import { RecentVerdicts } from '../../../gateway/access/recent-verdicts.ts';
import { EventViews } from '../../../gateway/events/views.ts';
import { ParsedKeys } from '../../../gateway/access/parsed-keys.ts';
import { CurrentSnapshots } from '../../../gateway/snapshot-cache/current-snapshots.ts';
import { ObjectCache } from '../../../gateway/snapshot-cache/object-cache.ts';
import { DEFAULT_EVENTS_QUERY } from '../../../snapshot/clock-rendering/events-query.ts';
import { resourcePath } from '../../../snapshot/resource-catalog.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { boundedCacheContract, type BoundedCacheHarness } from '../../contracts/bounded-cache.ts';
import { publishFixture } from '../../support/gateway-fixtures.ts';
import { fixtureUuid, PlatformFixture } from '../../support/platform-fixture.ts';
import { RecordingLog } from '../../support/recording-log.ts';

const ENTRIES = 24;
const T0 = Date.UTC(2026, 4, 1, 9, 0, 0);

/** ENTRIES organizations published once for every suite that reads snapshots: organization n has n + 1 events and a name of n characters, so their weights differ. */
let published: Promise<{ store: MemoryStore; ids: string[]; objects: ObjectCache }> | undefined;
function publishedOrganizations() {
  published ??= (async () => {
    const store = new MemoryStore();
    const ids: string[] = [];
    for (let n = 0; n < ENTRIES; n++) {
      const fixture = new PlatformFixture({ id: fixtureUuid(10_000 + n), slug: `org-${n}`, name: `Organization ${'n'.repeat(n)}` });
      for (let e = 0; e <= n % 4; e++) fixture.event({ id: fixtureUuid(20_000 + 10 * n + e), slug: `event-${n}-${e}`, name: `Event ${n} ${'e'.repeat(n)}` });
      await publishFixture(store, fixture);
      ids.push(fixture.organization.id);
    }
    return { store, ids, objects: new ObjectCache(store, 1024 ** 3) };
  })();
  return published;
}

/** The manifest of organization n, read by a cache of its own. */
async function manifestOf(n: number) {
  const { store, ids } = await publishedOrganizations();
  const snapshot = await new CurrentSnapshots({ store, log: new RecordingLog() }).get(ids[n]!);
  return snapshot!.manifest!;
}

const harness = (create: BoundedCacheHarness['create']) => ({ setup: (): BoundedCacheHarness => ({ entries: ENTRIES, create }) });

boundedCacheContract(
  'snapshots (pointers and manifests, CurrentSnapshots)',
  harness(async (budget) => {
    const { store, ids } = await publishedOrganizations();
    const snapshots = new CurrentSnapshots({ store, log: new RecordingLog(), maxBytes: budget });
    return { use: (n) => snapshots.get(ids[n]!), stats: snapshots.stats };
  }),
);

boundedCacheContract(
  'objects (ObjectCache)',
  harness(async (budget) => {
    const { store, ids } = await publishedOrganizations();
    const objects = new ObjectCache(store, budget);
    return { use: async (n) => objects.representation(ids[n]!, (await manifestOf(n)).resources.get(resourcePath.organization)!), stats: objects.stats };
  }),
);

boundedCacheContract(
  'views (EventViews: event indexes with their rendered pages)',
  harness(async (budget) => {
    const { ids, objects } = await publishedOrganizations();
    const views = new EventViews(objects, budget);
    return {
      use: async (n) => views.page(ids[n]!, (await manifestOf(n)).resources.get(resourcePath.eventIndex)!, T0, DEFAULT_EVENTS_QUERY),
      stats: views.stats,
    };
  }),
);

boundedCacheContract(
  'verdicts (RecentVerdicts)',
  harness((budget) => {
    const recent = new RecentVerdicts({ maxBytes: budget });
    return {
      use: (n) =>
        recent.confirm(
          {
            id: `key_${n}`,
            organizationId: 'org',
            label: 'l'.repeat(n),
            origins: Array.from({ length: n % 3 }, (_, i) => `https://site-${i}.example`),
            createdAt: '2026-01-01T00:00:00.000Z',
            expiresAt: null,
            revokedAt: null,
            revocationScheduled: false,
            prefix: null,
            lastUsedAt: null,
            secretHash: `hash-${n}`,
          },
          T0,
        ),
      stats: recent.stats,
    };
  }),
);

boundedCacheContract(
  'rate buckets (InMemoryRateLimiter: key_rates, address_failures)',
  harness((budget) => {
    const limiter = new InMemoryRateLimiter({ limit: 1_000, windowSeconds: 60, maxBytes: budget });
    return { use: (n) => limiter.consume(`bucket-${'b'.repeat(n)}`, T0), stats: limiter.stats };
  }),
);

boundedCacheContract(
  'parsed_keys (ParsedKeys)',
  harness((budget) => {
    const parsed = new ParsedKeys(budget);
    return { use: (n) => parsed.parse(`mqk_${'k'.repeat(n)}`), stats: parsed.stats };
  }),
);

boundedCacheContract(
  'origins (OriginMatcherCache)',
  harness((budget) => {
    const matchers = new OriginMatcherCache(budget);
    return { use: (n) => matchers.matcherFor(`key_${n}`, [`https://${'o'.repeat(n + 1)}.example`]), stats: matchers.stats };
  }),
);
