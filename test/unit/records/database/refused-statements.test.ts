// What start's embedded database refuses before PGlite sees it (records/database/refused-statements.ts),
// and what it must not refuse: the CLI's and start's own statements, COPY to the client's stream.
import { expect, it } from 'vitest';
import { refusalOf } from '../../../../records/database/refused-statements.ts';

it('refuses COPY … TO/FROM PROGRAM, COPY to or from a server file, and the server-side file functions, naming why', () => {
  expect(refusalOf("COPY (SELECT 1) TO PROGRAM 'id'")).toMatch(/^COPY … TO\/FROM PROGRAM is refused by Marquee: the embedded database \(PGlite/);
  expect(refusalOf("copy notes from program 'cat /etc/passwd'")).toMatch(/PROGRAM is refused/);
  expect(refusalOf("COPY notes TO '/tmp/notes.csv'")).toMatch(/^COPY to or from a server file is refused/);
  expect(refusalOf("COPY notes FROM E'/etc/passwd'")).toMatch(/server file/);
  expect(refusalOf("SELECT pg_read_file('/etc/passwd')")).toMatch(/^pg_read_file\(\) is refused by Marquee/);
  expect(refusalOf('select PG_LS_DIR ($1)')).toMatch(/^pg_ls_dir\(\) is refused/);
  for (const sql of ["SELECT pg_read_binary_file('x')", "SELECT pg_stat_file('x')", "SELECT lo_import('/etc/passwd')", "SELECT lo_export(1, '/tmp/x')"]) {
    expect(refusalOf(sql), sql).toBeDefined();
  }
  // Inside a function body written as a string, too: the text is read as given.
  expect(refusalOf("DO $$ BEGIN EXECUTE 'COPY (SELECT 1) TO PROGRAM ''id'''; END $$")).toMatch(/PROGRAM/);
});

it('lets through what start, the CLI and psql send: ordinary statements, COPY to the client and from it, names that only look alike', () => {
  for (const sql of [
    'SELECT 1',
    "UPDATE team_members SET show_on_website = false WHERE full_name = 'Ada'",
    'COPY notes TO STDOUT',
    'COPY notes FROM STDIN',
    'COPY (SELECT * FROM events) TO STDOUT WITH (FORMAT csv)',
    'SELECT my_pg_read_file_count FROM stats',
    'INSERT INTO notes VALUES ($1)',
  ]) {
    expect(refusalOf(sql), sql).toBeUndefined();
  }
});
