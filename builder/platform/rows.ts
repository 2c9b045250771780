// One organization's platform data as the reader returns it (docs/platform.md relations, camelCase).
// File references arrive resolved to images. Times arrive as UTC strings with whole seconds
// ('2026-05-01T09:00:00Z'), formatted by the database so PostgreSQL and PGlite agree byte for byte.
// No row type carries a person's e-mail: the reader never selects one (docs/api.md §1 rule 5).
import type { OrganizationState } from '../../snapshot/manifest.ts';

export interface ImageRow {
  fileId: string;
  url: string;
}

export type EventStatus = 'draft' | 'published' | 'cancelled' | 'suspended';
export type InvitationStatus = 'invited' | 'accepted' | 'declined';

export interface OrganizationRow {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  logo: ImageRow | null;
  cover: ImageRow | null;
  website: string | null;
  /** The public contact e-mail: the one e-mail that is published. */
  email: string | null;
  phone: string | null;
  address: string | null;
  city: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  status: OrganizationState;
}

export interface TeamMemberRow {
  id: string;
  fullName: string;
  title: string | null;
  bio: string | null;
  photo: ImageRow | null;
  linkedInUrl: string | null;
  websiteUrl: string | null;
  showOnWebsite: boolean;
  sortOrder: number;
}

export interface SpeakerRow {
  id: string;
  name: string;
  jobTitle: string | null;
  company: string | null;
  bio: string | null;
  photo: ImageRow | null;
  linkedInUrl: string | null;
  gitHubUrl: string | null;
  websiteUrl: string | null;
  invitationStatus: InvitationStatus;
}

export interface SponsorRow {
  id: string;
  name: string;
  description: string | null;
  logo: ImageRow | null;
  websiteUrl: string | null;
  isOrganizationSponsor: boolean;
}

export interface EventRow {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  cover: ImageRow | null;
  logo: ImageRow | null;
  status: EventStatus;
  /** IANA zone of the venue. */
  timeZone: string;
  startsAt: string;
  endsAt: string;
  venueName: string | null;
  address: string | null;
  city: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  capacity: number | null;
  registrationEnabled: boolean;
  registrationStartsAt: string | null;
  registrationEndsAt: string | null;
  /** Number of registrations (attendees themselves are never read). */
  registrationCount: number;
}

export interface SessionRow {
  id: string;
  eventId: string;
  name: string;
  description: string | null;
  room: string | null;
  /** Both null: not scheduled, so not published. */
  startsAt: string | null;
  endsAt: string | null;
  capacity: number | null;
}

export interface SessionSpeakerRow {
  sessionId: string;
  speakerId: string;
  billingOrder: number;
}

export interface EventSponsorRow {
  eventId: string;
  sponsorId: string;
  tier: string | null;
  sortOrder: number;
}

/** Everything the projection needs for one organization. */
export interface OrganizationData {
  organization: OrganizationRow;
  teamMembers: TeamMemberRow[];
  speakers: SpeakerRow[];
  sponsors: SponsorRow[];
  events: EventRow[];
  sessions: SessionRow[];
  sessionSpeakers: SessionSpeakerRow[];
  eventSponsors: EventSponsorRow[];
  /**
   * The organization's source version, read in the same snapshot as the rows
   * (builder/platform/versions.ts); absent where a source does not keep versions.
   */
  sourceVersion?: string;
}

/** An organization as a build lists it; `sourceVersion` as in OrganizationData. */
export interface ListedOrganization {
  id: string;
  slug: string;
  status: OrganizationState;
  sourceVersion?: string;
}

/** The platform database as the builder sees it. */
export interface PlatformSource {
  /** Every organization's id, slug and status, ordered by id. */
  listOrganizations(): Promise<ListedOrganization[]>;
  /** One organization's data, filtered as docs/design.md step 1 says; undefined when it does not exist. */
  readOrganization(id: string): Promise<OrganizationData | undefined>;
  close(): Promise<void>;
}
