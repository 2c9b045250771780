// The elements' pure parts (elements/marquee-elements.js): days on the venue's clock, tiers in the
// organizer's order, the schedule's grid and the refusals' words.
import { describe, expect, it } from 'vitest';
import { byDay, byTier, localDay, messageFor, scheduleGrid } from '../../../elements/marquee-elements.js';

const at = (utc: string, local: string) => ({ utc, local, timeZoneId: 'Europe/Berlin' });
const session = (name: string, room: string | null, start: ReturnType<typeof at>, end: ReturnType<typeof at>) => ({ name, room, start, end });

// Berlin's night of 27 to 28 March 2027: the clocks go from 02:00 CET to 03:00 CEST.
const kickOff = session('Kick-off', 'Main floor', at('2027-03-27T10:00:00Z', '2027-03-27T11:00:00+01:00'), at('2027-03-27T11:00:00Z', '2027-03-27T12:00:00+01:00'));
const night = session('Night', 'Main floor', at('2027-03-27T22:00:00Z', '2027-03-27T23:00:00+01:00'), at('2027-03-28T04:00:00Z', '2027-03-28T06:00:00+02:00'));
const lateUtc = session('Demos', 'Main floor', at('2027-03-27T23:30:00Z', '2027-03-28T00:30:00+01:00'), at('2027-03-28T00:30:00Z', '2027-03-28T01:30:00+01:00'));

describe('byDay', () => {
  it("groups by the venue's date, not UTC's: 23:30 UTC on the 27th is the 28th in Berlin", () => {
    expect(localDay(lateUtc.start)).toBe('2027-03-28');
    expect(byDay([kickOff, night, lateUtc]).map(({ day, sessions }) => [day, sessions.map((s) => s.name)])).toEqual([
      ['2027-03-27', ['Kick-off', 'Night']],
      ['2027-03-28', ['Demos']],
    ]);
  });
});

describe('byTier', () => {
  it("keeps the organizer's order: tiers as their first sponsor comes, sponsors in order within each", () => {
    const sponsors = [
      { name: 'A', tier: 'Gold' },
      { name: 'B', tier: 'Silver' },
      { name: 'C', tier: 'Gold' },
      { name: 'D', tier: null },
    ];
    expect(byTier(sponsors).map(({ tier, sponsors }) => [tier, sponsors.map((s) => s.name)])).toEqual([
      ['Gold', ['A', 'C']],
      ['Silver', ['B']],
      [null, ['D']],
    ]);
  });
});

describe('scheduleGrid', () => {
  const a = session('A', 'Hall A', at('2027-01-01T09:00:00Z', ''), at('2027-01-01T11:00:00Z', ''));
  const b = session('B', 'Hall B', at('2027-01-01T10:00:00Z', ''), at('2027-01-01T11:00:00Z', ''));
  const c = session('C', 'Hall A', at('2027-01-01T10:30:00Z', ''), at('2027-01-01T12:00:00Z', ''));

  it('gives a column per room and a row per interval, each session spanning its rows', () => {
    const grid = scheduleGrid([a, b]);
    expect(grid.rooms).toEqual(['Hall A', 'Hall B']);
    expect(grid.rows).toEqual(['2027-01-01T09:00:00Z', '2027-01-01T10:00:00Z']);
    expect(grid.placed.map(({ session, column, row, span }) => [session.name, column, row, span])).toEqual([
      ['A', 0, 0, 2],
      ['B', 1, 1, 1],
    ]);
  });

  it('opens a second column for a room whose sessions overlap, so none is hidden', () => {
    const grid = scheduleGrid([a, b, c]);
    expect(grid.rooms).toEqual(['Hall A', 'Hall B', 'Hall A']);
    expect(grid.placed.find((p) => p.session.name === 'C')).toMatchObject({ column: 2, row: 2, span: 2 });
  });
});

describe('messageFor', () => {
  it('words the refusals a site can meet, and names any other code in a generic line', () => {
    expect(messageFor('API_KEY_ORIGIN_NOT_ALLOWED')).toMatch(/not on the list of origins/);
    expect(messageFor('ORGANIZATION_SUSPENDED')).toBe('These events are not available at the moment.');
    expect(messageFor('RATE_LIMITED', '7')).toBe('Too many requests right now: try again in 7 s.');
    expect(messageFor('INTERNAL_ERROR')).toBe('The events could not be loaded (INTERNAL_ERROR). Try again later.');
    expect(messageFor(undefined)).toBe('The events could not be loaded. Try again later.');
  });
});
