// One event's programme: its scheduled sessions (docs/api.md §2 Session) and the event's speakers
// derived from them (docs/api.md §2 EventDetail.speakers). Orders: docs/design.md "Clock-dependent fields".
import type { SessionRow } from '../platform/rows.ts';
import type { Session, Speaker } from '../../snapshot/schema-types.ts';
import type { EventTime } from './event-time.ts';
import { ordered } from './order.ts';
import type { Relations } from './relations.ts';

export interface Programme {
  /** Scheduled sessions by start, end, name, id. */
  sessions: Session[];
  /** Distinct speakers in programme order: first appearance walking the sessions in order. */
  speakers: Speaker[];
}

export function projectProgramme(eventId: string, time: EventTime, relations: Relations): Programme {
  const sessions = relations
    .sessionsOf(eventId)
    .filter(isScheduled)
    .map((row) => projectSession(row, time, relations));
  const programme = ordered(
    sessions,
    (session) => session.start.utc, // fixed-width UTC text sorts chronologically
    (session) => session.end.utc,
    (session) => session.name,
    (session) => session.id,
  );
  // docs/api.md §2: "A speaker announced before the programme exists is absent, because speakers attach to sessions."
  // A Map keeps keys in first-insertion order: each speaker stays where they first appear.
  const speakers = new Map<string, Speaker>();
  for (const session of programme) {
    for (const speaker of session.speakers) speakers.set(speaker.id, speaker);
  }
  return { sessions: programme, speakers: [...speakers.values()] };
}

type ScheduledSessionRow = SessionRow & { startsAt: string; endsAt: string };

/** docs/platform.md sessions: without both times a session is not scheduled, so not published. */
function isScheduled(row: SessionRow): row is ScheduledSessionRow {
  return row.startsAt != null && row.endsAt != null;
}

function projectSession(row: ScheduledSessionRow, time: EventTime, relations: Relations): Session {
  const speakers = sessionSpeakers(row.id, relations);
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? null,
    room: row.room ?? null,
    start: time.instant(row.startsAt, `session ${row.id} startsAt`),
    end: time.instant(row.endsAt, `session ${row.id} endsAt`),
    capacity: row.capacity ?? null,
    speakers,
    // docs/api.md §2 Session.speakerNames: "null when nobody is confirmed yet".
    speakerNames: speakers.length === 0 ? null : speakers.map((speaker) => speaker.name).join(', '),
  };
}

/** Accepted speakers of one session in billing order (ties: name, id), each once. */
function sessionSpeakers(sessionId: string, relations: Relations): Speaker[] {
  const billed: Array<{ speaker: Speaker; billingOrder: number }> = [];
  for (const link of relations.speakerLinksOf(sessionId)) {
    const speaker = relations.announcedSpeakers.get(link.speakerId);
    if (speaker) billed.push({ speaker, billingOrder: link.billingOrder });
  }
  const inOrder = ordered(
    billed,
    (entry) => entry.billingOrder,
    (entry) => entry.speaker.name,
    (entry) => entry.speaker.id,
  );
  // The primary key (session_id, speaker_id) makes links unique; a view without it must not
  // list a speaker twice.
  return [...new Map(inOrder.map(({ speaker }) => [speaker.id, speaker] as const)).values()];
}
