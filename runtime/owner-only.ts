// Takes the group and other permission bits off everything under a directory (docs/reliability.md
// "What an attacker on the machine can do"): MARQUEE_HOME holds the platform database, keys,
// webhook secrets and the snapshot history, none of which another account on the machine may read.
// The CLI's umask (bin/umask.ts) makes what Marquee creates owner-only; this is for what it cannot
// reach: a home made by an earlier release or copied with other modes, and the files PGlite chmods
// itself whatever the umask (the data directory it unpacks on first use readable and writable by
// all, its relation cache files readable by all).
import { chmodSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Permission bits of the owner only: rwxr-xr-x becomes rwx------, rw-rw-rw- becomes rw-------. */
const OWNER_BITS = 0o700;
const OTHERS_BITS = 0o077;

export interface Tightening {
  /** The directory walked. */
  root: string;
  /** Directories and files looked at (symbolic links are neither followed nor counted). */
  entries: number;
  /** Of those, how many had group or other bits, now taken off. */
  changed: number;
  /** Entries whose mode could not be changed (another account's files): the first, and how many. */
  refused: { count: number; first?: string; reason?: string };
  /** How long the walk took. */
  ms: number;
}

/**
 * Walks `root` and every directory below it, taking group and other bits off each directory and
 * file. A directory is tightened before it is listed: once it is 0700 no other account can add an
 * entry to it, so none can swap a file for a symbolic link between the look and the chmod.
 * Symbolic links are skipped, never followed (the tree may point at a snapshot store elsewhere,
 * which is the operator's to share or not). `root` itself is followed if it is a link: it is what
 * the operator named. A missing `root` is an empty walk; an entry removed during the walk (a WAL
 * segment recycled, a temporary file renamed) is skipped.
 */
export function takeOthersBitsOff(root: string): Tightening {
  const started = performance.now();
  const result: Tightening = { root, entries: 0, changed: 0, refused: { count: 0 }, ms: 0 };
  const pending: string[] = [];
  // Never thrown: a home that cannot be tightened is reported, and the command goes on.
  const refuse = (path: string, error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    result.refused.count += 1;
    result.refused.first ??= path;
    result.refused.reason ??= code ?? String(error);
  };
  const visit = (path: string, mode: number, directory: boolean) => {
    result.entries += 1;
    if ((mode & OTHERS_BITS) !== 0) {
      try {
        chmodSync(path, mode & OWNER_BITS);
        result.changed += 1;
      } catch (error) {
        refuse(path, error);
        return;
      }
    }
    if (directory) pending.push(path);
  };
  const top = topOf(root);
  if (top === undefined) return { ...result, ms: performance.now() - started };
  visit(root, top.mode, top.isDirectory());
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (error) {
      refuse(dir, error);
      continue;
    }
    for (const name of names) {
      const path = join(dir, name);
      const info = lstatSync(path, { throwIfNoEntry: false });
      if (info === undefined || info.isSymbolicLink()) continue;
      visit(path, info.mode, info.isDirectory());
    }
  }
  return { ...result, ms: performance.now() - started };
}

/** `root` followed if a link; undefined when there is none (or a file where a directory of its path should be). */
function topOf(root: string) {
  try {
    return statSync(root, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}
