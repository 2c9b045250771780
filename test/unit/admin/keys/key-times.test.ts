// The operator's durations and expiry instants (`--grace`, `--expires`).
import { describe, expect, it } from 'vitest';
import { parseDuration, parseExpiry } from '../../../../admin/keys/key-times.ts';

const NOW = new Date('2026-05-01T09:00:00.000Z');

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    [' 2s ', 2_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text, '--grace')).toBe(ms);
  });

  it.each(['', '-1h', '1.5h', '10', '3w', 'h', '99999999999999999999d'])('refuses %j naming the option', (text) => {
    expect(() => parseDuration(text, '--grace')).toThrow(/^--grace .* is not a duration/);
  });
});

describe('parseExpiry', () => {
  it('takes a duration from now, or an ISO instant with its offset', () => {
    expect(parseExpiry('90d', NOW).toISOString()).toBe('2026-07-30T09:00:00.000Z');
    expect(parseExpiry('2027-01-01T00:00:00Z', NOW).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(parseExpiry('2027-01-01T02:00:00+02:00', NOW).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it.each(['tomorrow', '2027-01-01', '2027-01-01T00:00:00', '2027-13-01T00:00:00Z'])('refuses %j', (text) => {
    expect(() => parseExpiry(text, NOW)).toThrow(/^expiresAt: /);
  });
});
