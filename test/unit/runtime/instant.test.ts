import { describe, expect, it } from 'vitest';
import { parseZonedInstant } from '../../../runtime/instant.ts';

describe('parseZonedInstant', () => {
  it('reads an ISO 8601 instant with a zone: Z or an offset, with or without seconds and fractions', () => {
    expect(parseZonedInstant('2026-03-01T12:00:00Z')?.toISOString()).toBe('2026-03-01T12:00:00.000Z');
    expect(parseZonedInstant(' 2026-03-01T13:30+01:00 ')?.toISOString()).toBe('2026-03-01T12:30:00.000Z');
    expect(parseZonedInstant('2026-03-01T12:00:00.250-0230')?.toISOString()).toBe('2026-03-01T14:30:00.250Z');
  });

  it('refuses what depends on the reader: no zone, a bare date, words, an impossible date', () => {
    for (const text of ['2026-03-01T12:00:00', '2026-03-01', 'next tuesday', '', '2026-02-30T25:00:00Z', '1772366400000']) {
      expect(parseZonedInstant(text), text).toBeUndefined();
    }
  });
});
