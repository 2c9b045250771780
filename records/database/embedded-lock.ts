// One process at a time on an embedded PGlite directory. PGlite is a single-session database with
// no locking of its own: two processes writing one data directory corrupt it (say `marquee start`
// running and `marquee build` typed in another terminal). The owner's pid goes into a lock file
// created exclusively; a lock whose process is gone (killed, crashed) is taken over.
import { join } from 'node:path';
import { OperatorError } from '../../runtime/errors.ts';
import { acquireLockFile, LockFileBusyError } from '../../runtime/files.ts';

export class EmbeddedDatabaseBusyError extends OperatorError {
  override name = 'EmbeddedDatabaseBusyError';
}

export async function lockEmbeddedDatabase(dataDir: string): Promise<() => Promise<void>> {
  try {
    // Held for the owner's whole life, so only a gone owner frees it; nobody waits for it.
    return await acquireLockFile(join(dataDir, 'marquee.lock'), { takeOver: 'ownerGone' });
  } catch (error) {
    if (!(error instanceof LockFileBusyError)) throw error;
    throw new EmbeddedDatabaseBusyError(
      error.owner === undefined
        ? `could not lock the embedded database ${dataDir}`
        : `the embedded database ${dataDir} is in use by process ${error.owner}; stop that process, or set DATABASE_URL to a PostgreSQL server to run several processes`,
    );
  }
}
