// Stored event forms built by hand (StoredEventSummary / StoredEventDetail), for unit tests of the
// clock rendering (snapshot/clock-rendering/) that need exact control of every instant.
import type { EventClock, Instant, StoredEventDetail, StoredEventSummary } from '../../snapshot/schema-types.ts';
import { fixtureUuid } from './platform-fixture.ts';

function utcInstant(utc: string): Instant {
  return { utc, local: utc.replace('Z', '+00:00'), timeZoneId: 'UTC' };
}

export interface StoredEventInput {
  n: number;
  name?: string;
  start: string;
  end: string;
  registrationStart?: string | null;
  registrationEnd?: string | null;
  registrationAvailable?: boolean;
}

function clockOf(input: StoredEventInput): EventClock {
  return {
    start: input.start,
    end: input.end,
    registrationStart: input.registrationStart ?? null,
    registrationEnd: input.registrationEnd ?? null,
    registrationAvailable: input.registrationAvailable ?? true,
  };
}

export function storedSummary(input: StoredEventInput): StoredEventSummary {
  const id = fixtureUuid(input.n);
  return {
    id,
    name: input.name ?? `Event ${input.n}`,
    slug: `event-${input.n}`,
    description: null,
    cover: null,
    logo: null,
    start: utcInstant(input.start),
    end: utcInstant(input.end),
    venueName: null,
    city: null,
    country: null,
    latitude: null,
    longitude: null,
    publicUrl: `https://events.example.com/acme/event-${input.n}`,
    sessionCount: 0,
    clock: clockOf(input),
  };
}

export function storedDetail(input: StoredEventInput): StoredEventDetail {
  const { sessionCount: _sessionCount, ...summary } = storedSummary(input);
  return {
    ...summary,
    address: null,
    registrationStart: input.registrationStart ? utcInstant(input.registrationStart) : null,
    registrationEnd: input.registrationEnd ? utcInstant(input.registrationEnd) : null,
    capacity: null,
    sessions: [],
    speakers: [],
    sponsors: [],
  };
}

/** The index order the builder writes: start ascending, ties by name, then id. */
export function inIndexOrder(events: StoredEventSummary[]): StoredEventSummary[] {
  return [...events].sort((a, b) => a.clock.start.localeCompare(b.clock.start) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.id < b.id ? -1 : 1));
}
