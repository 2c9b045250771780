// A new, empty in-memory PGlite for a test, as `openPglite()` opens one, without its initdb: that
// costs about 6 s of CPU per database on Node 26, starting from a dump of an empty data directory
// about 2 s. So a run whose files import this makes the dump once, before its files start
// (test/support/run-templates.ts), and every database starts from it. Outside a run that keeps
// templates, initdb makes each.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPglite } from '../../records/database/pglite-engine.ts';
import { openPglite } from '../../records/database/pglite.ts';
import type { OpenOptions, SqlClient } from '../../records/database/sql.ts';
import { type RunTemplate, runTemplate } from './run-templates.ts';

const DUMP = 'data-directory.tar';

async function dumpEmpty(directory: string): Promise<void> {
  await mkdir(directory, { mode: 0o700 });
  const db = await createPglite(undefined);
  try {
    await writeFile(join(directory, DUMP), Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()));
  } finally {
    await db.close();
  }
}

export const EMPTY_PGLITE: RunTemplate = { name: 'empty-pglite', module: fileURLToPath(import.meta.url), make: dumpEmpty };

/** Read once per test file: each database gets the same bytes. */
let dump: Promise<Blob | undefined> | undefined;

export async function openFreshPglite(options: OpenOptions = {}): Promise<SqlClient> {
  dump ??= runTemplate(EMPTY_PGLITE).then(async (template) => (template === undefined ? undefined : new Blob([await readFile(join(template, DUMP))])));
  const from = await dump;
  return openPglite(undefined, { ...options, ...(from === undefined ? {} : { from }) });
}
