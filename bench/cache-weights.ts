// npm run bench:cache-weights — how many heap bytes each of the gateway's bounded caches really
// takes per entry, beside what its weigh function estimates (gateway/cache-budget.ts: the budget
// counts estimates, so they must be honest). Each cache is filled with a few thousand entries of
// the bench:build:scale shape (2 events × 5 sessions, 5 speakers, 3 sponsors, 3 team members per
// organization), and the heap used plus external memory (Buffers) is read before and after, each
// after forced garbage collections. Needs --expose-gc (the npm script passes it).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectOrganization, resourcesOf } from '../builder/projection/index.ts';
import { publishSnapshot } from '../builder/publish.ts';
import { InMemoryRateLimiter } from '../gateway/access/in-memory-rate-limiter.ts';
import { OriginMatcherCache } from '../gateway/access/origin-matchers.ts';
import { RecentVerdicts } from '../gateway/access/recent-verdicts.ts';
import { EventViews } from '../gateway/events/views.ts';
import { generateSecret } from '../records/keys/format.ts';
import { ParsedKeys } from '../gateway/access/parsed-keys.ts';
import { CurrentSnapshots } from '../gateway/snapshot-cache/current-snapshots.ts';
import { ObjectCache } from '../gateway/snapshot-cache/object-cache.ts';
import type { CacheStats } from '../runtime/lru.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { Pool } from 'undici';
import { createGateway } from '../gateway/app.ts';
import { InMemoryKeyStore } from '../records/keys/memory-store.ts';
import { gatewayMetrics } from '../gateway/metrics.ts';
import { DEFAULT_EVENTS_QUERY } from '../snapshot/clock-rendering/events-query.ts';
import { resourcePath } from '../snapshot/resource-catalog.ts';
import { DirectoryStore } from '../snapshot/stores/directory.ts';
import { PlatformFixture } from '../test/support/platform-fixture.ts';
import { LARGE_ORGANIZATION_EVENTS, LARGE_PROGRAMME_SLUG, largeOrganization } from '../test/support/large-organization.ts';
import { cacheBudgets, DEFAULT_CACHE_BYTES } from '../gateway/cache-budget.ts';
import { RecordingLog } from '../test/support/recording-log.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 2000);
const HUGE = 16 * 1024 ** 3;

function heapBytes(): number {
  for (let i = 0; i < 4; i++) gc!();
  const memory = process.memoryUsage();
  return memory.heapUsed + memory.external;
}

const rows: Array<{ cache: string; entries: number; measured: number; estimated: number }> = [];

/** Fills a cache by `fill`, then compares the heap it took with its own weight. */
async function measure(cache: string, stats: () => CacheStats, fill: () => Promise<number> | number): Promise<void> {
  const before = heapBytes();
  const weightBefore = stats().weight;
  const entries = await fill();
  const measured = (heapBytes() - before) / entries;
  rows.push({ cache, entries, measured, estimated: (stats().weight - weightBefore) / entries });
}

/** One organization of the bench:build:scale shape, with ids of its own (as in the real platform, no two share a path). */
function organization(n: number): PlatformFixture {
  const fixture = new PlatformFixture({ id: randomUUID(), slug: `org-${n}`, name: `Organization ${n}` });
  for (let i = 0; i < 3; i++) fixture.teamMember({ id: randomUUID() });
  const speakers = Array.from({ length: 5 }, (_, i) => fixture.speaker({ id: randomUUID(), name: `Speaker ${n}.${i}` }));
  const sponsors = Array.from({ length: 3 }, (_, i) => fixture.sponsor({ id: randomUUID(), name: `Sponsor ${n}.${i}` }));
  for (let e = 0; e < 2; e++) {
    const event = fixture.event({ id: randomUUID(), slug: `event-${n}-${e}`, name: `Event ${n}.${e}`, startsAt: '2027-05-01T07:00:00Z', endsAt: '2027-05-01T16:00:00Z' });
    for (let s = 0; s < 5; s++) {
      const session = fixture.session(event, { id: randomUUID(), name: `Session ${n}.${e}.${s}`, startsAt: '2027-05-01T09:00:00Z', endsAt: '2027-05-01T10:00:00Z' });
      fixture.bill(session, speakers[s % speakers.length]!);
    }
    for (let p = 0; p < 2; p++) fixture.place(event, sponsors[p]!);
  }
  return fixture;
}

