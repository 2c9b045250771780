// Organizations as operators see them (docs/design.md "Admin API and console"): named by id or
// slug, listed with their platform state, current snapshot and last build, a page at a time or
// every one. Every other operations module names organizations through the directory made here.
import { mapConcurrently } from '../builder/concurrently.ts';
import type { BuildRuns } from '../builder/runs/build-runs.ts';
import { findOrganization, listNamedOrganizations, type NamedOrganization, type OrganizationRef, organizationSlugs } from '../builder/platform/organizations.ts';
import { findNamedOrganization, type OrganizationPageRequest, organizationNames, searchOrganizations } from '../builder/platform/organization-search.ts';
import type { SqlQueries } from '../records/database/sql.ts';
import { type LastBuild, lastBuildsOf } from '../records/runs/last-builds.ts';
import type { OrganizationState } from '../snapshot/manifest.ts';
import { readPointer } from '../snapshot/reader.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { badRequest } from './errors.ts';
import { OrganizationNames } from './organization-names.ts';

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

/** A row of the organizations page: the platform's state, the store's current snapshot, the last build of any process. */
export interface OrganizationOverview {
  id: string;
  slug: string;
  name: string;
  state: OrganizationState;
  /** From the pointer; null when never published, or suspended/closed. */
  snapshotId: string | null;
  /** When the pointer last changed; null when never published. */
  publishedAt: string | null;
  /** From the runs' record: whichever builder, start or `marquee build` ran it. */
  lastBuild: LastBuild | null;
}

/** A page of organizations by slug, with what the pages beside it begin after or before. */
export interface OrganizationPage {
  organizations: OrganizationOverview[];
  /** How many there are; with a search, how many it found when they fit on this page, else null (more than a page, uncounted). */
  total: number | null;
  /** The `after` of the next page; null on the last. */
  next: string | null;
  /** The `before` of the previous page; null on the first. */
  previous: string | null;
}

/**
 * Pointers read at once: a console page's in one go; every organization's (the unpaged list) a
 * bounded number at a time, which a directory store at 100,000 organizations needs (each read
 * holds a file descriptor) and a network store does not mind.
 */
const POINTER_READS_AT_ONCE = 50;

/** A search with more candidates than this reads the relation in slug order instead of by their ids. */
const CANDIDATES_NARROW_UP_TO = 2_000;

/** The most organizations one page of the admin API's list holds. */
export const ORGANIZATION_PAGE_MAX = 1000;

export interface OrganizationOperations {
  /** Id or slug → the organization; an OrganizationNotFoundError (404) naming it when there is none. */
  find(idOrSlug: string): Promise<OrganizationRef>;
  /** One organization's row; an OrganizationNotFoundError (404) naming it when there is none. */
  overview(idOrSlug: string): Promise<OrganizationOverview>;
  /** Every organization, by slug. */
  list(): Promise<OrganizationOverview[]>;
  /** One page, by slug, of every organization or of those a search finds; BAD_REQUEST for `after` with `before`. */
  page(request: OrganizationPageRequest): Promise<OrganizationPage>;
}

export function organizationOperations({ db, store, runs }: { db: SqlQueries; store: SnapshotStore; runs: Pick<BuildRuns, 'flush'> }): OrganizationOperations {
  /**
   * The rows with their pointers (one read each) and their last builds (one query). This process's
   * runs are written to the record first: a run it has just answered finished is the last build at
   * once here, as it is everywhere else a moment later.
   */
  const overviews = async (rows: readonly NamedOrganization[], every = false): Promise<OrganizationOverview[]> => {
    const [pointers, lastBuilds] = await Promise.all([
      mapConcurrently(rows, POINTER_READS_AT_ONCE, (row) => readPointer(store, row.id)),
      runs.flush().then(() => lastBuildsOf(db, every ? 'every' : rows.map((row) => row.id))),
    ]);
    return rows.map((row, index) => ({
      id: row.id,
      slug: row.slug,
      name: row.name,
      state: row.status,
      snapshotId: pointers[index]?.snapshotId ?? null,
      publishedAt: pointers[index]?.publishedAt ?? null,
      lastBuild: lastBuilds.get(row.id) ?? null,
    }));
  };
  // Where a search finds its candidates: loaded at the first search, not at start.
  const names = new OrganizationNames(() => organizationNames(db));
  return {
    find: (idOrSlug) => findOrganization(db, idOrSlug),
    overview: async (idOrSlug) => (await overviews([await findNamedOrganization(db, idOrSlug)]))[0]!,
    list: async () => overviews(await listNamedOrganizations(db), true),
    page: async (request) => {
      if (request.after !== undefined && request.before !== undefined) throw badRequest('after and before name the two ends of a page: give one of them');
      const limit = request.limit === undefined ? undefined : Math.min(Math.max(1, request.limit), ORGANIZATION_PAGE_MAX);
      const search = request.search?.trim() ?? '';
      const candidatesFound = search === '' ? undefined : await names.candidates(search);
      // Many candidates are many rows anyway: the slug's index walked in order meets a page of them at once.
      const candidates = candidatesFound !== undefined && candidatesFound.length <= CANDIDATES_NARROW_UP_TO ? candidatesFound : undefined;
      const found = await searchOrganizations(db, { ...request, ...(limit === undefined ? {} : { limit }), ...(candidates === undefined ? {} : { candidates }) });
      return { ...found, organizations: await overviews(found.organizations) };
    },
  };
}
