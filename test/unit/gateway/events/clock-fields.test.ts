// The clock template renders exactly what canonical serialization of the patched event would.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../snapshot/canonical.ts';
import { renderWithClockFields, splitClock } from '../../../../gateway/events/clock-fields.ts';
import { CLOCK_STATE_COUNT, isOpenIn, timingOf } from '../../../../gateway/timing.ts';

const clock = { start: '2026-05-01T09:00:00Z', end: '2026-05-01T17:00:00Z', registrationStart: null, registrationEnd: null, registrationAvailable: true };

describe('renderWithClockFields', () => {
  it('equals canonicalJson of the event without clock and with both clock fields, for members anywhere in key order', () => {
    const member = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.dictionary(fc.string(), fc.string())));
    fc.assert(fc.property(fc.dictionary(fc.string(), member), fc.integer({ min: 0, max: CLOCK_STATE_COUNT - 1 }), (core, state) => {
      const { template } = splitClock({ ...core, clock });
      const expected = canonicalJson({ ...core, timing: timingOf(state), isRegistrationOpen: isOpenIn(state) });
      expect(renderWithClockFields(template, state)).toBe(expected);
    }));
  });

  it('handles the edges: no members, and members named a, isRegistrationOpen, j, timing, z', () => {
    for (const core of [{}, { a: 1, isRegistrationOpen: 'x', j: [], timing: {}, z: 'end' }]) {
      const { template } = splitClock({ ...core, clock });
      expect(renderWithClockFields(template, 3)).toBe(canonicalJson({ ...core, timing: 'ongoing', isRegistrationOpen: true }));
    }
  });
});
