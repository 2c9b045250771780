// The largest organization the gateway benchmark serves (5,000 events, one with a three-day
// programme: test/support/large-organization.ts), on a gateway with the default cache budget:
// its event index and its largest detail are each parsed once, however many requests, pages,
// filters and clock windows follow. Not a timing: the views cache's misses on /metrics, which
// count parses, are the guard (a view too large for its budget is parsed on every request, which
// is what once made this list 25 times slower: docs/performance.md).
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { gatewayMetrics } from '../../../gateway/metrics.ts';
import type { EventDetail, PagedEventSummaries } from '../../../snapshot/schema-types.ts';
import { usePublishedOrganization } from '../../support/gateway-world.ts';
import { LARGE_ORGANIZATION_EVENTS, LARGE_PROGRAMME_SLUG, largeOrganization } from '../../support/large-organization.ts';

const NOW = '2026-03-01T12:00:00Z';
const HOUR = 3_600_000;

const registry = new Registry();
// No `limits`: the default budget (gateway/cache-budget.ts), as `marquee serve` runs without GATEWAY_CACHE_MB.
const large = usePublishedOrganization(() => largeOrganization(Date.parse(NOW)), { now: NOW, deps: { metrics: gatewayMetrics(registry) } });

/** The views cache's lookups that missed (each a parse of a stored object), from the gateway's metrics. */
async function viewParses(): Promise<number> {
  const text = await registry.metrics();
  const match = /^marquee_gateway_cache_lookups_total\{cache="views",result="miss"\} (\S+)$/m.exec(text);
  expect(match, 'the views cache is on /metrics').not.toBeNull();
  return Number(match![1]);
}

async function get<T>(path: string): Promise<T> {
  const reply = await large.call(path);
  expect(reply.status, path).toBe(200);
  return reply.json<T>();
}

describe(`an organization with ${LARGE_ORGANIZATION_EVENTS} events, default cache budget`, () => {
  it('parses its event index once across every page, filter and clock window of /events', async () => {
    expect(await viewParses()).toBe(0);
    const first = await get<PagedEventSummaries>('/events?timing=upcoming&pageSize=100');
    expect(first.items).toHaveLength(100);
    expect(first.totalCount).toBeGreaterThan(2000);
    for (let round = 0; round < 3; round++) {
      for (let page = 1; page <= 25; page++) await get(`/events?timing=upcoming&pageSize=100&page=${page}`);
      for (const timing of ['past', 'ongoing', 'all']) await get(`/events?timing=${timing}&pageSize=100`);
      await get('/events');
      // Later in the day: events start and end, so the index's clock window changes (nothing is re-read).
      large.harness.clock.now += 7 * HOUR;
    }
    const later = await get<PagedEventSummaries>('/events?timing=upcoming&pageSize=100');
    expect(later.items[0]!.id).not.toBe(first.items[0]!.id);
    expect(await viewParses()).toBe(1);
  });

  it('parses its largest event detail once across many requests, and keeps the index beside it', async () => {
    const before = await viewParses();
    const detail = await get<EventDetail>(`/events/${LARGE_PROGRAMME_SLUG}`);
    expect(detail.sessions.length).toBe(192);
    for (let n = 0; n < 50; n++) {
      await get(`/events/${LARGE_PROGRAMME_SLUG}`);
      if (n % 10 === 0) await get('/events?timing=upcoming&pageSize=100');
    }
    expect(await viewParses()).toBe(before + 1);
  });
});
