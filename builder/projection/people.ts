// docs/api.md §2 TeamMember and Speaker, and the `/team` and `/speakers` lists (docs/api.md §4). Each object is
// built field by field: rows may carry columns such as `email` at runtime, and none of them may
// reach a snapshot (docs/api.md §1 rule 5). The filters repeat the reader's (docs/design.md step 1) on purpose.
import type { SpeakerRow, TeamMemberRow } from '../platform/rows.ts';
import type { Speaker, TeamMember } from '../../snapshot/schema-types.ts';
import { projectImage } from './image.ts';
import { ordered } from './order.ts';

/** docs/api.md §1 rule 6: invited and declined speakers are not announced. */
function isAnnounced(row: SpeakerRow): boolean {
  return row.invitationStatus === 'accepted';
}

function projectSpeaker(row: SpeakerRow): Speaker {
  return {
    id: row.id,
    name: row.name,
    jobTitle: row.jobTitle ?? null,
    company: row.company ?? null,
    bio: row.bio ?? null,
    photo: projectImage(row.photo),
    linkedInUrl: row.linkedInUrl ?? null,
    gitHubUrl: row.gitHubUrl ?? null,
    websiteUrl: row.websiteUrl ?? null,
  };
}

/** Announced speakers by id, each projected once and shared by every list that shows it. */
export function announcedSpeakers(rows: readonly SpeakerRow[]): Map<string, Speaker> {
  return new Map(rows.filter(isAnnounced).map((row) => [row.id, projectSpeaker(row)]));
}

/** docs/api.md §4 GET /speakers: every announced speaker of the organization, by name (ties: id). */
export function speakerList(speakers: Iterable<Speaker>): Speaker[] {
  return ordered(
    [...speakers],
    (speaker) => speaker.name,
    (speaker) => speaker.id,
  );
}

function projectTeamMember(row: TeamMemberRow): TeamMember {
  return {
    id: row.id,
    fullName: row.fullName,
    title: row.title ?? null,
    bio: row.bio ?? null,
    photo: projectImage(row.photo),
    linkedInUrl: row.linkedInUrl ?? null,
    websiteUrl: row.websiteUrl ?? null,
    sortOrder: row.sortOrder,
  };
}

/** docs/api.md §4 GET /team: members shown on the website (docs/api.md §1 rule 7) by sortOrder (ties: fullName, id). */
export function projectTeam(rows: readonly TeamMemberRow[]): TeamMember[] {
  const visible = rows.filter((row) => row.showOnWebsite === true).map(projectTeamMember);
  return ordered(
    visible,
    (member) => member.sortOrder,
    (member) => member.fullName,
    (member) => member.id,
  );
}
