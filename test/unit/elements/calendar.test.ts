// The "add to calendar" file (elements/marquee-elements.js, calendarFile): read back by ical.js, an
// RFC 5545 parser, so escaping (§3.3.11) and folding (§3.1) are judged by a reader, not by us.
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { calendarFile } from '../../../elements/marquee-elements.js';

const at = (utc: string, local: string) => ({ utc, local, timeZoneId: 'Europe/Berlin' });
const NOW = Date.parse('2026-11-21T12:00:00Z');
const hackathon = {
  id: 'evt_night',
  name: 'Night, hack; and\nrest \\ repeat',
  description: `${'Bring a laptop, a charger; and ideas. '.repeat(6)}Grüße aus Berlin ✨`,
  location: 'c-base, Rungestraße 20, Berlin, DE',
  start: at('2027-03-27T10:00:00Z', '2027-03-27T11:00:00+01:00'),
  end: at('2027-03-28T10:00:00Z', '2027-03-28T12:00:00+02:00'),
  url: 'https://events.example.com/night-hackathon',
};
const file = calendarFile(hackathon, { host: 'api.example.org', now: NOW });
const event = new ICAL.Event(new ICAL.Component(ICAL.parse(file)).getFirstSubcomponent('vevent')!);

describe('calendarFile', () => {
  it('is one VCALENDAR of version 2.0 with a PRODID, holding one VEVENT', () => {
    const calendar = new ICAL.Component(ICAL.parse(file));
    expect(calendar.name).toBe('vcalendar');
    expect(calendar.getFirstPropertyValue('version')).toBe('2.0');
    expect(calendar.getFirstPropertyValue('prodid')).toBe('-//Marquee//Elements//EN');
    expect(calendar.getAllSubcomponents('vevent')).toHaveLength(1);
  });

  it('names the event by a stable UID, and gives its times in UTC', () => {
    expect(event.uid).toBe('evt_night@api.example.org');
    expect(file).toContain('\r\nDTSTART:20270327T100000Z\r\n');
    expect(file).toContain('\r\nDTEND:20270328T100000Z\r\n');
    expect(file).toContain('\r\nDTSTAMP:20261121T120000Z\r\n');
    expect(event.startDate.toJSDate().toISOString()).toBe('2027-03-27T10:00:00.000Z');
    expect(event.endDate.toJSDate().toISOString()).toBe('2027-03-28T10:00:00.000Z');
  });

  it('escapes commas, semicolons, backslashes and newlines, so the reader gets the text back', () => {
    expect(file).toContain('SUMMARY:Night\\, hack\\; and\\nrest \\\\ repeat\r\n');
    expect(event.summary).toBe(hackathon.name);
    expect(event.location).toBe(hackathon.location);
    expect(event.component.getFirstPropertyValue('url')).toBe(hackathon.url);
  });

  it('folds long lines at 75 octets with CRLF and a space, never inside a character', () => {
    const lines = file.split('\r\n');
    expect(file.endsWith('\r\n')).toBe(true);
    expect(lines.filter((l) => l.startsWith(' ')).length).toBeGreaterThan(2);
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(file).not.toContain('\uFFFD');
    expect(event.description).toBe(hackathon.description);
  });

  it('leaves out the lines an item has nothing for', () => {
    const bare = calendarFile({ ...hackathon, description: null, location: null, url: null }, { host: 'h', now: NOW });
    expect(bare).not.toMatch(/DESCRIPTION|LOCATION|URL/);
  });
});
