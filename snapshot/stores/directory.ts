// Snapshot store in a local directory. Writes go to a temporary file beside the target and are
// renamed into place, so a reader (or a crash) never sees half an object.
import type { BigIntStats, Dirent } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describeError, OperatorError } from '../../runtime/errors.ts';
import { acquireLockFile, writeFileAtomically } from '../../runtime/files.ts';
import { isPointerKey } from '../layout.ts';
import { assertStoreKey, assertStorePrefix, IN_PROGRESS_SUFFIX, type SnapshotStore, type StoreBackend, type StoreLocation, type Version, type VersionedBytes } from '../store.ts';

/** SNAPSHOT_STORE as a directory path (relative to the working directory), the default backend. */
export const directoryBackend: StoreBackend = {
  name: 'directory',
  form: 'a directory path',
  scheme: undefined,
  variables: [],
  parse(setting, { cwd }): StoreLocation {
    const path = resolve(cwd, setting);
    return { backend: 'directory', description: path, settings: { path }, open: () => new DirectoryStore(path) };
  },
};

export const TEMP_SUFFIX = IN_PROGRESS_SUFFIX;

/**
 * The lock a conditional write holds beside its target. Its name ends in the in-progress suffix:
 * list never shows it, and the lock of a writer that died holding it is swept like its temporary
 * file (sweepInterrupted), while the next writer takes it over once it is LOCK_ABANDONED_MS old.
 */
export const LOCK_SUFFIX = `.lock${TEMP_SUFFIX}`;
/** A holder keeps the lock for one stat, one write and one rename: milliseconds. Older is a crash's. */
const LOCK_ABANDONED_MS = 5_000;
/** Long enough to outlast an abandoned lock and a queue of writers of the same key. */
const LOCK_WAIT_MS = 15_000;
/**
 * Directories remembered as made. A publish writes many objects into one organization's folders,
 * so remembering spares a mkdir per object; a run over the whole platform makes three per
 * organization, so the memory is bounded (forgotten all at once past this many, which costs one
 * mkdir each) rather than growing with the platform (0.5 KB per organization, measured).
 */
const MADE_DIRS_KEPT = 1_024;

export class DirectoryStore implements SnapshotStore {
  readonly description: string;
  /** Directories made, so a publish's objects do not each ask the filesystem; bounded by MADE_DIRS_KEPT. */
  private readonly madeDirs = new Set<string>();

  constructor(readonly root: string) {
    this.description = `directory ${root}`;
  }

  /** A builder creates the directory when missing, so a gateway beside it is ready before the first publish. */
  async prepare(): Promise<void> {
    await mkdir(this.root, { recursive: true }).catch((error: unknown) => {
      throw new OperatorError(`SNAPSHOT_STORE ${this.root} cannot be created: ${describeError(error)}`, { cause: error });
    });
  }

