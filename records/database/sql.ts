// The one door to the platform database, as the rest of the builder sees it: a small SQL client
// (SqlClient) whose backends live in database/ — PostgreSQL (DATABASE_URL, production) and PGlite
// (the embedded default under MARQUEE_HOME), chosen by database/database-backends.ts
// (docs/design.md "Process model and configuration"). Everything else in builder/platform talks
// to SqlClient only.
import { OperatorError } from '../../runtime/errors.ts';
import { DEFAULT_MARQUEE_SCHEMA, DEFAULT_PLATFORM_SCHEMA } from './schemas.ts';

/** What can run statements: the client itself, or one transaction of it. */
export interface SqlQueries {
  query<T>(text: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements (no parameters). */
  exec(script: string): Promise<void>;
}

export interface TransactionOptions {
  /**
   * A read-only REPEATABLE READ snapshot, so that several queries of one reader see one
   * consistent state of the platform (a build never mixes rows from before and after a change).
   */
  readOnly?: boolean;
}

export interface ListenOptions {
  /**
   * Called each time listening resumes after the connection was lost (a database restart): what
   * was notified meanwhile is lost, and the caller must make up for it; for start's embedded
   * database, after its process was restarted. Never called for PGlite in this process.
   */
  onReconnect?: () => void;
}

/** What one statement run as given did (`db sql`), as PostgreSQL's command tag says it. */
interface StatementOutcome {
  rows: Record<string, unknown>[];
  /** The command tag's verb (SELECT, INSERT, UPDATE, DELETE, MERGE, CREATE…); null when the server named none. */
  command: string | null;
  /** The command tag's count: the rows a SELECT returned or an INSERT, UPDATE, DELETE or MERGE changed; null for a command without one (CREATE…). */
  rowCount: number | null;
}

export interface SqlClient extends SqlQueries {
  /** For messages: "PostgreSQL 127.0.0.1:5433/platform", "PGlite ./var/platform". Never a password. */
  readonly description: string;
  /** The schema holding the platform relations (PLATFORM_SCHEMA; default `public`). */
  readonly schema: string;
  /** The schema holding Marquee's own relations (MARQUEE_SCHEMA; default `marquee`): records/schema/. */
  readonly marqueeSchema: string;
  /**
   * Runs one statement as an operator typed it (`db sql`), without parameters, and says what it
   * did: an UPDATE that matched nothing answers no rows, as one that changed rows does, and only
   * the command tag tells them apart.
   */
  statement(text: string): Promise<StatementOutcome>;
  /** Runs `work` in one transaction on one connection: committed if it resolves, rolled back if not. */
  transaction<T>(work: (tx: SqlQueries) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Calls `onPayload` for every NOTIFY on `channel`; resolves to an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void, options?: ListenOptions): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** The platform database cannot be reached or opened: the message names it and why, for the operator. */
export class PlatformDatabaseError extends OperatorError {
  override name = 'PlatformDatabaseError';
}

/**
 * The platform database did not answer in time: start's embedded database held by another client,
 * or a statement past its timeout (database/embedded-supervisor.ts). Nothing was done; the same
 * request later may succeed.
 */
export class DatabaseTimeoutError extends PlatformDatabaseError {
  override name = 'DatabaseTimeoutError';
}

export interface OpenOptions {
  schema?: string;
  marqueeSchema?: string;
}

/** A connection's schemas, and the search_path that finds every relation by its bare name. */
export interface ConnectionSchemas {
  schema: string;
  marqueeSchema: string;
  /** Comma-separated without spaces: it also goes into a libpq `-c` option. */
  searchPath: string;
}

/**
 * Marquee's schema comes first: Marquee's relations are found there whatever the platform's schema
 * holds (a relation an earlier release left there, or that one recreated), and Marquee never makes
 * a relation named like the platform's, so those are found in the platform's schema.
 */
export function connectionSchemas(options: OpenOptions): ConnectionSchemas {
  const schema = checkedSchema('PLATFORM_SCHEMA', options.schema ?? DEFAULT_PLATFORM_SCHEMA);
  const marqueeSchema = checkedSchema('MARQUEE_SCHEMA', options.marqueeSchema ?? DEFAULT_MARQUEE_SCHEMA);
  return { schema, marqueeSchema, searchPath: marqueeSchema === schema ? schema : `${marqueeSchema},${schema}` };
}

/** Schemas go into search_path unquoted, so only plain identifiers are accepted (bin/config.ts refuses others first). */
function checkedSchema(variable: string, schema: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new PlatformDatabaseError(`${variable} must be a plain lower-case identifier, got ${JSON.stringify(schema)}`);
  }
  return schema;
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The short reason of a connection failure: a system error code, or the server's message. */
export function failureReason(error: unknown): string {
  // Node reports a refused connection to every address of a host as an AggregateError whose own
  // message is empty; its code (ECONNREFUSED) says it all.
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  if (error instanceof Error && error.message) return error.message;
  return String(error);
}
