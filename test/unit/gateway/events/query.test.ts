import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../gateway/errors.ts';
import { parseEventsQuery } from '../../../../gateway/events/query.ts';

function rejection(queryString: string): ApiError {
  try {
    parseEventsQuery(queryString);
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
