// Turning a stored event (index item or detail) into what the API serves: `clock` removed,
// `timing` and `isRegistrationOpen` added, serialized canonically like every stored object.
import { canonicalJson } from '../../snapshot/canonical.ts';
import type { EventClock } from '../../snapshot/resources.ts';
import { isOpenIn, parseClock, timingOf, type ClockState, type ParsedClock } from '../timing.ts';

export interface SplitEvent<Core> {
  core: Core;
  clock: ParsedClock;
}

export function splitClock<Core extends object>(stored: Core & { clock: EventClock }): SplitEvent<Core> {
  const { clock, ...core } = stored;
  return { core: core as Core, clock: parseClock(clock) };
}

export function renderWithClockFields(core: object, state: ClockState): string {
  return canonicalJson({ ...core, timing: timingOf(state), isRegistrationOpen: isOpenIn(state) });
}
