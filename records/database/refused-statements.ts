// What a client of the embedded database may not send it: statements PGlite cannot run safely.
// PGlite is PostgreSQL compiled to WebAssembly in one process: `COPY … TO/FROM PROGRAM` has no
// program to start and left the process spinning; COPY to or from a server file and the server's
// file functions reach the files of the machine as the account that runs Marquee. Only that
// account reaches the socket (embedded-server.ts), so this is a guard against freezing the
// database and against accidents, not a sandbox: the text is read as written (a statement built
// by string concatenation inside a function is not seen), which the statement timeout backs up.

/** The server's file and large-object file functions (PostgreSQL 17, "System Administration Functions"). */
const FILE_FUNCTIONS = [
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_dir',
  'pg_stat_file',
  'pg_ls_logdir',
  'pg_ls_waldir',
  'pg_ls_tmpdir',
  'pg_ls_archive_statusdir',
  'pg_ls_logicalmapdir',
  'pg_ls_logicalsnapdir',
  'pg_ls_replslotdir',
  'pg_ls_summariesdir',
  'lo_import',
  'lo_export',
];
const FILE_FUNCTION = new RegExp(`\\b(${FILE_FUNCTIONS.join('|')})\\s*\\(`, 'i');
const COPY_PROGRAM = /\bCOPY\b[^;]*?\b(TO|FROM)\s+PROGRAM\b/i;
/** COPY … TO 'file' / FROM 'file' (E'…' too); TO STDOUT and FROM STDIN are the client's own stream and stay allowed. */
const COPY_FILE = /\bCOPY\b[^;]*?\b(TO|FROM)\s+E?'/i;

/** Why `sql` is refused, as the client is told; undefined when it may run. */
export function refusalOf(sql: string): string | undefined {
  if (COPY_PROGRAM.test(sql)) {
    return 'COPY … TO/FROM PROGRAM is refused by Marquee: the embedded database (PGlite, PostgreSQL in WebAssembly) cannot start a program, and it stalls the database for everyone';
  }
  if (COPY_FILE.test(sql)) {
    return "COPY to or from a server file is refused by Marquee: the embedded database would read or write the machine's files as the account that runs Marquee; use COPY … TO STDOUT / FROM STDIN (psql's \\copy)";
  }
  const fileFunction = FILE_FUNCTION.exec(sql)?.[1];
  if (fileFunction !== undefined) {
    return `${fileFunction.toLowerCase()}() is refused by Marquee: a server-side file function of the embedded database reads or writes the machine's files as the account that runs Marquee`;
  }
  return undefined;
}

/** SQLSTATE 42501, insufficient_privilege: what PostgreSQL answers a role that may not do this. */
export const REFUSED_SQLSTATE = '42501';
