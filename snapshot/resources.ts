// The API resources of spec section 2, and the stored forms of the two clock-dependent ones.
// Field names and nullability follow the spec tables exactly; schemas/ enforces the same shapes.

/** docs/api.md §2 Instant: `utc` like 2026-05-01T09:00:00Z, `local` like 2026-05-01T11:00:00+02:00. */
export interface Instant {
  utc: string;
  local: string;
  timeZoneId: string;
}

export interface Image {
  fileId: string;
  url: string;
}

export interface Organization {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  logo: Image | null;
  cover: Image | null;
  website: string | null;
  email: string | null;
  phone: string | null;
  address: string | null;
  city: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  publicUrl: string;
}

export interface TeamMember {
  id: string;
  fullName: string;
  title: string | null;
  bio: string | null;
  photo: Image | null;
  linkedInUrl: string | null;
  websiteUrl: string | null;
  sortOrder: number;
}

export interface Speaker {
  id: string;
  name: string;
  jobTitle: string | null;
  company: string | null;
  bio: string | null;
  photo: Image | null;
  linkedInUrl: string | null;
  gitHubUrl: string | null;
  websiteUrl: string | null;
}

export interface Sponsor {
  id: string;
  name: string;
  description: string | null;
  logo: Image | null;
  websiteUrl: string | null;
  tier: string | null;
  sortOrder: number;
  isOrganizationSponsor: boolean;
}

export interface Session {
  id: string;
  name: string;
  description: string | null;
  room: string | null;
  start: Instant;
  end: Instant;
  capacity: number | null;
  speakers: Speaker[];
  speakerNames: string | null;
}

export type Timing = 'upcoming' | 'ongoing' | 'past';

/** Fields EventSummary and EventDetail share, none of them clock-dependent. */
export interface EventCore {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  cover: Image | null;
  logo: Image | null;
  start: Instant;
  end: Instant;
  venueName: string | null;
  city: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  publicUrl: string;
}

/** The clock-dependent fields, computed per request (docs/design.md "Clock-dependent fields"). */
interface ClockFields {
  timing: Timing;
  isRegistrationOpen: boolean;
}

export interface EventSummary extends EventCore, ClockFields {
  sessionCount: number;
}

interface EventDetailBody extends EventCore {
  address: string | null;
  registrationStart: Instant | null;
  registrationEnd: Instant | null;
  capacity: number | null;
  sessions: Session[];
  speakers: Speaker[];
  sponsors: Sponsor[];
}

export interface EventDetail extends EventDetailBody, ClockFields {}

/**
 * What `timing` and `isRegistrationOpen` derive from, stored instead of them. Times are the
 * `utc` strings of the event's instants; `registrationAvailable` is "registration enabled and
 * capacity not reached" as of the build.
 */
export interface EventClock {
  start: string;
  end: string;
  registrationStart: string | null;
  registrationEnd: string | null;
  registrationAvailable: boolean;
}

/** One item of the stored event index (`/events`): a summary without clock fields, plus its clock. */
export interface StoredEventSummary extends EventCore {
  sessionCount: number;
  clock: EventClock;
}

/** The stored form of `/events/{id}`: the detail without clock fields, plus its clock. */
export interface StoredEventDetail extends EventDetailBody {
  clock: EventClock;
}

export interface PagedResponse<T> {
  items: T[];
  page: number;
  pageSize: number;
  totalCount: number;
  hasMore: boolean;
}

export interface ProblemDetails {
  type: string | null;
  title: string | null;
  status: number | null;
  detail: string | null;
  instance: string | null;
  errorCode: string;
}
