// What a role refused for want of a privilege (SQLSTATE 42501) while applying migrations must be
// granted, as statements an administrator can paste: PostgreSQL 15 took CREATE on schema public
// away from every role but its owner, so a recipe's `GRANT CREATE ON DATABASE` alone no longer
// lets `db migrate` make the platform's relations there (docs/production.md, "A recipe").
import { REFUSED_SQLSTATE } from '../database/refused-statements.ts';
import { PlatformDatabaseError, quoteIdentifier, type SqlClient } from '../database/sql.ts';

/** What the connected role may do, as the server answers after the refusal. */
interface MigrationPrivileges {
  role: string;
  database: string;
  schemaExists: boolean;
  createOnDatabase: boolean;
  /** Both false when the schema does not exist. */
  usageOnSchema: boolean;
  createOnSchema: boolean;
}

interface MigrationTarget {
  /** The schema the migrations make relations in. */
  schema: string;
  /** Whether they run CREATE SCHEMA even when it exists: IF NOT EXISTS still asks for CREATE on the database. */
  alwaysCreatesSchema: boolean;
}

/** The grants `privileges.role` lacks to apply migrations in `target.schema`; empty when it has them (the refusal was about something else). */
function missingGrants(target: MigrationTarget, privileges: MigrationPrivileges): string[] {
  const role = quoteIdentifier(privileges.role);
  const schema = quoteIdentifier(target.schema);
  const grants: string[] = [];
  if (!privileges.createOnDatabase && (target.alwaysCreatesSchema || !privileges.schemaExists)) {
    grants.push(`GRANT CREATE ON DATABASE ${quoteIdentifier(privileges.database)} TO ${role};`);
  }
  if (privileges.schemaExists && !(privileges.usageOnSchema && privileges.createOnSchema)) grants.push(`GRANT USAGE, CREATE ON SCHEMA ${schema} TO ${role};`);
  return grants;
}

/** The operator's message for a refusal `missingGrants` explains. */
function refusalMessage(what: string, target: MigrationTarget, privileges: MigrationPrivileges, grants: readonly string[], reason: string): string {
  const public15 =
    target.schema === 'public' && privileges.schemaExists && !privileges.createOnSchema ? ' (since PostgreSQL 15 only the owner of schema public may create in it)' : '';
  return (
    `cannot apply ${what} in schema "${target.schema}": ${reason} (SQLSTATE ${REFUSED_SQLSTATE}). Role "${privileges.role}" needs${public15}, granted once by the database's owner or a superuser: ` +
    `${grants.join(' ')} Or run \`marquee db migrate\` once as a role that has them (docs/production.md, "A recipe")`
  );
}

/**
 * A migration's failure as the operator should read it: a refusal for want of a privilege becomes
 * a PlatformDatabaseError naming the grants that fix it (one line from the CLI, no stack);
 * undefined for any other failure, or when what is missing is not a grant (another role owns a
 * relation), which the caller words itself.
 */
export async function migrationRefusal(error: unknown, db: SqlClient, what: string, target: MigrationTarget): Promise<PlatformDatabaseError | undefined> {
  if ((error as { code?: unknown } | undefined)?.code !== REFUSED_SQLSTATE) return undefined;
  let privileges: MigrationPrivileges | undefined;
  try {
    privileges = await privilegesOf(db, target.schema);
  } catch {
    // The server no longer answers: the caller's own message says what failed.
    return undefined;
  }
  const grants = missingGrants(target, privileges);
  if (grants.length === 0) return undefined;
  return new PlatformDatabaseError(refusalMessage(what, target, privileges, grants, (error as Error).message), { cause: error });
}

async function privilegesOf(db: SqlClient, schema: string): Promise<MigrationPrivileges> {
  const [row] = await db.query<MigrationPrivileges>(
    `SELECT current_user::text AS role, current_database()::text AS database, n.oid IS NOT NULL AS "schemaExists",
       has_database_privilege(current_database(), 'CREATE') AS "createOnDatabase",
       coalesce(has_schema_privilege(n.oid, 'USAGE'), false) AS "usageOnSchema",
       coalesce(has_schema_privilege(n.oid, 'CREATE'), false) AS "createOnSchema"
     FROM (SELECT 1) AS one LEFT JOIN pg_namespace n ON n.nspname = $1`,
    [schema],
  );
  if (row === undefined) throw new Error('no answer');
  return row;
}
