// The clock template renders exactly what canonical serialization of the patched event would,
// with the clock fields where the API schema lists them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderWithClockFields, splitClock } from '../../../../snapshot/clock-rendering/clock-fields.ts';
import { CLOCK_STATE_COUNT, isOpenIn, timingOf } from '../../../../snapshot/clock-rendering/timing.ts';
import { canonicalJson } from '../../../../snapshot/canonical.ts';
import { KeyOrder, keyOrderOf } from '../../../../snapshot/key-order.ts';
import { storedDetail, storedSummary } from '../../../support/stored-events.ts';

const clock = { start: '2026-05-01T09:00:00Z', end: '2026-05-01T17:00:00Z', registrationStart: null, registrationEnd: null, registrationAvailable: true };
const state = fc.integer({ min: 0, max: CLOCK_STATE_COUNT - 1 });

describe('renderWithClockFields', () => {
  it('equals canonicalJson of the event with both clock fields, whichever members are present and wherever the fields stand', () => {
    const names = ['a', 'timing', 'm', 'isRegistrationOpen', 'z'];
    const member = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.dictionary(fc.string(), fc.string())));
    const core = fc.record({ a: member, m: member, z: member }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.shuffledSubarray(names, { minLength: names.length }), core, state, (permutation, present, at) => {
        const order = KeyOrder.listed(permutation, new Map());
        const { template } = splitClock({ ...present, clock }, order);
        expect(renderWithClockFields(template, at)).toBe(canonicalJson({ ...present, timing: timingOf(at), isRegistrationOpen: isOpenIn(at) }, order));
      }),
    );
  });

  it.each([
    ['event-summary', storedSummary({ n: 1, start: '2026-05-01T09:00:00Z', end: '2026-05-01T17:00:00Z' })],
    ['event-detail', storedDetail({ n: 1, start: '2026-05-01T09:00:00Z', end: '2026-05-01T17:00:00Z' })],
  ] as const)('renders a stored event as its %s schema orders it: timing after logo, isRegistrationOpen after longitude', (schema, stored) => {
    const order = keyOrderOf(schema);
    const { template } = splitClock(stored, order);
    for (let at = 0; at < CLOCK_STATE_COUNT; at++) {
      const text = renderWithClockFields(template, at);
      const { clock: _clock, ...core } = stored;
      expect(text).toBe(canonicalJson({ ...core, timing: timingOf(at), isRegistrationOpen: isOpenIn(at) }, order));
      const keys = Object.keys(JSON.parse(text) as object);
      expect(keys.slice(0, 3)).toEqual(['id', 'name', 'slug']);
      expect(keys.indexOf('timing')).toBe(keys.indexOf('logo') + 1);
      expect(keys.indexOf('isRegistrationOpen')).toBe(keys.indexOf('longitude') + 1);
    }
  });

  it('refuses a stored event with a member its API schema does not list', () => {
    expect(() => splitClock({ name: 'x', secret: 'y', clock } as { clock: typeof clock }, KeyOrder.listed(['name', 'timing', 'isRegistrationOpen'], new Map()))).toThrow(/secret/);
  });
});
