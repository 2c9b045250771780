import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventClock } from '../../../../snapshot/schema-types.ts';
import {
  boundariesOf,
  clockStateAt,
  InvalidClockError,
  isOpenIn,
  isRegistrationOpenAt,
  parseClock,
  sortedBoundaries,
  stableInterval,
  timingAt,
  timingOf,
} from '../../../../snapshot/clock-rendering/timing.ts';

const at = (text: string) => Date.parse(text);
const clock = (overrides: Partial<EventClock> = {}) =>
  parseClock({
    start: '2026-05-01T09:00:00Z',
    end: '2026-05-01T17:00:00Z',
    registrationStart: null,
    registrationEnd: null,
    registrationAvailable: true,
    ...overrides,
  });

describe('timingAt', () => {
  it('is upcoming before start, ongoing from start, past from end (docs/design.md)', () => {
    const c = clock();
    expect(timingAt(c, at('2026-05-01T08:59:59.999Z'))).toBe('upcoming');
    expect(timingAt(c, at('2026-05-01T09:00:00Z'))).toBe('ongoing');
    expect(timingAt(c, at('2026-05-01T16:59:59.999Z'))).toBe('ongoing');
    expect(timingAt(c, at('2026-05-01T17:00:00Z'))).toBe('past');
  });

  it('goes straight from upcoming to past for an event that ends when it starts', () => {
    const c = clock({ end: '2026-05-01T09:00:00Z' });
    expect(timingAt(c, at('2026-05-01T09:00:00Z') - 1)).toBe('upcoming');
    expect(timingAt(c, at('2026-05-01T09:00:00Z'))).toBe('past');
  });
});

describe('isRegistrationOpenAt', () => {
  it('opens at registrationStart and closes at registrationEnd', () => {
    const c = clock({ registrationStart: '2026-04-01T00:00:00Z', registrationEnd: '2026-04-30T00:00:00Z' });
    expect(isRegistrationOpenAt(c, at('2026-04-01T00:00:00Z') - 1)).toBe(false);
    expect(isRegistrationOpenAt(c, at('2026-04-01T00:00:00Z'))).toBe(true);
    expect(isRegistrationOpenAt(c, at('2026-04-30T00:00:00Z') - 1)).toBe(true);
    expect(isRegistrationOpenAt(c, at('2026-04-30T00:00:00Z'))).toBe(false);
  });

  it('without a window is open until the event ends', () => {
    const c = clock();
    expect(isRegistrationOpenAt(c, at('2020-01-01T00:00:00Z'))).toBe(true);
    expect(isRegistrationOpenAt(c, at('2026-05-01T17:00:00Z') - 1)).toBe(true);
    expect(isRegistrationOpenAt(c, at('2026-05-01T17:00:00Z'))).toBe(false);
  });

  it('never opens when registration was not available at build time (disabled or full)', () => {
    expect(isRegistrationOpenAt(clock({ registrationAvailable: false }), at('2026-05-01T10:00:00Z'))).toBe(false);
  });

  it('closes at the end even when the window runs longer', () => {
    const c = clock({ registrationEnd: '2026-06-01T00:00:00Z' });
    expect(isRegistrationOpenAt(c, at('2026-05-01T17:00:00Z'))).toBe(false);
  });
});

describe('clock states', () => {
  it('encode timing and registration together', () => {
    const c = clock();
    const state = clockStateAt(c, at('2026-05-01T10:00:00Z'));
    expect(timingOf(state)).toBe('ongoing');
    expect(isOpenIn(state)).toBe(true);
  });

  it('hold between consecutive boundaries and nowhere change inside one (property)', () => {
    const instant = fc.integer({ min: 0, max: 1_000_000 });
    fc.assert(
      fc.property(instant, instant, fc.option(instant), fc.option(instant), fc.boolean(), instant, (a, b, rs, re, available, now) => {
        const iso = (ms: number) => new Date(ms * 1000).toISOString().replace('.000', '');
        const c = parseClock({
          start: iso(Math.min(a, b)),
          end: iso(Math.max(a, b)),
          registrationStart: rs === null ? null : iso(rs),
          registrationEnd: re === null ? null : iso(re),
          registrationAvailable: available,
        });
        const nowMs = now * 1000;
        const { from, until } = stableInterval(sortedBoundaries([c]), nowMs);
        expect(from).toBeLessThanOrEqual(nowMs);
        expect(until).toBeGreaterThan(nowMs);
        const state = clockStateAt(c, nowMs);
        if (Number.isFinite(from)) expect(clockStateAt(c, from)).toBe(state);
        if (Number.isFinite(until)) expect(clockStateAt(c, until - 1)).toBe(state);
      }),
    );
  });

  it('lists start, end and the registration window as boundaries', () => {
    const c = clock({ registrationStart: '2026-04-01T00:00:00Z', registrationEnd: '2026-04-30T00:00:00Z' });
    expect(boundariesOf(c).sort()).toEqual([at('2026-04-01T00:00:00Z'), at('2026-04-30T00:00:00Z'), at('2026-05-01T09:00:00Z'), at('2026-05-01T17:00:00Z')].sort());
  });
});

describe('stableInterval', () => {
  it('is unbounded outside the boundaries and half-open inside', () => {
    const sorted = [10, 20, 30];
    expect(stableInterval(sorted, 5)).toEqual({ from: -Infinity, until: 10 });
    expect(stableInterval(sorted, 10)).toEqual({ from: 10, until: 20 });
    expect(stableInterval(sorted, 29)).toEqual({ from: 20, until: 30 });
    expect(stableInterval(sorted, 30)).toEqual({ from: 30, until: Infinity });
    expect(stableInterval([], 0)).toEqual({ from: -Infinity, until: Infinity });
  });
});

describe('parseClock', () => {
  it('refuses an instant it cannot read instead of computing with NaN', () => {
    expect(() => clock({ start: 'soon' })).toThrow(InvalidClockError);
  });
});
