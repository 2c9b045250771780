import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../gateway/errors.ts';
import { parseChangesQuery, parseEventsQuery } from '../../../../gateway/events/query.ts';

function rejection(queryString: string, parser: (queryString: string) => unknown = parseEventsQuery): ApiError {
  try {
    parser(queryString);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`accepted ${queryString}`);
}

describe('parseEventsQuery', () => {
  it('defaults to upcoming, page 1, pageSize 20 (docs/api.md §4)', () => {
    expect(parseEventsQuery('')).toEqual({ timing: 'upcoming', page: 1, pageSize: 20 });
  });

  it('accepts every timing filter and the limits of page and pageSize', () => {
    for (const timing of ['upcoming', 'ongoing', 'past', 'all']) expect(parseEventsQuery(`timing=${timing}`).timing).toBe(timing);
    expect(parseEventsQuery('page=2147483647&pageSize=100')).toEqual({ timing: 'upcoming', page: 2147483647, pageSize: 100 });
    expect(parseEventsQuery('page=1&pageSize=1')).toEqual({ timing: 'upcoming', page: 1, pageSize: 1 });
    expect(parseEventsQuery('page=007').page).toBe(7);
    expect(parseEventsQuery('timing=%70ast').timing).toBe('past');
  });

  it('ignores unknown parameters (docs/design.md decisions table)', () => {
    expect(parseEventsQuery('sort=name&limit=5&page[]=x')).toEqual({ timing: 'upcoming', page: 1, pageSize: 20 });
  });

  it('parses a query string once: the same page, which no caller can change, and a refusal every time', () => {
    const first = parseEventsQuery('timing=past&pageSize=50');
    expect(parseEventsQuery('timing=past&pageSize=50')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(rejection('pageSize=500').status).toBe(400);
    expect(rejection('pageSize=500').status).toBe(400);
  });

  it.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=1.5', 'page'],
    ['page=1e2', 'page'],
    ['page=', 'page'],
    ['page=%201', 'page'],
    ['page=0x10', 'page'],
    ['page=2147483648', 'page'],
    ['page=99999999999999999999', 'page'],
    ['pageSize=0', 'pageSize'],
    ['pageSize=101', 'pageSize'],
    ['pageSize=ten', 'pageSize'],
    ['timing=UPCOMING', 'timing'],
    ['timing=future', 'timing'],
    ['timing=', 'timing'],
    ['page=1&page=2', 'page'],
    ['timing=past&timing=past', 'timing'],
    ['pageSize=10&pageSize=10', 'pageSize'],
  ])('refuses %s with 400 naming %s', (queryString, parameter) => {
    const error = rejection(queryString);
    expect(error.status).toBe(400);
    expect(error.errorCode).toBe('BAD_REQUEST');
    expect(error.detail.startsWith(`${parameter} `)).toBe(true);
  });
});

describe('the 400s, word for word as before the schema (docs/api.md §4.1 rule 3, §10)', () => {
  it.each([
    ['timing=soon', 'timing must be one of upcoming, ongoing, past, all.'],
    ['page=abc', 'page must be an integer from 1 to 2147483647.'],
    ['pageSize=101', 'pageSize must be an integer from 1 to 100.'],
    ['page=1&page=2', 'page must be given at most once.'],
    // The first member in the schema's order that is wrong is the one named, as by hand.
    ['page=1&page=2&timing=soon', 'timing must be one of upcoming, ongoing, past, all.'],
    ['pageSize=0&page=x', 'page must be an integer from 1 to 2147483647.'],
  ])('GET /events?%s: %s', (queryString, detail) => {
    expect(rejection(queryString).detail).toBe(detail);
  });

  it.each([
    ['since=x', 'since must be a snapshot id, as Marquee-Snapshot-Id or an earlier answer of /changes named it.'],
    ['since=', 'since must be a snapshot id, as Marquee-Snapshot-Id or an earlier answer of /changes named it.'],
    ['since=a&since=b', 'since must be given at most once.'],
  ])('GET /changes?%s: %s', (queryString, detail) => {
    const error = rejection(queryString, parseChangesQuery);
    expect({ status: error.status, errorCode: error.errorCode, detail: error.detail }).toEqual({ status: 400, errorCode: 'BAD_REQUEST', detail });
  });
});

describe('parseChangesQuery', () => {
  it('reads since when given, and nothing else', () => {
    expect(parseChangesQuery('')).toEqual({});
    expect(parseChangesQuery('since=20260101T000000000Z-0123456789ab&page=2')).toEqual({ since: '20260101T000000000Z-0123456789ab' });
  });
});
