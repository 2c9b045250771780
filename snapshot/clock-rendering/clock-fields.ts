// Turning a stored event (index item or detail) into what the API serves: `clock` removed,
// `timing` and `isRegistrationOpen` added where the API schema lists them, serialized canonically
// like every stored object (../canonical.ts). The canonical text around the two fields is
// built once per event and kept instead of the parsed event: serving a state is then a
// concatenation, and memory holds about the stored size rather than a tree of objects several
// times that.
import { canonicalJson } from '../canonical.ts';
import type { KeyOrder } from '../key-order.ts';
import type { EventClock } from '../schema-types.ts';
import { isOpenIn, parseClock, timingOf, type ClockState, type ParsedClock } from './timing.ts';

export type ClockField = 'timing' | 'isRegistrationOpen';
const CLOCK_FIELDS: ReadonlySet<string> = new Set<ClockField>(['timing', 'isRegistrationOpen']);

/** Canonical JSON of an event cut at its clock fields: parts[0] slot[0] parts[1] … parts[n]. */
export interface ClockTemplate {
  readonly parts: readonly string[];
  readonly slots: readonly ClockField[];
}

export interface SplitEvent {
  template: ClockTemplate;
  clock: ParsedClock;
}

/** `order`: the API schema's order (event-summary or event-detail), which places the clock fields. */
export function splitClock(stored: { clock: EventClock }, order: KeyOrder): SplitEvent {
  const { clock, ...core } = stored;
  return { template: clockTemplate(core, order), clock: parseClock(clock) };
}

function clockTemplate(core: Record<string, unknown>, order: KeyOrder): ClockTemplate {
  const listed = order.keys;
  if (listed === undefined) throw new Error("an event's API schema must list its properties");
  const parts: string[] = [];
  const slots: ClockField[] = [];
  // Each part is gathered as pieces and joined once: join() writes one flat string, whereas `+=`
  // would keep a rope holding every member's text alive for as long as the template is kept
  // (about 40 MB over 1,000 organizations' events).
  let pieces: string[] = ['{'];
  let members = 0;
  for (const key of listed) {
    const isClockField = CLOCK_FIELDS.has(key);
    if (!isClockField && !Object.hasOwn(core, key)) continue;
    if (members++ > 0) pieces.push(',');
    if (isClockField) {
      const field = key as ClockField;
      // timing is a string: its quotes belong to the text around the slot.
      pieces.push(`"${field}":`, field === 'timing' ? '"' : '');
      parts.push(pieces.join(''));
      slots.push(field);
      pieces = [field === 'timing' ? '"' : '', ''];
    } else {
      pieces.push(JSON.stringify(key), ':', canonicalJson(core[key], order.member(key)));
    }
  }
  const unlisted = Object.keys(core).filter((key) => !listed.includes(key));
  if (unlisted.length > 0) throw new Error(`stored event has members its API schema does not list: ${unlisted.join(', ')}`);
  pieces.push('}');
  parts.push(pieces.join(''));
  return { parts, slots };
}

export function renderWithClockFields(template: ClockTemplate, state: ClockState): string {
  const { parts, slots } = template;
  let out = parts[0]!;
  for (let i = 0; i < slots.length; i++) {
    out += (slots[i] === 'timing' ? timingOf(state) : String(isOpenIn(state))) + parts[i + 1]!;
  }
  return out;
}
