// Turning a stored event (index item or detail) into what the API serves: `clock` removed,
// `timing` and `isRegistrationOpen` added, serialized canonically like every stored object.
// The canonical text around the two fields is built once per event and kept instead of the parsed
// event: serving a state is then a concatenation, and memory holds about the stored size rather
// than a tree of objects several times that.
import { canonicalJson } from '../../snapshot/canonical.ts';
import type { EventClock } from '../../snapshot/resources.ts';
import { isOpenIn, parseClock, timingOf, type ClockState, type ParsedClock } from '../timing.ts';

/** Canonical JSON of an event with its clock fields as head + isRegistrationOpen + middle + timing + tail. */
export interface ClockTemplate {
  readonly head: string;
  readonly middle: string;
  readonly tail: string;
}

export interface SplitEvent {
  template: ClockTemplate;
  clock: ParsedClock;
}

const OPEN_KEY = 'isRegistrationOpen';
const TIMING_KEY = 'timing';

export function splitClock(stored: { clock: EventClock }): SplitEvent {
  const { clock, ...core } = stored;
  return { template: clockTemplate(core), clock: parseClock(clock) };
}

/**
 * Canonical order sorts keys by UTF-16 code units, as `<` and sort() compare strings, and
 * "isRegistrationOpen" < "timing": the core's members fall before, between or after them.
 * Members named like a clock field are replaced by it, as an object spread would.
 */
function clockTemplate(core: Record<string, unknown>): ClockTemplate {
  const before: string[] = ['{'];
  const between: string[] = [];
  const after: string[] = ['"'];
  for (const key of Object.keys(core).sort()) {
    if (key === OPEN_KEY || key === TIMING_KEY) continue;
    const member = `${JSON.stringify(key)}:${canonicalJson(core[key])}`;
    if (key < OPEN_KEY) before.push(member, ',');
    else if (key < TIMING_KEY) between.push(',', member);
    else after.push(',', member);
  }
  before.push(`"${OPEN_KEY}":`);
  between.push(`,"${TIMING_KEY}":"`);
  after.push('}');
  // join() makes flat strings; concatenation would keep every part alive in a rope.
  return { head: before.join(''), middle: between.join(''), tail: after.join('') };
}

export function renderWithClockFields(template: ClockTemplate, state: ClockState): string {
  return template.head + String(isOpenIn(state)) + template.middle + timingOf(state) + template.tail;
}
