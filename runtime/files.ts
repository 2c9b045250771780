// Files that several processes share on one machine: replaced atomically, and changed under a
// lock file. Used by the snapshot directory (snapshot/stores/directory.ts), the key file
// (records/keys/file-store.ts), the embedded database (records/database/embedded-lock.ts),
// start's demo key (bin/platform-setup.ts) and its admin token (bin/processes.ts).
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat, unlink } from 'node:fs/promises';

export interface AtomicWriteOptions {
  /**
   * Flush the bytes to the disk before the rename. Without it a reader (or a crashed process)
   * still sees the old file or the new one, never a part; but after a power failure or an OS
   * crash the new file may be missing or empty, because the rename can reach the disk before the
   * data does. Ask for it where that would be wrong rather than merely old; it costs one flush.
   */
  fsync: boolean;
  /**
   * Mode of the file. The default is open(2)'s, read and write for all less the umask, which the CLI
   * sets to 077 (bin/umask.ts): owner-only, unless the directory carries a default ACL, which
   * replaces the umask — how an operator shares a directory snapshot store with another account on
   * purpose (docs/operation.md). Give 0o600 for anything never to be shared, whatever the directory says.
   */
  mode?: number;
  /** Suffix of the temporary file written beside `path` (default `.tmp`). */
  temporarySuffix?: string;
}

/** Writes `path` through a temporary file beside it, renamed into place; the temporary file never outlives a failure. */
export async function writeFileAtomically(path: string, bytes: Uint8Array | string, options: AtomicWriteOptions): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}${options.temporarySuffix ?? '.tmp'}`;
  // Undefined: Node's default mode, which the umask or a default ACL narrows.
  const handle = await open(temporary, 'wx', options.mode);
  try {
    try {
      await handle.writeFile(bytes);
      if (options.fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

export interface LockFileOptions {
  /** How long to wait for a lock someone else holds before giving up (ms); default 0: at once. */
  waitMs?: number;
  /**
   * When a lock someone else holds was left behind by a crash and may be taken over:
   * `ownerGone`: the process named in it no longer runs (the lock is held for a process's whole
   * life, so its age says nothing); `{ olderThanMs }`: it is older than any holder keeps it.
   */
  takeOver: 'ownerGone' | { olderThanMs: number };
  /** Mode of the lock file (default 0o600). */
  mode?: number;
}

/** The lock is held by someone else (`owner`: their process id, when the lock names one). */
export class LockFileBusyError extends Error {
  override name = 'LockFileBusyError';
  constructor(
    readonly path: string,
    readonly owner: number | undefined,
  ) {
    super(`${path} is locked${owner === undefined ? '' : ` by process ${owner}`}`);
  }
}

/**
 * Takes the lock `path`: a file created exclusively (O_EXCL), holding this process's id. Resolves
 * to the function that releases it; rejects with LockFileBusyError when someone else holds it
 * past `waitMs`.
 */
export async function acquireLockFile(path: string, options: LockFileOptions): Promise<() => Promise<void>> {
  const deadline = Date.now() + (options.waitMs ?? 0);
  // Locks are held for milliseconds (one write) or for a whole process: short waits, jittered so
  // waiters do not move in step.
  for (let wait = 2; ; wait = Math.min(wait * 2, 20)) {
    try {
      const handle = await open(path, 'wx', options.mode ?? 0o600);
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = await inspect(path);
    if (held === undefined) continue; // released meanwhile
    if (isAbandoned(held, options.takeOver)) {
      await removeIfUnchanged(path, held);
      continue;
    }
    if (Date.now() >= deadline) throw new LockFileBusyError(path, held.owner);
    await new Promise((resolve) => setTimeout(resolve, wait / 2 + Math.random() * wait));
  }
}

/** A lock just created has no id in it for a moment; one still without after this was abandoned then. */
const UNNAMED_GRACE_MS = 5_000;

interface HeldLock {
  owner: number | undefined;
  ino: number;
  mtimeMs: number;
}

async function inspect(path: string): Promise<HeldLock | undefined> {
  try {
    const [info, text] = await Promise.all([stat(path), readFile(path, 'utf8')]);
    const owner = Number(text.trim());
    return { owner: Number.isInteger(owner) && owner > 0 ? owner : undefined, ino: info.ino, mtimeMs: info.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function isAbandoned(held: HeldLock, takeOver: LockFileOptions['takeOver']): boolean {
  const age = Date.now() - held.mtimeMs;
  if (takeOver !== 'ownerGone') return age > takeOver.olderThanMs;
  return held.owner === undefined ? age > UNNAMED_GRACE_MS : !isRunning(held.owner);
}

/**
 * Removes the abandoned lock unless it was replaced since it was inspected (another waiter took
 * it over and a new holder created it): the window in which two waiters could both take over one
 * abandoned lock is a stat, not the whole inspection.
 */
async function removeIfUnchanged(path: string, held: HeldLock): Promise<void> {
  const now = await stat(path).catch(() => undefined);
  if (now?.ino === held.ino && now.mtimeMs === held.mtimeMs) await rm(path, { force: true });
}

/** Whether process `pid` exists on this machine (ours or another user's). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else — still running.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
