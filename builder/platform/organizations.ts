// The organizations of the platform as the builder, the CLI and the admin port look them up: every
// one (a build's targets, the console's list), one named the way operators name them (`--org
// ID|SLUG`, the admin API's `{org}`), and the slugs of a few (key views).
import { OperatorError } from '../../runtime/errors.ts';
import { isUuid } from '../../snapshot/layout.ts';
import type { OrganizationState } from '../../snapshot/manifest.ts';
import type { SqlQueries } from '../../records/database/sql.ts';

export interface OrganizationRef {
  id: string;
  slug: string;
  status: OrganizationState;
}

export interface NamedOrganization extends OrganizationRef {
  name: string;
}

/** An id or slug that names no organization: the CLI prints it, the admin port answers 404. */
export class OrganizationNotFoundError extends OperatorError {
  override name = 'OrganizationNotFoundError';

  constructor(
    readonly idOrSlug: string,
    /** The database asked, for the CLI's message ("PGlite ./var/platform"); never a password. */
    where?: string,
  ) {
    super(`no organization with id or slug ${JSON.stringify(idOrSlug)}${where === undefined ? '' : ` in ${where}`}`);
  }
}

/** Every organization, whatever its status (the pointer publishes the state), ordered by id. */
export function listOrganizations(db: SqlQueries): Promise<OrganizationRef[]> {
  return db.query<OrganizationRef>('SELECT id, slug, status FROM organizations ORDER BY id');
}

/** Every organization with its name, by slug (the order an operator looks for one in). */
export function listNamedOrganizations(db: SqlQueries): Promise<NamedOrganization[]> {
  return db.query<NamedOrganization>('SELECT id, slug, status, name FROM organizations ORDER BY slug');
}

/**
 * The organization an operator named (docs/design.md "Process model and configuration"): by id when the name looks
 * like one, else by slug; an OrganizationNotFoundError naming it when there is none.
 */
export async function findOrganization(db: SqlQueries & { readonly description?: string }, idOrSlug: string): Promise<OrganizationRef> {
  const [organization] = isUuid(idOrSlug)
    ? await db.query<OrganizationRef>('SELECT id, slug, status FROM organizations WHERE id = $1', [idOrSlug.toLowerCase()])
    : await db.query<OrganizationRef>('SELECT id, slug, status FROM organizations WHERE slug = $1', [idOrSlug]);
  if (organization === undefined) throw new OrganizationNotFoundError(idOrSlug, db.description);
  return organization;
}

/**
 * Organization id → slug for the ids the platform knows (key views name their organization).
 * Compared as text: a key's organization id is whatever was stored, not necessarily a valid uuid.
 */
export async function organizationSlugs(db: SqlQueries, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; slug: string }>('SELECT id::text AS id, slug FROM organizations WHERE id::text = ANY($1::text[])', [ids]);
  return new Map(rows.map((row) => [row.id, row.slug]));
}
