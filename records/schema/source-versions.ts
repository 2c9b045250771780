// Where the platform's change trigger finds the source versions (docs/platform.md §5.1): the
// function the platform migrations install writes marquee_source_versions by its bare name, which
// lives in Marquee's schema. Run by Marquee's migrations (migrate.ts) and the platform's
// (builder/platform/migrations.ts) after each one that makes or moves either.
import { quoteIdentifier, type SqlClient, type SqlQueries } from '../database/sql.ts';

/**
 * The change trigger function the platform migrations install (marquee_notify_change, in the
 * platform's schema) writes the source versions by their bare names, which live in Marquee's
 * schema (records/schema/): its search_path names that schema first, as every connection
 * of Marquee's does (sql.ts). Run after each migration that makes or moves either; a platform of
 * views has no such function, and its own triggers find the relations as docs/platform.md says.
 */
export async function reachSourceVersionsFromTriggers(tx: SqlQueries, db: SqlClient): Promise<void> {
  const trigger = `${quoteIdentifier(db.schema)}.marquee_notify_change()`;
  const [found] = await tx.query<{ present: boolean }>('SELECT to_regprocedure($1) IS NOT NULL AS present', [trigger]);
  if (!found?.present) return;
  const schemas = db.marqueeSchema === db.schema ? [db.schema] : [db.marqueeSchema, db.schema];
  await tx.exec(`ALTER FUNCTION ${trigger} SET search_path = ${schemas.map(quoteIdentifier).join(', ')}`);
}
