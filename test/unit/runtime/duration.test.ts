// The one duration grammar: config's variables and the key commands' options read it.
import { describe, expect, it } from 'vitest';
import { parseDurationMs } from '../../../runtime/duration.ts';

describe('parseDurationMs', () => {
  it.each([
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    ['0s', 0],
    [' 2s ', 2_000],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it.each(['', '0', '-1h', '1.5h', '10', '3w', 'h', '24 h', '99999999999999999999d'])('%j is no duration', (text) => {
    expect(parseDurationMs(text)).toBeUndefined();
  });
});
