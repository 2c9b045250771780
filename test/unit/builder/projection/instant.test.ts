// docs/api.md §2 Instant / docs/design.md "Instant format": utc in whole seconds, local on the venue's wall
// clock with its offset, DST-correct in the event's IANA zone.
import { describe, expect, it } from 'vitest';
import { zoneClock } from '../../../../builder/projection/instant.ts';

const at = (zone: string, utc: string) => zoneClock(zone).instant(utc);

describe('zoneClock().instant', () => {
  it('prints utc in whole seconds and local with the offset', () => {
    expect(at('Europe/Berlin', '2026-05-01T09:00:00Z')).toEqual({
      utc: '2026-05-01T09:00:00Z',
      local: '2026-05-01T11:00:00+02:00',
      timeZoneId: 'Europe/Berlin',
    });
  });

  it('drops fractions of a second and normalizes other offsets to Z', () => {
    expect(at('Europe/Berlin', '2026-05-01T09:00:00.999Z').utc).toBe('2026-05-01T09:00:00Z');
    expect(at('Europe/Berlin', '2026-05-01T11:00:00+02:00').utc).toBe('2026-05-01T09:00:00Z');
  });

  it('follows Europe/Berlin into summer time at 01:00Z on 2026-03-29', () => {
    expect(at('Europe/Berlin', '2026-03-29T00:59:59Z').local).toBe('2026-03-29T01:59:59+01:00');
    expect(at('Europe/Berlin', '2026-03-29T01:00:00Z').local).toBe('2026-03-29T03:00:00+02:00');
  });

  it('follows America/New_York back to standard time at 06:00Z on 2026-11-01', () => {
    expect(at('America/New_York', '2026-11-01T05:59:59Z').local).toBe('2026-11-01T01:59:59-04:00');
    expect(at('America/New_York', '2026-11-01T06:00:00Z').local).toBe('2026-11-01T01:00:00-05:00');
  });

  it('follows Australia/Sydney, whose summer is in January', () => {
    expect(at('Australia/Sydney', '2026-01-15T00:00:00Z').local).toBe('2026-01-15T11:00:00+11:00');
    // First Sunday of April: 03:00 summer time (16:00Z the day before) goes back to 02:00.
    expect(at('Australia/Sydney', '2026-04-04T15:59:59Z').local).toBe('2026-04-05T02:59:59+11:00');
    expect(at('Australia/Sydney', '2026-04-04T16:00:00Z').local).toBe('2026-04-05T02:00:00+10:00');
  });

  it('prints half-hour and negative offsets', () => {
    expect(at('Asia/Kolkata', '2026-05-01T09:00:00Z').local).toBe('2026-05-01T14:30:00+05:30');
    expect(at('America/Sao_Paulo', '2026-05-01T09:00:00Z').local).toBe('2026-05-01T06:00:00-03:00');
    expect(at('Asia/Kathmandu', '2026-05-01T09:00:00Z').local).toBe('2026-05-01T14:45:00+05:45');
  });

  it('prints an offset of zero as +00:00', () => {
    expect(at('UTC', '2026-05-01T09:00:00Z').local).toBe('2026-05-01T09:00:00+00:00');
    expect(at('Europe/London', '2026-01-10T09:00:00Z').local).toBe('2026-01-10T09:00:00+00:00');
  });

  it('is exact inside an hour whose offset changes on the half hour', () => {
    // St John's springs forward at 02:00 local = 05:30Z; Lord Howe moves by 30 minutes at 15:00Z.
    expect(at('America/St_Johns', '2026-03-08T05:29:59Z').local).toBe('2026-03-08T01:59:59-03:30');
    expect(at('America/St_Johns', '2026-03-08T05:30:00Z').local).toBe('2026-03-08T03:00:00-02:30');
    expect(at('America/St_Johns', '2026-03-08T05:00:00Z').local).toBe('2026-03-08T01:30:00-03:30');
    expect(at('Australia/Lord_Howe', '2026-04-04T14:59:59Z').local).toBe('2026-04-05T01:59:59+11:00');
    expect(at('Australia/Lord_Howe', '2026-04-04T15:00:00Z').local).toBe('2026-04-05T01:30:00+10:30');
  });

  it('matches Intl at every half hour across a year of transitions', () => {
    const mismatches: string[] = [];
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'America/St_Johns']) {
      const offsets = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
      for (let millis = Date.UTC(2026, 0, 1); millis < Date.UTC(2027, 0, 1); millis += 30 * 60_000) {
        const instant = at(zone, new Date(millis).toISOString());
        const named = offsets.formatToParts(millis).find((part) => part.type === 'timeZoneName')!.value;
        const expected = named === 'GMT' ? '+00:00' : named.slice(3);
        if (instant.local.slice(19) !== expected || Date.parse(instant.local) !== millis) {
          mismatches.push(`${zone} ${instant.utc} → ${instant.local}, Intl says ${expected}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('keeps the zone id as given', () => {
    expect(at('Asia/Calcutta', '2026-05-01T09:00:00Z')).toEqual({
      utc: '2026-05-01T09:00:00Z',
      local: '2026-05-01T14:30:00+05:30',
      timeZoneId: 'Asia/Calcutta',
    });
  });

  it('refuses an unknown zone and a value that is not a date-time', () => {
    expect(() => zoneClock('Mars/Olympus_Mons')).toThrow(RangeError);
    expect(() => at('UTC', 'tomorrow')).toThrow(/"tomorrow" is not a date-time/);
    expect(() => at('UTC', '+012026-01-01T00:00:00Z')).toThrow(RangeError);
  });

  it('prints four-digit years from 0001 on', () => {
    expect(at('UTC', '0099-06-01T12:00:00Z').local).toBe('0099-06-01T12:00:00+00:00');
  });
});
