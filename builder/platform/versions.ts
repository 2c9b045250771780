// What a scheduled run needs to build only what changed (docs/design.md "Builders at platform
// scale"): the platform's change triggers advance each organization's source version
// (marquee_source_versions), and every build records, per snapshot store, the source and projection
// versions it built from (marquee_built_versions). One query over both, never a read of an
// organization's rows or its pointer, says which organizations differ from what is published, and
// which are next for the rolling verification.
import type { OrganizationState } from '../../snapshot/manifest.ts';
import { PlatformDatabaseError, type SqlClient } from './sql.ts';

/**
 * The two relations, shared by `db migrate` (before the trigger function that writes the first)
 * and by every builder at start (a platform of views installs its own triggers, and never runs
 * the migration): each statement is safe to run again.
 *
 * The source version comes from one sequence, not a per-organization counter: a version is never
 * reused, so a relation emptied by hand makes every organization differ rather than match.
 */
export const VERSION_RELATIONS = `
CREATE SEQUENCE IF NOT EXISTS marquee_source_version;
CREATE TABLE IF NOT EXISTS marquee_source_versions (
  organization_id uuid PRIMARY KEY,
  version bigint NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE marquee_source_versions IS 'Marquee: advanced by the change triggers on every change to an organization''s rows';
CREATE TABLE IF NOT EXISTS marquee_built_versions (
  store text NOT NULL,
  organization_id uuid NOT NULL,
  source_version bigint NOT NULL,
  projection_version text NOT NULL,
  built_at timestamptz NOT NULL,
  PRIMARY KEY (store, organization_id)
);
CREATE INDEX IF NOT EXISTS marquee_built_versions_built_at ON marquee_built_versions (store, built_at);
COMMENT ON TABLE marquee_built_versions IS 'Marquee: the versions each organization was last built from, per snapshot store';`;

/** Serializes builders creating the relations at once (CREATE ... IF NOT EXISTS races on the catalog). */
const VERSION_RELATIONS_LOCK = 0x6d717276; // "mqrv"

/**
 * Creates the relations when missing. Once they exist a builder needs only to read the first and
 * write the second: a platform may take back the CREATE it granted for the first start.
 */
export async function ensureVersionRelations(db: SqlClient): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [VERSION_RELATIONS_LOCK]);
      const [found] = await tx.query<{ present: boolean }>(
        `SELECT to_regclass('marquee_source_versions') IS NOT NULL AND to_regclass('marquee_built_versions') IS NOT NULL AND to_regclass('marquee_source_version') IS NOT NULL AS present`,
      );
      if (!found?.present) await tx.exec(VERSION_RELATIONS);
    });
  } catch (error) {
    throw new PlatformDatabaseError(
      `cannot create the version relations marquee_source_versions and marquee_built_versions in ${db.description} (schema "${db.schema}"): ${(error as Error).message}; the role of DATABASE_URL needs CREATE on that schema once (docs/platform.md)`,
      { cause: error },
    );
  }
}

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