/** The fixture's organization published as the builder would. */
async function publish(store: DirectoryStore, fixture: PlatformFixture): Promise<void> {
  const projection = projectOrganization(fixture.data(), { publicBaseUrl: 'https://events.example.com' });
  await publishSnapshot(store, {
    organizationId: fixture.organization.id,
    organizationSlug: fixture.organization.slug,
    state: 'active',
    resources: resourcesOf(projection),
    slugs: projection.slugs,
    trigger: 'manual',
    now: new Date('2026-01-01T00:00:00Z'),
  });
}

const work = await mkdtemp(join(tmpdir(), 'marquee-cache-weights-'));
try {
  const store = new DirectoryStore(join(work, 'snapshots'));
  const ids: string[] = [];
  for (let n = 0; n < ORGANIZATIONS; n++) {
    const fixture = organization(n);
    await publish(store, fixture);
    ids.push(fixture.organization.id);
  }
  const snapshots = new CurrentSnapshots({ store, log: new RecordingLog(), maxBytes: HUGE });
  await measure(
    'snapshots (pointer + manifest)',
    () => snapshots.stats,
    async () => {
      for (const id of ids) await snapshots.get(id);
      return ids.length;
    },
  );
  const manifests = await Promise.all(ids.map(async (id) => (await snapshots.get(id))!.manifest!));

  const objects = new ObjectCache(store, HUGE);
  await measure(
    'objects (/organization)',
    () => objects.stats,
    async () => {
      for (const [i, id] of ids.entries()) await objects.representation(id, manifests[i]!.resources.get(resourcePath.organization)!);
      return ids.length;
    },
  );
  await measure(
    'objects (/events/{id}/sessions)',
    () => objects.stats,
    async () => {
      for (const [i, id] of ids.entries()) {
        const manifest = manifests[i]!;
        const eventId = [...manifest.slugs.values()][0]!;
        await objects.representation(id, manifest.resources.get(resourcePath.eventSessions(eventId))!);
      }
      return ids.length;
    },
  );

  const storedSize = async (path: (manifest: (typeof manifests)[number]) => string) =>
    (await Promise.all(ids.map(async (id, i) => (await objects.read(id, manifests[i]!.resources.get(path(manifests[i]!))!)).length))).reduce((a, b) => a + b, 0) / ids.length;
  const firstEvent = (manifest: (typeof manifests)[number]) => [...manifest.slugs.values()][0]!;
  console.log(
    `stored bytes: event index ${(await storedSize(() => resourcePath.eventIndex)).toFixed(0)}, event detail ${(await storedSize((m) => resourcePath.event(firstEvent(m)))).toFixed(0)}`,
  );
  const now = Date.parse('2026-06-01T00:00:00Z');
  const views = new EventViews(objects, HUGE);
  await measure(
    'views (event index, one page)',
    () => views.stats,
    async () => {
      for (const [i, id] of ids.entries()) await views.page(id, manifests[i]!.resources.get(resourcePath.eventIndex)!, now, DEFAULT_EVENTS_QUERY);
      return ids.length;
    },
  );
  await measure(
    'views (event detail, one rendering)',
    () => views.stats,
    async () => {
      for (const [i, id] of ids.entries()) {
        const manifest = manifests[i]!;
        await views.detail(id, manifest.resources.get(resourcePath.event(firstEvent(manifest)))!, now);
      }
      return ids.length;
    },
  );

  // The largest organization the gateway benchmark serves: its 5,000-event index and its largest
  // detail, each one entry, against the default views budget they must fit in.
  const large = largeOrganization(now);
  await publish(store, large);
  const largeManifest = (await snapshots.get(large.organization.id))!.manifest!;
  const largeIndex = largeManifest.resources.get(resourcePath.eventIndex)!;
  const largeDetail = largeManifest.resources.get(resourcePath.event(largeManifest.slugs.get(LARGE_PROGRAMME_SLUG)!))!;
  const largeViews = new EventViews(objects, HUGE);
  console.log(
    `the largest organization: event index ${(await objects.read(large.organization.id, largeIndex)).length} stored bytes, largest detail ${(await objects.read(large.organization.id, largeDetail)).length}; the default views budget ${cacheBudgets(DEFAULT_CACHE_BYTES).views}`,
  );
  await measure(
    `views (event index of ${LARGE_ORGANIZATION_EVENTS} events, parsed)`,
    () => largeViews.stats,
    async () => {
      await largeViews.page(large.organization.id, largeIndex, Number.NEGATIVE_INFINITY, { timing: 'all', page: 1_000_000, pageSize: 1 });
      return 1;
    },
  );
  await measure(
    'views (the same, every upcoming page of 100 rendered)',
    () => largeViews.stats,
    async () => {
      for (let page = 1; page <= 25; page++) await largeViews.page(large.organization.id, largeIndex, now, { timing: 'upcoming', page, pageSize: 100 });
      return 1;
    },
  );
  await measure(
    'views (the largest event detail, one rendering)',
    () => largeViews.stats,
    async () => {
      await largeViews.detail(large.organization.id, largeDetail, now);
      return 1;
    },
  );

  const KEYS = ORGANIZATIONS * 4;
  const recent = new RecentVerdicts({ maxBytes: HUGE });
  await measure(
    'verdicts (key records)',
    () => recent.stats,
    () => {
      for (let i = 0; i < KEYS; i++) {
        recent.confirm(
          {
            id: `key_${randomBytes(6).toString('hex')}`,
            organizationId: randomUUID(),
            label: null,
            origins: [],
            createdAt: new Date(now - i).toISOString(),
            expiresAt: null,
            revokedAt: null,
            revocationScheduled: false,
            prefix: `mqk_${randomBytes(2).toString('hex')}`,
            lastUsedAt: new Date(now - i).toISOString(),
            secretHash: randomBytes(32).toString('hex'),
          },
          now,
        );
      }
      return KEYS;
    },
  );
  const parsed = new ParsedKeys(HUGE);
  await measure(
    'parsed_keys',
    () => parsed.stats,
    () => {
      for (let i = 0; i < KEYS; i++) parsed.parse(generateSecret());
      return KEYS;
    },
  );
  const rates = new InMemoryRateLimiter({ limit: 600, windowSeconds: 60, maxBytes: HUGE });
  await measure(
    'key_rates (60 s buckets)',
    () => rates.stats,
    () => {
      for (let i = 0; i < KEYS; i++) rates.consume(`key_${randomBytes(6).toString('hex')}`, now);
      return KEYS;
    },
  );
  const origins = new OriginMatcherCache(HUGE);
  await measure(
    'origins (one origin each)',
    () => origins.stats,
    () => {
      for (let i = 0; i < KEYS; i++) origins.matcherFor(`key_${randomBytes(6).toString('hex')}`, [`https://site-${i}.example.org`]);
      return KEYS;
    },
  );

  // The whole gateway, caches filled past a small budget: what its heap holds besides the caches
  // must not grow with the organizations served (nothing per organization outside a budget).
  const keyStore = new InMemoryKeyStore();
  const keys = await Promise.all(ids.map(async (organizationId) => (await keyStore.create({ organizationId, label: null, origins: [] })).secret));
  const registry = new Registry();
  const gateway = createGateway({ snapshots: store, keys: keyStore, log: new RecordingLog(), metrics: gatewayMetrics(registry), limits: { cacheBytes: 16 * 1024 * 1024 } });
  const server = createServer(gateway.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 4 });
  const besidesCaches: string[] = [];
  const cachedBytes = async () =>
    [...(await registry.metrics()).matchAll(/^marquee_gateway_cache_bytes\{cache="\w+"\} (\S+)$/gm)].reduce((sum, [, bytes]) => sum + Number(bytes), 0);
  const baseline = heapBytes() - (await cachedBytes());
  for (let round = 0; round < 3; round++) {
    for (const key of keys) {
      const response = await client.request({ path: '/api/integration/v1/organization', method: 'GET', headers: { authorization: `Bearer ${key}` } });
      await response.body.dump();
    }
    besidesCaches.push(`${((heapBytes() - (await cachedBytes()) - baseline) / 1024 / 1024).toFixed(1)} MB after round ${round + 1}`);
  }
  await client.close();
  server.close();
  await gateway.close();

  console.log(`node ${process.version}, ${ORGANIZATIONS} organizations\n`);
  console.log(
    `gateway (GATEWAY_CACHE_MB=16, ${ORGANIZATIONS} organizations round-robin): heap besides its caches, beyond what it was before the first request: ${besidesCaches.join(', ')}\n`,
  );
  console.log('| cache | entries | measured bytes/entry | estimated (weigh) | estimate ÷ measured |\n|---|---|---|---|---|');
  for (const row of rows) {
    console.log(`| ${row.cache} | ${row.entries} | ${row.measured.toFixed(0)} | ${row.estimated.toFixed(0)} | ${(row.estimated / row.measured).toFixed(2)} |`);
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
