// The synthetic platform as the soak's oracle knows it, read back from the database: every
// organization with its published and draft events, and the owner of every id the API can show,
// so that any id in a body can be traced to its organization. And the changes the soak makes
// through SQL while it runs (each notifies the builder, which rebuilds and publishes that
// organization): renames, a team member shown or hidden, an event published or unpublished. They
// only update rows, so the ids and their owners stay as read.
import type { SqlClient } from '../../records/database/sql.ts';

export interface SoakEvent {
  id: string;
  slug: string;
  /** As the soak last set it. */
  published: boolean;
  /**
   * Published or unpublished by the soak at least once: from then on its paths may answer 200 or
   * 404 EVENT_NOT_FOUND, depending on which build a gateway holds. Every other event must answer
   * as it was generated.
   */
  churned: boolean;
}

export interface SoakOrganization {
  index: number;
  id: string;
  name: string;
  /** Events published when the platform was generated: the ones requests go to, whatever the soak did to them since. */
  events: SoakEvent[];
  /** Never published: always 404 EVENT_NOT_FOUND. */
  drafts: SoakEvent[];
  teamMembers: string[];
}

export interface SoakPlatform {
  organizations: SoakOrganization[];
  /** Every id of the platform the API may show → the index of its organization. */
  owners: Map<string, number>;
  /** Events the soak unpublished, oldest first: the next "published again" takes the first. */
  unpublished: SoakEvent[];
}

export async function readPlatform(db: SqlClient): Promise<SoakPlatform> {
  const organizations = (await db.query<{ id: string; name: string }>('SELECT id, name FROM organizations ORDER BY slug')).map(
    (row, index): SoakOrganization => ({ index, id: row.id, name: row.name, events: [], drafts: [], teamMembers: [] }),
  );
  const byId = new Map(organizations.map((organization) => [organization.id, organization]));
  const events = await db.query<{ id: string; organization_id: string; slug: string; status: string }>('SELECT id, organization_id, slug, status FROM events ORDER BY slug');
  for (const event of events) {
    const organization = byId.get(event.organization_id)!;
    const published = event.status === 'published';
    (published ? organization.events : organization.drafts).push({ id: event.id, slug: event.slug, published, churned: false });
  }
  for (const member of await db.query<{ id: string; organization_id: string }>('SELECT id, organization_id FROM team_members ORDER BY sort_order')) {
    byId.get(member.organization_id)!.teamMembers.push(member.id);
  }
  const owners = new Map<string, number>();
  for (const row of await db.query<{ id: string; organization_id: string }>(OWNED_IDS)) owners.set(row.id, byId.get(row.organization_id)!.index);
  return { organizations, owners, unpublished: [] };
}

/** Every id a body may carry, with its organization (docs/api.md §2: resources show their own ids only). */
const OWNED_IDS = `
  SELECT id, id AS organization_id FROM organizations
  UNION ALL SELECT logo_file_id, id FROM organizations WHERE logo_file_id IS NOT NULL
  UNION ALL SELECT id, organization_id FROM team_members
  UNION ALL SELECT id, organization_id FROM speakers
  UNION ALL SELECT id, organization_id FROM sponsors
  UNION ALL SELECT id, organization_id FROM events
  UNION ALL SELECT s.id, e.organization_id FROM sessions s JOIN events e ON e.id = s.event_id`;

type Change = (db: SqlClient, platform: SoakPlatform, serial: number) => Promise<string>;

/** One of each in turn, each to a random organization. */
const CHANGES: Change[] = [
  async (db, platform, serial) => {
    const organization = pick(platform.organizations)!;
    await db.query('UPDATE organizations SET name = $2 WHERE id = $1', [organization.id, `${organization.name} (soak ${serial})`]);
    return 'organization renamed';
  },
  async (db, platform) => {
    const member = pick(pick(platform.organizations)!.teamMembers);
    if (member === undefined) return 'nothing (no team member)';
    await db.query('UPDATE team_members SET show_on_website = NOT show_on_website WHERE id = $1', [member]);
    return 'team member shown/hidden';
  },
  async (db, platform) => {
    const event = pick(pick(platform.organizations)!.events.filter((candidate) => candidate.published));
    if (event === undefined) return 'nothing (no published event)';
    platform.unpublished.push(event);
    await setPublished(db, event, false);
    return 'event unpublished';
  },
  async (db, platform, serial) => {
    const event = pick(pick(platform.organizations)!.events);
    if (event === undefined) return 'nothing (no event)';
    await db.query('UPDATE events SET name = $2 WHERE id = $1', [event.id, `Event ${serial} (soak)`]);
    return 'event renamed';
  },
  async (db, platform) => {
    const event = platform.unpublished.shift();
    if (event === undefined) return 'nothing (no unpublished event)';
    await setPublished(db, event, true);
    return 'event published again';
  },
];

async function setPublished(db: SqlClient, event: SoakEvent, published: boolean): Promise<void> {
  // Marked before the UPDATE: a gateway may serve the change as soon as it commits.
  event.churned = true;
  event.published = published;
  await db.query('UPDATE events SET status = $2 WHERE id = $1', [event.id, published ? 'published' : 'draft']);
}

/** Applies the `serial`-th change; what it did, for the summary. */
export function changePlatform(db: SqlClient, platform: SoakPlatform, serial: number): Promise<string> {
  return CHANGES[serial % CHANGES.length]!(db, platform, serial);
}

export function pick<T>(items: readonly T[]): T | undefined {
  return items[Math.floor(Math.random() * items.length)];
}
