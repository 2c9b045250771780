// The organization's rows joined once, by id, so that projecting each event is linear in its
// own rows. Announcement filters apply here too: only accepted speakers can be looked up.
import type { EventSponsorRow, OrganizationData, SessionRow, SessionSpeakerRow, SponsorRow } from '../platform/rows.ts';
import type { Speaker } from '../../snapshot/schema-types.ts';
import { announcedSpeakers } from './people.ts';

export interface Relations {
  /** Accepted speakers only (docs/api.md §1 rule 6), projected once. */
  readonly announcedSpeakers: ReadonlyMap<string, Speaker>;
  readonly sponsorsById: ReadonlyMap<string, SponsorRow>;
  sessionsOf(eventId: string): readonly SessionRow[];
  speakerLinksOf(sessionId: string): readonly SessionSpeakerRow[];
  sponsorPlacementsOf(eventId: string): readonly EventSponsorRow[];
}

export function relate(data: OrganizationData): Relations {
  const sessions = groupBy(data.sessions, (row) => row.eventId);
  const speakerLinks = groupBy(data.sessionSpeakers, (row) => row.sessionId);
  const placements = groupBy(data.eventSponsors, (row) => row.eventId);
  return {
    announcedSpeakers: announcedSpeakers(data.speakers),
    sponsorsById: new Map(data.sponsors.map((row) => [row.id, row])),
    sessionsOf: (eventId) => sessions.get(eventId) ?? [],
    speakerLinksOf: (sessionId) => speakerLinks.get(sessionId) ?? [],
    sponsorPlacementsOf: (eventId) => placements.get(eventId) ?? [],
  };
}

function groupBy<T>(rows: readonly T[], keyOf: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}
