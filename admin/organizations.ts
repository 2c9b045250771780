// The organizations an operator sees: names and states from the platform database, the current
// snapshot from the store's pointer.
import type { OrganizationRef } from '../builder/platform/source.ts';
import { resolveOrganization } from '../builder/platform/source.ts';
import type { SqlQueries } from '../builder/platform/sql.ts';
import type { OrganizationState, Pointer } from '../snapshot/manifest.ts';
import { readPointer } from '../snapshot/reader.ts';
import type { SnapshotStore } from '../snapshot/store.ts';

export interface NamedOrganization {
  id: string;
  slug: string;
  name: string;
  status: OrganizationState;
}

/** Every organization, whatever its status, by slug (the order an operator looks for one in). */
export function listOrganizationNames(db: SqlQueries): Promise<NamedOrganization[]> {
  return db.query<NamedOrganization>('SELECT id, slug, name, status FROM organizations ORDER BY slug');
}

/** As the CLI's --org: an id when it looks like one, else a slug. */
export function findOrganization(db: SqlQueries, idOrSlug: string): Promise<OrganizationRef | undefined> {
  return resolveOrganization(db, idOrSlug);
}

/** The organization's pointer, or undefined when it was never published. */
export function readCurrent(store: SnapshotStore, organizationId: string): Promise<Pointer | undefined> {
  return readPointer(store, organizationId);
}

/** Organization id → slug for the ids the platform knows (key views name their organization). */
export async function organizationSlugs(db: SqlQueries, ids: string[]): Promise<ReadonlyMap<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; slug: string }>('SELECT id, slug FROM organizations WHERE id::text = ANY($1::text[])', [ids]);
  return new Map(rows.map((row) => [row.id, row.slug]));
}
