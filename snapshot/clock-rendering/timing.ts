// Clock-dependent fields of an event (docs/design.md "Clock-dependent fields"): pure functions of the
// stored EventClock and an instant, and the instants at which their values can change.
import type { EventClock, EventSummary } from '../schema-types.ts';

export type Timing = EventSummary['timing'];

/** An EventClock with its instants parsed once, in milliseconds since the epoch (null = unset). */
export interface ParsedClock {
  start: number;
  end: number;
  registrationStart: number | null;
  registrationEnd: number | null;
  registrationAvailable: boolean;
}

export class InvalidClockError extends Error {
  override name = 'InvalidClockError';
}

export function parseClock(clock: EventClock): ParsedClock {
  return {
    start: instant(clock.start, 'start'),
    end: instant(clock.end, 'end'),
    registrationStart: clock.registrationStart === null ? null : instant(clock.registrationStart, 'registrationStart'),
    registrationEnd: clock.registrationEnd === null ? null : instant(clock.registrationEnd, 'registrationEnd'),
    registrationAvailable: clock.registrationAvailable,
  };
}

function instant(text: string, field: string): number {
  const ms = Date.parse(text);
  // A NaN would silently make every comparison false; the builder validated the schema, so this
  // is a broken snapshot and must fail loudly instead.
  if (Number.isNaN(ms)) throw new InvalidClockError(`clock.${field} ${JSON.stringify(text)} is not an instant`);
  return ms;
}

/** upcoming if now < start; ongoing if start ≤ now < end; past if now ≥ end. */
export function timingAt(clock: ParsedClock, now: number): Timing {
  if (now < clock.start) return 'upcoming';
  if (now < clock.end) return 'ongoing';
  return 'past';
}

/** Registration available at build time, now inside the window where one is set, and now < end. */
export function isRegistrationOpenAt(clock: ParsedClock, now: number): boolean {
  return (
    clock.registrationAvailable &&
    (clock.registrationStart === null || now >= clock.registrationStart) &&
    (clock.registrationEnd === null || now < clock.registrationEnd) &&
    now < clock.end
  );
}

/**
 * Both clock fields in one small integer (timing index × 2 + open), so that views can memoize
 * per state in a six-slot array and compare states cheaply.
 */
export type ClockState = number;
const TIMING_ORDER: readonly Timing[] = ['upcoming', 'ongoing', 'past'];
export const CLOCK_STATE_COUNT = TIMING_ORDER.length * 2;

export function clockStateAt(clock: ParsedClock, now: number): ClockState {
  return TIMING_ORDER.indexOf(timingAt(clock, now)) * 2 + (isRegistrationOpenAt(clock, now) ? 1 : 0);
}

export function timingOf(state: ClockState): Timing {
  return TIMING_ORDER[state >> 1]!;
}

export function isOpenIn(state: ClockState): boolean {
  return (state & 1) === 1;
}

/**
 * The instants at which timingAt or isRegistrationOpenAt may change value. Every condition is
 * `now < x` or `now ≥ x`, so both fields are constant on each [bᵢ, bᵢ₊₁).
 */
export function boundariesOf(clock: ParsedClock): number[] {
  const out = [clock.start, clock.end];
  if (clock.registrationStart !== null) out.push(clock.registrationStart);
  if (clock.registrationEnd !== null) out.push(clock.registrationEnd);
  return out;
}

/** Sorted, without duplicates. */
export function sortedBoundaries(clocks: Iterable<ParsedClock>): number[] {
  const all = new Set<number>();
  for (const clock of clocks) for (const at of boundariesOf(clock)) all.add(at);
  return [...all].sort((a, b) => a - b);
}

/** The interval [from, until) containing `now` in which no boundary falls: the states hold there. */
export function stableInterval(sorted: readonly number[], now: number): { from: number; until: number } {
  // First index whose boundary is > now.
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid]! <= now) low = mid + 1;
    else high = mid;
  }
  return {
    from: low === 0 ? -Infinity : sorted[low - 1]!,
    until: low === sorted.length ? Infinity : sorted[low]!,
  };
}