  private path(key: string): string {
    assertStoreKey(key);
    return join(this.root, key);
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.path(key));
    } catch (error) {
      if (isNotFound(error) || isDirectory(error)) return undefined;
      throw error;
    }
  }

  async getIfChanged(key: string, version: Version | undefined): Promise<VersionedBytes | 'unchanged' | undefined> {
    const path = this.path(key);
    // Read through one descriptor so that the version and the bytes belong to the same file,
    // even when a writer renames a new one into place meanwhile.
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    try {
      const info = await handle.stat({ bigint: true });
      // A folder of other keys holds no object.
      if (!info.isFile()) return undefined;
      const current = versionOf(info);
      if (current === version) return 'unchanged';
      return { bytes: await handle.readFile(), version: current };
    } finally {
      await handle.close();
    }
  }

  async has(key: string): Promise<boolean> {
    return (await this.fileStat(this.path(key))) !== undefined;
  }

  async assertExists(): Promise<void> {
    const info = await stat(this.root).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    if (info === undefined) throw new Error(`${this.description} does not exist`);
    if (!info.isDirectory()) throw new Error(`${this.description} is not a directory`);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const target = this.path(key);
    await this.makeDir(dirname(target));
    await this.write(key, target, bytes);
  }

  /**
   * Compare and rename under a lock file beside the target: every conditional writer of the key
   * takes the lock, so the version it compares is still current when its rename lands.
   */
  async putIfVersion(key: string, bytes: Uint8Array, expected: Version | null): Promise<'written' | 'conflict'> {
    const target = this.path(key);
    await this.makeDir(dirname(target));
    const release = await acquireLockFile(`${target}${LOCK_SUFFIX}`, { waitMs: LOCK_WAIT_MS, takeOver: { olderThanMs: LOCK_ABANDONED_MS } });
    try {
      if ((await this.currentVersion(target)) !== (expected ?? undefined)) return 'conflict';
      await this.write(key, target, bytes);
      return 'written';
    } finally {
      await release();
    }
  }

  private async makeDir(dir: string): Promise<void> {
    if (this.madeDirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    if (this.madeDirs.size >= MADE_DIRS_KEPT) this.madeDirs.clear();
    this.madeDirs.add(dir);
  }

  /** The version getIfChanged would report for the file at `path`; undefined when there is none. */
  private async currentVersion(path: string): Promise<Version | undefined> {
    try {
      const info = await stat(path, { bigint: true });
      return info.isFile() ? versionOf(info) : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async write(key: string, target: string, bytes: Uint8Array): Promise<void> {
    // Only pointers are synced. A pointer is replaced in place and carries the organization's
    // state: after a power failure it must not come back empty (the organization unreadable) or
    // roll a suspension or closure back. Objects and manifests are written once under new names,
    // tens of thousands per full build; one lost to a power failure is missing or empty, which
    // readers detect by its hash and never serve.
    await writeFileAtomically(target, bytes, { fsync: isPointerKey(key), temporarySuffix: TEMP_SUFFIX });
  }

  async list(prefix: string): Promise<string[]> {
    assertStorePrefix(prefix);
    const out: string[] = [];
    // A prefix names a directory ("orgs/x/objects/") or a path start inside one.
    const base = prefix.endsWith('/') ? prefix : dirname(prefix) === '.' ? '' : `${dirname(prefix)}/`;
    await this.walk(join(this.root, base), out);
    return out.filter((key) => key.startsWith(prefix) && !key.endsWith(TEMP_SUFFIX)).sort();
  }

  private async walk(dir: string, out: string[]): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await this.walk(full, out);
      else out.push(relative(this.root, full).split(sep).join('/'));
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await rm(this.path(key), { force: true });
    } catch (error) {
      // A folder of other keys is no object: nothing to delete, and its keys stay. Below a file
      // (ENOTDIR) there is nothing either.
      if (!isDirectory(error) && !isNotFound(error)) throw error;
    }
  }

  async modifiedAt(key: string): Promise<Date | undefined> {
    return (await this.fileStat(this.path(key)))?.mtime;
  }

  /** The stat of the file at `path`; undefined when there is none (or a folder). */
  private async fileStat(path: string) {
    try {
      const info = await stat(path);
      return info.isFile() ? info : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Temporary files of puts that never reached their rename (the writer died). */
  async sweepInterrupted(before: Date): Promise<number> {
    const files: string[] = [];
    await this.walk(this.root, files);
    let removed = 0;
    // Temporary names are not store keys: straight to the file system.
    for (const file of files.filter((name) => name.endsWith(TEMP_SUFFIX))) {
      const path = join(this.root, file);
      const written = (await this.fileStat(path))?.mtime;
      if (written && written < before) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }
}

/** A new file (a rename) has a new inode; a rewrite in place would change the time or the size. */
function versionOf(info: BigIntStats): Version {
  return `${info.ino}-${info.mtimeNs}-${info.size}`;
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** readFile and rm of a folder. */
function isDirectory(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EISDIR' || code === 'ERR_FS_EISDIR';
}
