// GET /events paging (docs/api.md §4, docs/design.md decisions table): pages partition the list, totalCount is
// true on every page, hasMore says whether the next page could return anything.
import { describe, expect, it } from 'vitest';
import type { PagedEventSummaries } from '../../../snapshot/schema-types.ts';
import { usePublishedOrganization } from '../../support/gateway-world.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

const UPCOMING = 45;
const PAST = 7;

const many = usePublishedOrganization(
  () => {
    const fixture = new PlatformFixture();
    // Pairs share a start so that ties (by name) are exercised across page boundaries.
    for (let i = 0; i < UPCOMING; i++) {
      const day = String(1 + Math.floor(i / 2)).padStart(2, '0');
      fixture.event({ name: `Up ${String(i).padStart(2, '0')}`, startsAt: `2026-04-${day}T09:00:00Z`, endsAt: `2026-04-${day}T17:00:00Z` });
    }
    for (let i = 0; i < PAST; i++) {
      fixture.event({ name: `Past ${i}`, startsAt: `2026-01-0${1 + Math.floor(i / 2)}T09:00:00Z`, endsAt: `2026-01-0${1 + Math.floor(i / 2)}T17:00:00Z` });
    }
    return fixture;
  },
  { now: '2026-03-01T12:00:00Z' },
);

async function page(query: string): Promise<PagedEventSummaries> {
  const reply = await many.call(`/events?${query}`);
  expect(reply.status).toBe(200);
  return reply.json<PagedEventSummaries>();
}

describe('paging', () => {
  it.each([1, 2, 7, 20, 44, 45, 100])('pages of %i concatenate to the whole list, in order', async (pageSize) => {
    const whole = (await page('pageSize=100')).items.map((item) => item.name);
    expect(whole).toHaveLength(UPCOMING);
    const collected: string[] = [];
    for (let n = 1; ; n++) {
      const current = await page(`pageSize=${pageSize}&page=${n}`);
      expect(current).toMatchObject({ page: n, pageSize, totalCount: UPCOMING });
      collected.push(...current.items.map((item) => item.name));
      expect(current.hasMore).toBe(n * pageSize < UPCOMING);
      if (!current.hasMore) break;
    }
    expect(collected).toEqual(whole);
  });

  it('orders upcoming by start, ties by name', async () => {
    const names = (await page('pageSize=100')).items.map((item) => item.name);
    expect(names).toEqual([...names].sort());
  });

  it('orders past newest first, ties by name', async () => {
    expect((await page('timing=past')).items.map((item) => item.name)).toEqual(['Past 6', 'Past 4', 'Past 5', 'Past 2', 'Past 3', 'Past 0', 'Past 1']);
  });

  it('a page beyond the last is empty with the true totalCount', async () => {
    expect(await page('page=99&pageSize=10')).toEqual({ items: [], page: 99, pageSize: 10, totalCount: UPCOMING, hasMore: false });
    expect(await page('page=2147483647&pageSize=100')).toMatchObject({ items: [], totalCount: UPCOMING, hasMore: false });
    expect(await page('timing=ongoing')).toEqual({ items: [], page: 1, pageSize: 20, totalCount: 0, hasMore: false });
  });

  it('defaults to pageSize 20 and ignores unknown parameters', async () => {
    expect(await page('foo=bar&limit=3&offset=9')).toMatchObject({ page: 1, pageSize: 20, totalCount: UPCOMING, hasMore: true });
    expect((await page('')).items).toHaveLength(20);
  });

  it('timing=all counts every published event', async () => {
    expect((await page('timing=all')).totalCount).toBe(UPCOMING + PAST);
  });
});
