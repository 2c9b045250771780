// Organizations as operators see them (docs/design.md "Admin API and console"): named by id or
// slug, listed with their platform state, current snapshot and latest build. Every other
// operations module names organizations through the directory made here.
import type { BuildRuns, LastBuild } from '../builder/runs/build-runs.ts';
import { findOrganization, listNamedOrganizations, type OrganizationRef, organizationSlugs } from '../builder/platform/organizations.ts';
import type { SqlQueries } from '../records/database/sql.ts';
import type { OrganizationState } from '../snapshot/manifest.ts';
import { readPointer } from '../snapshot/reader.ts';
import type { SnapshotStore } from '../snapshot/store.ts';

/** How an operation names organizations: the platform database, opened only when asked. */
export interface OrganizationDirectory {
  /** Id or slug → the organization; an OrganizationNotFoundError (404) naming it when there is none. */
  find(idOrSlug: string): Promise<OrganizationRef>;
  /** Organization id → slug for the ids the platform knows; ids it does not know are absent. */
  slugs(organizationIds: string[]): Promise<ReadonlyMap<string, string>>;
}

/** `database` is called at the first look-up that needs it, so a command that needs none opens nothing. */
export function organizationDirectory(database: () => Promise<SqlQueries>): OrganizationDirectory {
  return {
    find: async (idOrSlug) => findOrganization(await database(), idOrSlug),
    slugs: async (ids) => (ids.length === 0 ? new Map() : organizationSlugs(await database(), ids)),
  };
}

/** A row of the organizations page: the platform's state, the store's current snapshot, the latest build of this process. */
export interface OrganizationOverview {
  id: string;
  slug: string;
  name: string;
  state: OrganizationState;
  /** From the pointer; null when never published, or suspended/closed. */
  snapshotId: string | null;
  /** When the pointer last changed; null when never published. */
  publishedAt: string | null;
  lastBuild: LastBuild | null;
}

export interface OrganizationOperations {
  /** Id or slug → the organization; an OrganizationNotFoundError (404) naming it when there is none. */
  find(idOrSlug: string): Promise<OrganizationRef>;
  /** Every organization, by slug. */
  list(): Promise<OrganizationOverview[]>;
}

export function organizationOperations({ db, store, runs }: { db: SqlQueries; store: SnapshotStore; runs: BuildRuns }): OrganizationOperations {
  return {
    find: (idOrSlug) => findOrganization(db, idOrSlug),
    list: async () => {
      const rows = await listNamedOrganizations(db);
      return Promise.all(
        rows.map(async (row) => {
          const pointer = await readPointer(store, row.id);
          return {
            id: row.id,
            slug: row.slug,
            name: row.name,
            state: row.status,
            snapshotId: pointer?.snapshotId ?? null,
            publishedAt: pointer?.publishedAt ?? null,
            lastBuild: runs.lastBuildOf(row.id) ?? null,
          };
        }),
      );
    },
  };
}
