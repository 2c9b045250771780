// One process at a time on an embedded PGlite directory. PGlite is a single-session database with
// no locking of its own: two processes writing one data directory corrupt it (say `marquee start`
// running and `marquee build` typed in another terminal). The owner's pid goes into a lock file
// created exclusively; a lock whose process is gone (killed, crashed) is taken over.
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { OperatorError } from '../../snapshot/errors.ts';

export class EmbeddedDatabaseBusyError extends OperatorError {
  override name = 'EmbeddedDatabaseBusyError';
}

export async function lockEmbeddedDatabase(dataDir: string): Promise<() => Promise<void>> {
  const path = join(dataDir, 'marquee.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
      throw new EmbeddedDatabaseBusyError(
        `the embedded database ${dataDir} is in use by process ${owner}; stop that process, or set DATABASE_URL to a PostgreSQL server to run several processes`,
      );
    }
    await rm(path, { force: true }); // left by a process that is gone
  }
  throw new EmbeddedDatabaseBusyError(`could not lock the embedded database ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else — still alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
