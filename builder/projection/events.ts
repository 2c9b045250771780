// One published event as the snapshot stores it: the index item (`/events`) and the detail
// (`/events/{id}`), each with the EventClock the gateway derives `timing` and
// `isRegistrationOpen` from (docs/design.md "Clock-dependent fields"; docs/api.md §2 "timing is never stored").
import type { EventRow } from '../platform/rows.ts';
import type { EventClock, StoredEventDetail, StoredEventSummary } from '../../snapshot/schema-types.ts';

/** The fields an event's summary and detail share, none of them clock-dependent. */
type EventCore = Omit<StoredEventSummary, 'sessionCount' | 'clock'>;
import { eventTime } from './event-time.ts';
import { projectImage } from './image.ts';
import { ordered } from './order.ts';
import { projectProgramme } from './programme.ts';
import { eventPublicUrl } from './public-url.ts';
import type { Relations } from './relations.ts';
import { eventSponsors } from './sponsors.ts';

export interface ProjectedEvent {
  summary: StoredEventSummary;
  detail: StoredEventDetail;
}

export interface EventSetting {
  organizationId: string;
  organizationSlug: string;
  publicBaseUrl: string;
  relations: Relations;
}

/** docs/api.md §1 rule 4: drafts, cancelled and suspended events are never returned. */
export function isPublished(row: EventRow): boolean {
  return row.status === 'published';
}

export function projectEvent(row: EventRow, setting: EventSetting): ProjectedEvent {
  const time = eventTime(row, setting.organizationId);
  const core: EventCore = {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description ?? null,
    cover: projectImage(row.cover),
    logo: projectImage(row.logo),
    start: time.instant(row.startsAt, 'startsAt'),
    end: time.instant(row.endsAt, 'endsAt'),
    venueName: row.venueName ?? null,
    city: row.city ?? null,
    country: row.country ?? null,
    latitude: row.latitude ?? null,
    longitude: row.longitude ?? null,
    publicUrl: eventPublicUrl(setting.publicBaseUrl, setting.organizationSlug, row.slug),
  };
  const registrationStart = row.registrationStartsAt == null ? null : time.instant(row.registrationStartsAt, 'registrationStartsAt');
  const registrationEnd = row.registrationEndsAt == null ? null : time.instant(row.registrationEndsAt, 'registrationEndsAt');
  const clock: EventClock = {
    start: core.start.utc,
    end: core.end.utc,
    registrationStart: registrationStart?.utc ?? null,
    registrationEnd: registrationEnd?.utc ?? null,
    registrationAvailable: isRegistrationAvailable(row),
  };
  const programme = projectProgramme(row.id, time, setting.relations);
  return {
    summary: { ...core, sessionCount: programme.sessions.length, clock },
    detail: {
      ...core,
      address: row.address ?? null,
      registrationStart,
      registrationEnd,
      capacity: row.capacity ?? null,
      sessions: programme.sessions,
      speakers: programme.speakers,
      sponsors: eventSponsors(setting.relations.sponsorPlacementsOf(row.id), setting.relations.sponsorsById),
      clock,
    },
  };
}

/**
 * The build-time half of isRegistrationOpen (docs/design.md): registration enabled and capacity not
 * reached. The window and the event's end are the gateway's half, judged at request time.
 */
function isRegistrationAvailable(row: EventRow): boolean {
  return row.registrationEnabled === true && (row.capacity == null || row.registrationCount < row.capacity);
}

/** docs/design.md Orders: start ascending, ties by name, then id (the gateway reverses for `past`). */
export function inIndexOrder(events: readonly ProjectedEvent[]): ProjectedEvent[] {
  return ordered(
    events,
    (event) => event.summary.clock.start,
    (event) => event.summary.name,
    (event) => event.summary.id,
  );
}
