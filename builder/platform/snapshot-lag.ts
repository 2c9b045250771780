// How far the snapshots in one store lag behind the platform (docs/operation.md "Health"): an
// organization's snapshot is current while it was built from the organization's current source
// version (versions.ts); once the change triggers move that version on, its snapshot ages from the
// change until a builder builds it. One aggregate over Marquee's two version relations, the same
// ones a scheduled run selects from, never a read of a pointer: the figure is the fleet's, whoever
// built what, and costs one statement however many organizations there are.
import type { SqlClient } from '../../records/database/sql.ts';

export interface SnapshotLag {
  /** Milliseconds since the epoch of the change the longest unbuilt; undefined when every snapshot is current. */
  oldestChangeMs: number | undefined;
  /** Organizations whose unbuilt change is older than the threshold. */
  stale: number;
}

// An organization never built into this store but with a source version is behind since its
// change; one with neither has never been changed since Marquee's relations were made, and is
// left to the first run. The projection version is left out: a release that changes it rebuilds
// everything once, and that is a new format, not stale data.
const LAG_QUERY = `
  SELECT (extract(epoch FROM min(v.changed_at)) * 1000)::float8 AS "oldestChangeMs",
         count(*) FILTER (WHERE v.changed_at < now() - $2 * interval '1 millisecond')::int4 AS stale
  FROM organizations o
  JOIN marquee_source_versions v ON v.organization_id = o.id
  LEFT JOIN marquee_built_versions b ON b.store = $1 AND b.organization_id = o.id
  WHERE b.organization_id IS NULL OR b.source_version <> v.version`;

/** `store`: the store's description, as builds record it (versions.ts SqlBuiltVersions). */
export async function snapshotLag(db: SqlClient, store: string, staleAfterMs: number): Promise<SnapshotLag> {
  const [row] = await db.query<{ oldestChangeMs: number | null; stale: number }>(LAG_QUERY, [store, staleAfterMs]);
  return { oldestChangeMs: row?.oldestChangeMs ?? undefined, stale: row?.stale ?? 0 };
}
