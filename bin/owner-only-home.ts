// MARQUEE_HOME made owner-only by the commands that keep state in it (runtime/owner-only.ts):
// `start`, `serve`, `builder`, and every command that opens the embedded database. One log line
// when the home was open to other accounts, naming it and how many entries were changed; none when
// it was not, which is every start after the first on a home made by this release.
import { join } from 'node:path';
import type { Log } from '../runtime/log.ts';
import { type Tightening, takeOthersBitsOff } from '../runtime/owner-only.ts';

/** Before a command opens anything in `home`: a home with group or other bits is tightened, and the log says so. */
export function tightenHome(home: string, log: Log | (() => Promise<Log>)): Promise<void> {
  return report(home, takeOthersBitsOff(home), log, { changed: true });
}

/**
 * After the embedded database opened: PGlite chmods some files it writes whatever the umask (the
 * data directory it unpacks on first use readable and writable by all, its relation cache files
 * readable by all, at every open). They sit in 0700 directories, so no other account could reach them; this makes the files
 * themselves 0600 too, without a word — only a file it could not change is logged.
 */
export function tightenEmbeddedDatabase(home: string, log: Log | (() => Promise<Log>)): Promise<void> {
  return report(home, takeOthersBitsOff(join(home, 'platform')), log, { changed: false });
}

async function report(home: string, walk: Tightening, log: Log | (() => Promise<Log>), { changed }: { changed: boolean }): Promise<void> {
  const tightened = changed && walk.changed > 0;
  if (!tightened && walk.refused.count === 0) return;
  const to = typeof log === 'function' ? await log() : log;
  const ms = Math.round(walk.ms);
  const fields = { home, entries: walk.entries, changed: walk.changed, refused: walk.refused.count, ms };
  const parts = [
    ...(tightened ? [`${walk.changed} of ${walk.entries} entries had group or other permissions; made owner-only (directories 0700, files 0600) in ${ms} ms`] : []),
    ...(walk.refused.count > 0
      ? [`${walk.refused.count} could not be changed (${walk.refused.reason} at ${walk.refused.first}): another account owns them; chown them to the account that runs Marquee`]
      : []),
  ];
  to.warn(`MARQUEE_HOME=${home}: ${parts.join('; ')}`, fields);
}
