// The embedded key store (docs/design.md "Keys"): one JSON file, changed by the CLI while the
// gateway runs.
//
// Readers check the file by its identity (inode, mtime, size), with one stat, and reload it only
// when that changed. A gateway holds a lease on it (key-file-leases.ts): while the lease holds, a
// lookup answers from memory with no system call, and a writer that changed the file returns only
// once every gateway has loaded the change or let its lease lapse, so a revocation applies from the
// next request on (spec §3, §5.4). Any other reader (the CLI, the admin API) stats on every read.
// Writers replace the file atomically (temp file + fsync + rename, mode 0600), so a reader sees the
// old file or the new one, never a part; renaming also gives the file a new inode, so even a
// same-size change within one mtime tick is noticed. Each write raises the file's `generation`, by
// which gateways acknowledge it. Read-modify-write is guarded by a lock file created with O_EXCL,
// so two concurrent `keys create` never lose one another's key, and a gateway's last-used report
// never loses a concurrent `keys update`. Only the SHA-256 of a secret is stored.
import { closeSync, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { acquireLockFile, LockFileBusyError, writeFileAtomically } from '../../runtime/files.ts';
import { ensureHome } from '../../runtime/shared-state.ts';
import { awaitReaders, ReaderLease } from './key-file-leases.ts';
import { changedRecord, revokedState, type KeyChanges, type KeyRecord, type KeyStore, mintKey, type NewKey } from './key-store.ts';

const FILE_FORMAT = 1;

interface KeyFile {
  format: typeof FILE_FORMAT;
  /** Raised by every write; absent in files written before gateways held leases (0). */
  generation?: number;
  keys: KeyRecord[];
}

export interface FileKeyStoreOptions {
  /** How long a writer waits for the lock before giving up (ms). */
  lockTimeoutMs?: number;
  /** A lock file older than this is left over by a crashed writer and is taken over (ms). */
  staleLockMs?: number;
  now?: () => Date;
  /** Told of a lease renewal that failed (lookups then check the file until the next one succeeds). */
  onLeaseError?: (error: unknown) => void;
}

export class FileKeyStore implements KeyStore {
  private readonly lockPath: string;
  private readonly lockTimeoutMs: number;
  private readonly staleLockMs: number;
  private readonly now: () => Date;
  private readonly onLeaseError: (error: unknown) => void;
  /** Identity of the file the maps were loaded from; undefined before the first load. */
  private loaded: FileIdentity | undefined;
  private bySecretHash = new Map<string, KeyRecord>();
  private records: KeyRecord[] = [];
  private generation = 0;
  /** A gateway's: while it holds, lookups answer from memory. */
  private lease: ReaderLease | undefined;

  constructor(
    readonly path: string,
    options: FileKeyStoreOptions = {},
  ) {
    this.lockPath = `${path}.lock`;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
    this.staleLockMs = options.staleLockMs ?? 30_000;
    this.now = options.now ?? (() => new Date());
    this.onLeaseError = options.onLeaseError ?? (() => {});
  }

  /**
   * Synchronous. With a lease held, memory is current: every write since it was taken has been
   * loaded, or its writer is still waiting. Without one, the stat is what proves "from the next
   * request on" (a file watch alone is delivered through the event loop, so a request read in the
   * same turn as the change could still pass a revoked key).
   */
  findBySecretHash(secretHash: string): KeyRecord | undefined {
    if (this.lease === undefined || !this.lease.holds()) this.refresh();
    return this.bySecretHash.get(secretHash);
  }

  /** For a gateway: takes a lease on the file and renews it until `close`. */
  async holdLease(): Promise<void> {
    if (this.lease !== undefined) return;
    const lease = new ReaderLease(
      this.path,
      () => {
        this.refresh();
        return this.generation;
      },
      this.onLeaseError,
    );
    await lease.start();
    this.lease = lease;
  }

  /** Gives the lease back; writers stop waiting for this reader at once. */
  async close(): Promise<void> {
    const lease = this.lease;
    this.lease = undefined;
    await lease?.close();
  }

  async list(organizationId?: string): Promise<KeyRecord[]> {
    this.refresh();
    return this.records.filter((record) => organizationId === undefined || record.organizationId === organizationId);
  }

  async findById(id: string): Promise<KeyRecord | undefined> {
    this.refresh();
    return this.records.find((record) => record.id === id);
  }

  async create(key: NewKey): Promise<{ record: KeyRecord; secret: string }> {
    const { record, secret } = mintKey(key, this.now());
    await this.rewrite({ awaitGateways: true }, (keys) => [...keys, record]);
    return { record, secret };
  }

  async update(id: string, changes: KeyChanges): Promise<KeyRecord | undefined> {
    let changed: KeyRecord | undefined;
    await this.rewrite({ awaitGateways: true }, (keys) => {
      const target = keys.find((record) => record.id === id);
      if (target === undefined) return undefined;
      const updated = changedRecord(target, changes);
      changed = updated;
      return keys.map((record) => (record === target ? updated : record));
    });
    return changed;
  }

  revoke(id: string, at: Date): Promise<boolean> {
    return this.applyRevocation(id, at, false);
  }

  scheduleRevocation(id: string, at: Date): Promise<boolean> {
    return this.applyRevocation(id, at, true);
  }

  /**
   * One rewrite under the lock for all the keys a gateway reports (at most once a minute), so a
   * concurrent `keys update` or `keys revoke` is never lost; none when nothing would change. It
   * does not wait for the gateways: no answer depends on a last use.
   */
  async recordUse(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    if (lastUsed.size === 0) return;
    await this.rewrite({ awaitGateways: false }, (keys) => {
      let changed = false;
      const next = keys.map((record) => {
        const at = lastUsed.get(record.id)?.toISOString();
        if (at === undefined || (record.lastUsedAt !== null && record.lastUsedAt >= at)) return record;
        changed = true;
        return { ...record, lastUsedAt: at };
      });
      return changed ? next : undefined;
    });
  }

  private async applyRevocation(id: string, at: Date, scheduled: boolean): Promise<boolean> {
    let found = false;
    await this.rewrite({ awaitGateways: true }, (keys) => {
      const target = keys.find((record) => record.id === id);
      found = target !== undefined;
      if (target === undefined) return undefined;
      const next = revokedState(target, at.toISOString(), scheduled);
      if (next.revokedAt === target.revokedAt && next.revocationScheduled === target.revocationScheduled) return undefined;
      return keys.map((record) => (record === target ? { ...record, ...next } : record));
    });
    return found;
  }

  /** Reloads the maps when the file changed since the last load; a stat when it did not. */
  private refresh(): void {
    const current = statSync(this.path, STAT_OPTIONS);
    if (this.loaded !== undefined && sameIdentity(this.loaded, current)) return;
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.load({ records: [], generation: 0 }, MISSING);
      return;
    }
    try {
      // Identity from the descriptor actually read, so a replacement between the stat above
      // and this read is picked up by the next lookup instead of being missed.
      const identity = fstatSync(fd);
      this.load(parseKeyFile(readFileSync(fd, 'utf8'), this.path), identity);
    } finally {
      closeSync(fd);
    }
  }

  private load({ records, generation }: LoadedFile, identity: FileIdentity): void {
    this.records = records;
    this.bySecretHash = new Map(records.map((record) => [record.secretHash, record]));
    this.generation = generation;
    this.loaded = identity;
  }

  /**
   * Read-modify-write of the whole file under the lock; `change` returns undefined for no change.
   * Then, outside the lock, waits until every gateway applies it when asked to.
   */
  private async rewrite(options: { awaitGateways: boolean }, change: (keys: KeyRecord[]) => KeyRecord[] | undefined): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const release = await this.lock();
    let written: number | undefined;
    try {
      this.refresh();
      const keys = change(this.records);
      if (keys === undefined) return;
      const content: KeyFile = { format: FILE_FORMAT, generation: this.generation + 1, keys };
      // Synced: a key created or revoked must still be so after a power failure, and a key file
      // lost to one would refuse every key of every organization.
      await writeFileAtomically(this.path, `${JSON.stringify(content, null, 2)}\n`, { fsync: true, mode: 0o600 });
      written = content.generation;
      this.refresh();
    } finally {
      await release();
    }
    if (options.awaitGateways && written !== undefined) await awaitReaders(this.path, written);
  }

  /**
   * Writes take a few ms (one fsync), so only a crashed writer leaves a lock as old as
   * staleLockMs: taking it over then cannot break into a live writer's read-modify-write.
   */
  private async lock(): Promise<() => Promise<void>> {
    try {
      return await acquireLockFile(this.lockPath, { waitMs: this.lockTimeoutMs, takeOver: { olderThanMs: this.staleLockMs } });
    } catch (error) {
      if (!(error instanceof LockFileBusyError)) throw error;
      throw new Error(`key store ${this.path}: could not take the lock ${this.lockPath} within ${this.lockTimeoutMs} ms`, { cause: error });
    }
  }
}

