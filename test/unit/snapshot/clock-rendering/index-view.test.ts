import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../snapshot/canonical.ts';
import { keyOrderOf } from '../../../../snapshot/key-order.ts';
import { SchemaSet } from '../../../../snapshot/schemas.ts';
import type { PagedEventSummaries } from '../../../../snapshot/schema-types.ts';
import { EventIndexView, pageKeyOf, pastOrder } from '../../../../snapshot/clock-rendering/index-view.ts';
import type { EventsQuery } from '../../../../snapshot/clock-rendering/events-query.ts';
import { contentObject } from '../../../../snapshot/hash.ts';
import { QUERY_SCHEMAS } from '../../../../snapshot/resource-catalog.ts';
import { inIndexOrder, storedSummary } from '../../../support/stored-events.ts';

const schemas = new SchemaSet();
const at = (text: string) => Date.parse(text);
const query = (overrides: Partial<EventsQuery> = {}): EventsQuery => ({ timing: 'upcoming', page: 1, pageSize: 20, ...overrides });

function viewOf(events = sample()): EventIndexView {
  const stored = contentObject(events);
  return EventIndexView.parse(stored.hash, stored.bytes);
}

function body(view: EventIndexView, now: number, q: EventsQuery): PagedEventSummaries {
  return JSON.parse(view.page(now, q).bytes.toString('utf8')) as PagedEventSummaries;
}

/** Past: 1, 2 (same start as 3), 3; ongoing: 4; upcoming: 5, 6 (same start, names decide). */
function sample() {
  return inIndexOrder([
    storedSummary({ n: 1, start: '2026-01-10T09:00:00Z', end: '2026-01-10T17:00:00Z' }),
    storedSummary({ n: 2, name: 'Alpha', start: '2026-02-10T09:00:00Z', end: '2026-02-10T17:00:00Z' }),
    storedSummary({ n: 3, name: 'Beta', start: '2026-02-10T09:00:00Z', end: '2026-02-10T17:00:00Z' }),
    storedSummary({ n: 4, start: '2026-02-28T09:00:00Z', end: '2026-03-05T17:00:00Z' }),
    storedSummary({ n: 5, name: 'Zed', start: '2026-04-01T09:00:00Z', end: '2026-04-01T17:00:00Z', registrationStart: '2026-03-15T00:00:00Z' }),
    storedSummary({ n: 6, name: 'Ant', start: '2026-04-01T09:00:00Z', end: '2026-04-01T17:00:00Z', registrationAvailable: false }),
  ]);
}
const NOW = at('2026-03-01T12:00:00Z');
const names = (page: PagedEventSummaries) => page.items.map((item) => item.name);

