// The organizations an operator sees, with their names and states, from the platform database.
import type { SqlQueries } from '../builder/platform/sql.ts';
import type { OrganizationState } from '../snapshot/manifest.ts';

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
