// What a scheduled run needs to build only what changed (docs/design.md "Runs that cost what changed"): the platform's change triggers advance each organization's source version
// (marquee_source_versions), and every build records, per snapshot store, the source and projection
// versions it built from (marquee_built_versions). One query over both, never a read of an
// organization's rows or its pointer, says which organizations differ from what is published, and
// which are next for the rolling verification. Both relations are Marquee's own, made by its
// migrations (records/schema/migrations/001-versions.sql).
import type { OrganizationState } from '../../snapshot/manifest.ts';
import type { SqlClient } from '../../records/database/sql.ts';

/** An organization a run selected, and why: its versions differ from what was built, or it is due for verification. */
interface SelectedOrganization {
  id: string;
  slug: string;
  status: OrganizationState;
  sourceVersion: string;
  reason: 'changed' | 'verify';
}

export interface Selection {
  /** Ordered by id. */
  organizations: SelectedOrganization[];
  /** Organizations left out: built from their current versions, and not due for verification. */
  skipped: number;
}

/**
 * How much of the fleet a run verifies: `share` of every organization (the run's period over
 * FULL_BUILD_EVERY), and at least every one last built before `dueBefore` (which would otherwise
 * outlive FULL_BUILD_EVERY before the next run).
 */
export interface Verification {
  share: number;
  dueBefore: Date;
}

export interface BuiltVersion {
  organizationId: string;
  sourceVersion: string;
  projectionVersion: string;
}

/** The seam a build uses; the SQL one below is its only implementation, on PostgreSQL and PGlite alike. */
export interface BuiltVersions {
  /** The organizations whose source or projection version differs from what was built into this store, and those verified this run. */
  select(projectionVersion: string, verification: Verification | undefined): Promise<Selection>;
  /** An organization was built (published or found unchanged) from these versions. */
  record(built: BuiltVersion): Promise<void>;
}

// Organizations never changed since the relations were made have no source version: 0, which no
// recorded build has until one reads them. An organization never built into this store has no
// built version: it differs.
const SELECT_QUERY = `
  WITH listed AS (
    SELECT o.id, o.slug, o.status, coalesce(v.version, 0) AS source_version, b.built_at,
           (b.organization_id IS NULL OR b.source_version <> coalesce(v.version, 0) OR b.projection_version <> $2) AS changed
    FROM organizations o
    LEFT JOIN marquee_source_versions v ON v.organization_id = o.id
    LEFT JOIN marquee_built_versions b ON b.store = $1 AND b.organization_id = o.id
  ),
  verified AS (
    SELECT id FROM listed WHERE NOT changed
    ORDER BY built_at, id
    LIMIT greatest(ceil((SELECT count(*) FROM listed) * $3::float8), (SELECT count(*) FROM listed WHERE NOT changed AND built_at < $4))
  ),
  selected AS (
    SELECT id, slug, status, source_version::text AS "sourceVersion", CASE WHEN changed THEN 'changed' ELSE 'verify' END AS reason
    FROM listed
    WHERE changed OR id IN (SELECT id FROM verified)
  )
  -- One row at least, so the total comes with an empty selection in the same statement.
  SELECT s.*, t.total FROM (SELECT count(*)::int4 AS total FROM listed) t LEFT JOIN selected s ON true
  ORDER BY s.id`;

const RECORD_QUERY = `
  INSERT INTO marquee_built_versions (store, organization_id, source_version, projection_version, built_at)
  VALUES ($1, $2, $3, $4, now())
  ON CONFLICT (store, organization_id) DO UPDATE
    SET source_version = excluded.source_version, projection_version = excluded.projection_version, built_at = excluded.built_at`;

export class SqlBuiltVersions implements BuiltVersions {
  /** `store`: the snapshot store's description: what is built into one store says nothing of another. */
  constructor(
    private readonly db: SqlClient,
    private readonly store: string,
  ) {}

  async select(projectionVersion: string, verification: Verification | undefined): Promise<Selection> {
    const share = verification?.share ?? 0;
    const dueBefore = verification?.dueBefore ?? new Date(0);
    const rows = await this.db.query<(SelectedOrganization | { id: null }) & { total: number }>(SELECT_QUERY, [this.store, projectionVersion, share, dueBefore.toISOString()]);
    const organizations = rows.flatMap(({ total: _, ...row }) => (row.id === null ? [] : [row as SelectedOrganization]));
    return { organizations, skipped: (rows[0]?.total ?? 0) - organizations.length };
  }

  async record(built: BuiltVersion): Promise<void> {
    await this.db.query(RECORD_QUERY, [this.store, built.organizationId, built.sourceVersion, built.projectionVersion]);
  }
}