interface LoadedFile {
  records: KeyRecord[];
  generation: number;
}

function parseKeyFile(text: string, path: string): LoadedFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`key store ${path}: not valid JSON`, { cause: error });
  }
  if (!isKeyFile(parsed)) throw new Error(`key store ${path}: not a key file of format ${FILE_FORMAT}`);
  // Records written before expiry, prefixes and last use existed lack those fields.
  const records = parsed.keys.map((record) => ({
    ...record,
    expiresAt: record.expiresAt ?? null,
    revocationScheduled: record.revocationScheduled ?? false,
    prefix: record.prefix ?? null,
    lastUsedAt: record.lastUsedAt ?? null,
  }));
  return { records, generation: parsed.generation ?? 0 };
}

function isKeyFile(value: unknown): value is KeyFile {
  if (typeof value !== 'object' || value === null) return false;
  const { format, generation, keys } = value as Partial<Record<keyof KeyFile, unknown>>;
  return format === FILE_FORMAT && (generation === undefined || Number.isSafeInteger(generation)) && Array.isArray(keys) && keys.every(isKeyRecord);
}

function isKeyRecord(value: unknown): value is KeyRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<Record<keyof KeyRecord, unknown>>;
  return (
    typeof record.id === 'string' &&
    typeof record.organizationId === 'string' &&
    (record.label === null || typeof record.label === 'string') &&
    Array.isArray(record.origins) &&
    record.origins.every((origin) => typeof origin === 'string') &&
    typeof record.createdAt === 'string' &&
    (record.revokedAt === null || typeof record.revokedAt === 'string') &&
    isOptionalText(record.expiresAt) &&
    (record.revocationScheduled === undefined || typeof record.revocationScheduled === 'boolean') &&
    isOptionalText(record.prefix) &&
    isOptionalText(record.lastUsedAt) &&
    typeof record.secretHash === 'string'
  );
}