describe('EventIndexView', () => {
  it('filters by timing and orders upcoming and ongoing by start ascending, ties by name', () => {
    const view = viewOf();
    expect(names(body(view, NOW, query()))).toEqual(['Ant', 'Zed']);
    expect(names(body(view, NOW, query({ timing: 'ongoing' })))).toEqual(['Event 4']);
    expect(names(body(view, NOW, query({ timing: 'all' })))).toEqual(['Event 1', 'Alpha', 'Beta', 'Event 4', 'Ant', 'Zed']);
  });

  it('lists past newest first, keeping name order among events that start together', () => {
    expect(names(body(viewOf(), NOW, query({ timing: 'past' })))).toEqual(['Alpha', 'Beta', 'Event 1']);
  });

  it('computes timing and isRegistrationOpen per item and drops the stored clock', () => {
    const items = body(viewOf(), NOW, query({ timing: 'all' })).items;
    expect(items.map((item) => [item.name, item.timing, item.isRegistrationOpen])).toEqual([
      ['Event 1', 'past', false],
      ['Alpha', 'past', false],
      ['Beta', 'past', false],
      ['Event 4', 'ongoing', true],
      ['Ant', 'upcoming', false],
      ['Zed', 'upcoming', false],
    ]);
    expect(items.every((item) => !('clock' in item))).toBe(true);
    expect(body(viewOf(), at('2026-03-15T00:00:00Z'), query()).items.map((item) => item.isRegistrationOpen)).toEqual([false, true]);
  });

  it('serves canonical bytes that validate against paged-event-summaries', () => {
    const page = viewOf().page(NOW, query({ timing: 'all' }));
    const parsed: unknown = JSON.parse(page.bytes.toString('utf8'));
    expect(page.bytes.toString('utf8')).toBe(canonicalJson(parsed, keyOrderOf('paged-event-summaries')));
    expect(schemas.validate('paged-event-summaries', parsed)).toEqual({ valid: true });
  });

  it('pages: totalCount, hasMore, and an empty page beyond the last', () => {
    const view = viewOf();
    const all = (page: number, pageSize: number) => body(view, NOW, query({ timing: 'all', page, pageSize }));
    expect(all(1, 4)).toMatchObject({ page: 1, pageSize: 4, totalCount: 6, hasMore: true });
    expect(names(all(2, 4))).toEqual(['Ant', 'Zed']);
    expect(all(2, 4).hasMore).toBe(false);
    expect(all(2, 3).hasMore).toBe(false);
    expect(all(3, 3)).toEqual({ items: [], page: 3, pageSize: 3, totalCount: 6, hasMore: false });
    expect(all(2147483647, 100)).toEqual({ items: [], page: 2147483647, pageSize: 100, totalCount: 6, hasMore: false });
  });

  it('an empty index gives empty pages', () => {
    expect(body(viewOf([]), NOW, query())).toEqual({ items: [], page: 1, pageSize: 20, totalCount: 0, hasMore: false });
  });

  it('keeps the entity tag while nothing changes and changes it exactly when the page changes', () => {
    const view = viewOf();
    const tag = (now: number, q = query()) => view.page(now, q).etag;
    // Within one window: same tag, even hours apart.
    expect(tag(NOW)).toBe(tag(at('2026-03-10T00:00:00Z')));
    // Event 5's registration opens at 2026-03-15: the upcoming page changes.
    expect(tag(at('2026-03-15T00:00:00Z'))).not.toBe(tag(at('2026-03-15T00:00:00Z') - 1));
    // Different pages of one window differ; the same page asked again does not.
    expect(tag(NOW, query({ timing: 'past' }))).not.toBe(tag(NOW));
    expect(tag(NOW, query({ timing: 'past' }))).toBe(tag(NOW, query({ timing: 'past' })));
  });

  it('follows a clock that moves backwards', () => {
    const view = viewOf();
    const later = names(body(view, at('2026-12-01T00:00:00Z'), query({ timing: 'past' })));
    expect(later).toHaveLength(6);
    expect(names(body(view, NOW, query({ timing: 'past' })))).toEqual(['Alpha', 'Beta', 'Event 1']);
  });
});

describe('pastOrder', () => {
  it('sorts start descending and keeps index order among equal starts', () => {
    expect(pastOrder([1, 2, 2, 3])).toEqual([3, 1, 2, 0]);
  });
});

describe('pageKeyOf: the page cache key and the ETag state follow the query schema', () => {
  it('names every member of EventsQuery, in the schema order', () => {
    expect(pageKeyOf<EventsQuery>(QUERY_SCHEMAS.EventsQuery)(query({ timing: 'past', page: 3, pageSize: 50 }))).toBe('past 3 50');
  });

  it('changes with a parameter added to a copy of the schema, with no edit of the view', () => {
    const { EventsQuery: schema } = QUERY_SCHEMAS;
    type WithCity = EventsQuery & { city: string };
    const keyWithCity = pageKeyOf<WithCity>({ ...schema, properties: { ...schema.properties, city: { type: 'string' } } });
    const oslo = keyWithCity({ ...query(), city: 'Oslo' });
    expect(oslo).not.toBe(keyWithCity({ ...query(), city: 'Bergen' }));
    expect(oslo).toBe('upcoming 1 20 Oslo');
  });

  it('gives pages of different queries different tags, and the same query the same page', () => {
    const view = viewOf();
    const first = view.page(NOW, query({ pageSize: 1 }));
    expect(view.page(NOW, query({ pageSize: 1 }))).toBe(first);
    expect(view.page(NOW, query({ pageSize: 2 })).etag).not.toBe(first.etag);
  });
});
