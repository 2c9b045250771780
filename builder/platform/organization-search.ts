// The platform's organizations a page at a time, for operators (the console's list, the admin
// API's): ordered by slug and paged by keyset (after or before a slug, never OFFSET), so any page
// of 100,000 costs what the first does; optionally only those whose slug or name contains a text,
// case-insensitively. Ordering and keyset ride the slug's unique index, which every platform has
// (docs/platform.md §2.2); the search itself reads the relation without one: it is the platform's
// (perhaps a view), not Marquee's to index. So a search is given its candidates found in memory
// (admin/organization-names.ts) and tests only those rows, and counts what it found only when that
// fits on the page (docs/performance.md, "Console at fleet scale").
import type { SqlQueries } from '../../records/database/sql.ts';
import { findOrganization, type NamedOrganization } from './organizations.ts';

export interface OrganizationPageRequest {
  /** Only organizations whose slug or name contains this text, whatever its case; empty or absent: every one. */
  search?: string;
  /** The page after this slug (the previous page's last). */
  after?: string;
  /** The page before this slug (the next page's first); not with `after`. */
  before?: string;
  /** At most this many; absent: every one that matches. */
  limit?: number;
  /**
   * Only organizations among these ids: a search's candidates, found without reading the relation
   * (admin/organization-names.ts). The search's own test still decides, on those rows alone.
   */
  candidates?: readonly string[];
}

export interface OrganizationRows {
  organizations: NamedOrganization[];
  /**
   * How many there are in all; with a search, only when they fit on this one page (null: more than
   * a page match, left uncounted, as counting them would read the whole relation once more).
   */
  total: number | null;
  /** Ask `after` this slug for the next page; null when this one is the last. */
  next: string | null;
  /** Ask `before` this slug for the previous page; null when this one is the first. */
  previous: string | null;
}

const COLUMNS = 'SELECT id, slug, status, name FROM organizations';

/** The page asked for, with the total that matches and where the pages beside it begin. */
export async function searchOrganizations(db: SqlQueries, request: OrganizationPageRequest): Promise<OrganizationRows> {
  if (request.after !== undefined && request.before !== undefined) throw new RangeError('a page is asked for after a slug or before one, not both');
  if (request.limit !== undefined && !(Number.isSafeInteger(request.limit) && request.limit >= 1))
    throw new RangeError(`a page holds at least one organization, not ${request.limit}`);
  const search = request.search?.trim() ?? '';
  const backwards = request.before !== undefined;
  const boundary = request.before ?? request.after;
  const filter = () => new Filter(search, request.candidates);
  const query = filter();
  if (boundary !== undefined) query.where(`slug ${backwards ? '<' : '>'} $`, boundary);
  // One more than the page: whether there is another page beyond it, in the direction asked.
  const limit = request.limit === undefined ? '' : ` LIMIT ${request.limit + 1}`;
  const found = await db.query<NamedOrganization>(`${COLUMNS}${query.sql()} ORDER BY slug ${backwards ? 'DESC' : 'ASC'}${limit}`, query.values);
  const beyond = request.limit !== undefined && found.length > request.limit;
  const rows = beyond ? found.slice(0, request.limit) : found;
  if (backwards) rows.reverse();
  const [first, last] = [rows[0], rows.at(-1)];
  // The other direction: there is a page there when something matches beyond this page's edge.
  const before = backwards ? beyond : boundary !== undefined && first !== undefined && (await matchesBeyond(db, filter(), '<', first.slug));
  const after = backwards ? last !== undefined && (await matchesBeyond(db, filter(), '>', last.slug)) : beyond;
  return {
    organizations: rows,
    total: search === '' ? await countEvery(db) : !beyond && !before && !after ? rows.length : null,
    next: after && last !== undefined ? last.slug : null,
    previous: before && first !== undefined ? first.slug : null,
  };
}

/** Every organization's slug and name, in no order: what a search looks through (admin/organization-names.ts). */
export function organizationNames(db: SqlQueries): Promise<Array<{ id: string; slug: string; name: string }>> {
  return db.query('SELECT id, slug, name FROM organizations');
}

/** The organization an operator named, with its name; an OrganizationNotFoundError naming it when there is none. */
export async function findNamedOrganization(db: SqlQueries & { readonly description?: string }, idOrSlug: string): Promise<NamedOrganization> {
  const found = await findOrganization(db, idOrSlug);
  const [row] = await db.query<{ name: string }>('SELECT name FROM organizations WHERE id = $1', [found.id]);
  // Deleted between the two reads: named as it was found.
  return { ...found, name: row?.name ?? found.slug };
}

async function matchesBeyond(db: SqlQueries, query: Filter, side: '<' | '>', slug: string): Promise<boolean> {
  query.where(`slug ${side} $`, slug);
  return (await db.query(`SELECT 1 FROM organizations${query.sql()} LIMIT 1`, query.values)).length > 0;
}

async function countEvery(db: SqlQueries): Promise<number> {
  const [row] = await db.query<{ total: number }>('SELECT count(*)::int4 AS total FROM organizations');
  return row?.total ?? 0;
}

/** A WHERE clause built with numbered parameters: the search first, when there is one. */
class Filter {
  readonly values: unknown[] = [];
  private readonly conditions: string[] = [];

  constructor(search: string, candidates: readonly string[] | undefined) {
    // Ids first: the primary key finds those rows, and only they are tested.
    if (candidates !== undefined) this.where('id = ANY($::uuid[])', candidates);
    // strpos, not LIKE: the operator's text is matched as it is, % and _ included. Slugs are URL
    // segments, written in lower case: compared to the text as typed and in lower case, without
    // lower() on each row's slug, which doubled the cost of reading the relation (docs/performance.md).
    if (search !== '') this.where('(strpos(slug, $) > 0 OR strpos(slug, lower($)) > 0 OR strpos(lower(name), lower($)) > 0)', search);
  }

  /** `condition` with each `$` standing for `value`. */
  where(condition: string, value: unknown): this {
    this.values.push(value);
    const parameter = `$${this.values.length}`;
    this.conditions.push(condition.replaceAll('$', () => parameter));
    return this;
  }

  sql(): string {
    return this.conditions.length === 0 ? '' : ` WHERE ${this.conditions.join(' AND ')}`;
  }
}
