// The sample's rows are a pure function of `now`: deterministic, internally consistent, and
// placed around `now` as promised.
import { describe, expect, it } from 'vitest';
import { nextEuropeanClockChange, SAMPLE, SAMPLE_TABLES, sampleRows } from '../../../../builder/platform/sample-rows.ts';

const NOW = new Date('2026-05-01T12:00:00Z');

describe('nextEuropeanClockChange', () => {
  it('finds the last Sunday of March or October at 01:00 UTC', () => {
    expect(nextEuropeanClockChange(new Date('2026-05-01T00:00:00Z')).toISOString()).toBe('2026-10-25T01:00:00.000Z');
    expect(nextEuropeanClockChange(new Date('2026-10-25T01:00:01Z')).toISOString()).toBe('2027-03-28T01:00:00.000Z');
    expect(nextEuropeanClockChange(new Date('2026-01-10T00:00:00Z')).toISOString()).toBe('2026-03-29T01:00:00.000Z');
    expect(nextEuropeanClockChange(new Date('2026-10-25T01:00:00Z')).toISOString()).toBe('2026-10-25T01:00:00.000Z');
  });
});

describe('sampleRows', () => {
  const rows = sampleRows(NOW, 'https://cdn.example.com/');

  it('is deterministic for one `now`', () => {
    expect(sampleRows(new Date(NOW), 'https://cdn.example.com/')).toEqual(rows);
  });

  it('has unique ids and only references rows it contains', () => {
    const ids = (table: (typeof SAMPLE_TABLES)[number]) => new Set(rows[table].map((row) => row.id as string));
    for (const table of SAMPLE_TABLES) {
      if (table === 'session_speakers' || table === 'event_sponsors') continue;
      expect(ids(table).size).toBe(rows[table].length);
    }
    const references: Array<[(typeof SAMPLE_TABLES)[number], string, (typeof SAMPLE_TABLES)[number]]> = [
      ['organizations', 'logo_file_id', 'files'],
      ['team_members', 'organization_id', 'organizations'],
      ['speakers', 'photo_file_id', 'files'],
      ['events', 'organization_id', 'organizations'],
      ['events', 'cover_file_id', 'files'],
      ['sessions', 'event_id', 'events'],
      ['session_speakers', 'session_id', 'sessions'],
      ['session_speakers', 'speaker_id', 'speakers'],
      ['event_sponsors', 'sponsor_id', 'sponsors'],
      ['registrations', 'event_id', 'events'],
    ];
    for (const [table, column, target] of references) {
      const known = ids(target);
      for (const row of rows[table]) if (row[column] !== null) expect(known).toContain(row[column]);
    }
  });

  it('links speakers and sponsors only within their own organization', () => {
    const organizationOf = (table: 'speakers' | 'sponsors' | 'events', id: unknown) => rows[table].find((row) => row.id === id)!.organization_id;
    const eventOfSession = (id: unknown) => rows.sessions.find((row) => row.id === id)!.event_id;
    for (const link of rows.session_speakers) {
      expect(organizationOf('speakers', link.speaker_id)).toBe(organizationOf('events', eventOfSession(link.session_id)));
    }
    for (const link of rows.event_sponsors) {
      expect(organizationOf('sponsors', link.sponsor_id)).toBe(organizationOf('events', link.event_id));
    }
  });

  it('puts the ongoing event around `now` and joins image urls to the base without a double slash', () => {
    const ongoing = rows.events.find((row) => row.id === SAMPLE.events.stockholmDevDays.id)!;
    expect(new Date(ongoing.starts_at as string) < NOW && NOW < new Date(ongoing.ends_at as string)).toBe(true);
    expect(rows.files[0]!.url).toMatch(/^https:\/\/cdn\.example\.com\/files\/f0000000-/);
  });
});
