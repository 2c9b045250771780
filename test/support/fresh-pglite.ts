// A new, empty embedded database for a test, in the place of an in-memory `openPglite()`: PGlite's
// initdb costs about 6 s of CPU per new database on Node 26 (in memory as on disk), opening a data
// directory it made about 1 s. So the first file of a run that asks makes one empty data directory
// (test/support/run-templates.ts) and each database is a copy of it in a temporary directory,
// removed when the database is closed. Outside a run that keeps templates, it is in memory.
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite } from '../../records/database/pglite.ts';
import type { OpenOptions, SqlClient } from '../../records/database/sql.ts';
import { runTemplate } from './run-templates.ts';

async function initdb(directory: string): Promise<void> {
  await mkdir(directory, { mode: 0o700 });
  await (await openPglite(directory)).close();
}

export async function openFreshPglite(options: OpenOptions = {}): Promise<SqlClient> {
  const template = await runTemplate('empty-pglite', initdb);
  if (template === undefined) return openPglite(undefined, options);
  const directory = await mkdtemp(join(tmpdir(), 'marquee-pglite-'));
  try {
    await cp(template, directory, { recursive: true });
    const db = await openPglite(directory, options);
    return {
      ...db,
      close: async () => {
        await db.close();
        await rm(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}
