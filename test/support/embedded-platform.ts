// The embedded platform database of a MARQUEE_HOME, changed between CLI runs the way the
// platform itself would (test/integration/cli/): apart from cli.ts, so that the files that only
// run the CLI do not load PGlite. In this process, not through `marquee db seed` or `db sql`: each
// of those starts a process that loads the product and opens the database, about 3 s of CPU, for
// what a file only sets up (the commands themselves are cli.test.ts's).
import { join } from 'node:path';
import { seedSample } from '../../builder/platform/sample.ts';
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

/**
 * The sample platform seeded into `home`'s embedded database now, as `marquee db seed --sample`
 * seeds it, but for the entry the command adds to the audit trail. Then `statements`, in order.
 */
export async function seedSampleIn(home: string, ...statements: string[]): Promise<void> {
  const { seeded } = await onEmbeddedPlatform(home, async (db) => {
    const result = await seedSample(db, { now: new Date() });
    for (const statement of statements) await db.query(statement);
    return result;
  });
  if (!seeded) throw new Error(`${home}: the platform database already has organizations; the sample was not seeded`);
}

/** `statements` run in order on `home`'s embedded database, as `marquee db sql` runs each, but for the command's audit trail entries. */
export async function sqlIn(home: string, ...statements: string[]): Promise<void> {
  await onEmbeddedPlatform(home, async (db) => {
    for (const statement of statements) await db.query(statement);
  });
}
