// What the platform database says must be in a snapshot store, for verify and audit
// (builder/history/verify-history.ts `Expectations`): every organization it knows, and of those
// the ones a build recorded as built into this very store (marquee_built_versions,
// builder/platform/versions.ts). A build records its versions after it published, found its
// snapshot unchanged or published a suspension (builder/build.ts recordBuilt), so a row means the
// store was given a pointer for the organization, which retention never removes: nothing of it in
// the store is a history removed, not one never built.
//
// What it cannot say: which snapshots were published (one row per organization, replaced by each
// build), so a removed newest manifest is not seen from here; nor anything of a build whose record
// failed (its warning says so), or of a source that keeps no versions. The runs' records
// (marquee_runs, marquee_run_results) are no evidence: they name no store and are kept a day.
// The publication log knows every publication (logged-publications.ts): its expectations name
// each snapshot and state record, merged with these per organization (verification-expectations.ts).
import type { SqlQueries } from '../../records/database/sql.ts';
import type { Expectation } from './verify-history.ts';

// Organizations the platform deleted keep their built versions and their history: the full join
// keeps them. Compared as text: a built version's id is a uuid, as the organization's is.
const QUERY = `
  SELECT coalesce(o.id::text, b.organization_id::text) AS "organizationId",
         to_char(b.built_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "builtAt"
  FROM organizations o
  FULL JOIN (SELECT organization_id, built_at FROM marquee_built_versions WHERE store = $1) b ON b.organization_id = o.id
  WHERE $2::text IS NULL OR coalesce(o.id::text, b.organization_id::text) = $2::text
  ORDER BY 1`;

/**
 * Every organization the database knows (or `only` that one), each with an expectation when a
 * build recorded that it was built into `store` (the store's description, as builds record it:
 * bin/services.ts). What is built into one store says nothing of another.
 */
export async function databaseExpectations(db: SqlQueries, store: string, only?: string): Promise<Map<string, Expectation[]>> {
  const rows = await db.query<{ organizationId: string; builtAt: string | null }>(QUERY, [store, only ?? null]);
  const expectations = new Map<string, Expectation[]>();
  for (const { organizationId, builtAt } of rows) {
    const says = `the platform database records a build of it into this store, last at ${builtAt} (marquee_built_versions)`;
    expectations.set(organizationId, builtAt === null ? [] : [{ says }]);
  }
  return expectations;
}