/** Absent (an older record), null or a string. */
function isOptionalText(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}

type FileIdentity = Pick<Stats, 'ino' | 'mtimeMs' | 'ctimeMs' | 'size'>;

// Numbers, not bigints: this stat runs on every lookup, and a BigIntStats is eighteen BigInts to
// allocate and collect each time. A writer replaces the file by renaming a new one into place, so
// its inode changes; the times (to well under a microsecond as doubles) and the size are there for
// an inode number reused at once. No exception per lookup while there is no file yet.
const STAT_OPTIONS = { bigint: false, throwIfNoEntry: false } as const;
const MISSING: FileIdentity = { ino: -1, mtimeMs: -1, ctimeMs: -1, size: -1 };

/** Same file, unchanged: (inode, mtime, ctime, size) as a stat sees them; `current` undefined = no file. */
function sameIdentity(loaded: FileIdentity, current: FileIdentity | undefined): boolean {
  const other = current ?? MISSING;
  return loaded.ino === other.ino && loaded.mtimeMs === other.mtimeMs && loaded.ctimeMs === other.ctimeMs && loaded.size === other.size;
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** The embedded key file, in MARQUEE_HOME, which is created when missing; one that cannot be is named at once. */
export async function openKeyFile(home: string, options: FileKeyStoreOptions = {}): Promise<FileKeyStore> {
  await ensureHome(home);
  return new FileKeyStore(join(home, 'keys.json'), options);
}
