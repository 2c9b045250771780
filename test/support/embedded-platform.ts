// The embedded platform database of a MARQUEE_HOME, changed between CLI runs the way the
// platform itself would (test/integration/cli/): apart from cli.ts, so that the files that only
// run the CLI do not load PGlite.
import { join } from 'node:path';
import { openPglite } from '../../records/database/pglite.ts';

/**
 * Runs `work` on the embedded platform database of MARQUEE_HOME `home` between CLI runs, as the
 * platform itself would change it, and closes it again (it is locked to one process at a time).
 */
export async function onEmbeddedPlatform<T>(home: string, work: (db: Awaited<ReturnType<typeof openPglite>>) => Promise<T>): Promise<T> {
  const db = await openPglite(join(home, 'platform'));
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}
