import { describe, expect, it } from 'vitest';
import { humanizeAge, showInstant } from '../../../../admin/console/relative-time.ts';

const NOW = new Date('2026-11-22T10:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);

describe('humanizeAge', () => {
  it.each([
    [0, 'just now'],
    [4, 'just now'],
    [-3, 'just now'],
    [5, '5 seconds ago'],
    [59, '59 seconds ago'],
    [60, '1 minute ago'],
    [3 * 60 + 50, '3 minutes ago'],
    [3600, '1 hour ago'],
    [26 * 3600, '1 day ago'],
    [8 * 24 * 3600, '1 week ago'],
    [45 * 24 * 3600, '1 month ago'],
    [400 * 24 * 3600, '1 year ago'],
    [-2 * 3600, 'in 2 hours'],
  ])('%i seconds before now reads "%s"', (seconds, text) => {
    expect(humanizeAge(ago(seconds), NOW)).toBe(text);
  });
});

describe('showInstant', () => {
  it('gives the ISO instant for <time datetime> and the age for people', () => {
    expect(showInstant('2026-11-22T09:57:00+00:00', NOW)).toEqual({ iso: '2026-11-22T09:57:00.000Z', age: '3 minutes ago' });
  });

  it('shows nothing for no instant or one that cannot be read', () => {
    expect(showInstant(null, NOW)).toBeUndefined();
    expect(showInstant(undefined, NOW)).toBeUndefined();
    expect(showInstant('yesterday-ish', NOW)).toBeUndefined();
  });
});
