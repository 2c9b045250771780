// The object-storage interface both sides use. Backends: a directory (default), memory (tests),
// S3 (production). Keys are '/'-separated relative paths from snapshot/layout.ts (see
// assertStoreKey). Every backend passes the contract suite in test/contracts/snapshot-store.ts;
// which one a process uses is chosen in one place, snapshot/stores/store-backends.ts.
import type { Log } from '../runtime/log.ts';

export type Version = string;

export interface VersionedBytes {
  bytes: Buffer;
  /** Opaque; changes whenever the bytes under the key are replaced. */
  version: Version;
}

/**
 * The reads a gateway makes, and all it may make: a gateway never writes. Every SnapshotStore is
 * one; the CDN reader (SNAPSHOT_CDN_URL) is one that fetches immutable keys over HTTP.
 */
export interface SnapshotSource {
  /** For messages: "directory /srv/snapshots", "s3://bucket/prefix". */
  readonly description: string;
  get(key: string): Promise<Buffer | undefined>;
  /** A conditional read for mutable keys (pointers): 'unchanged' when `version` is current. */
  getIfChanged(key: string, version: Version | undefined): Promise<VersionedBytes | 'unchanged' | undefined>;
  has(key: string): Promise<boolean>;
  /**
   * Rejects when the store itself is not there (a directory that does not exist): every key would
   * read as absent, which is a setup to fix, not an empty store. Backends where a missing store
   * already makes every call fail (a missing S3 bucket) need not implement it.
   */
  assertExists?(): Promise<void>;
}

export interface SnapshotStore extends SnapshotSource {
  /** Atomic: a reader sees the old bytes or the new ones, never a part. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /**
   * A compare-and-swap for the one key that is replaced (the pointer): writes `bytes` only when
   * the object under `key` is still at `expected` (a version getIfChanged returned), or when there
   * is none and `expected` is null; otherwise writes nothing and answers 'conflict'. Two builders
   * of one organization cannot then overwrite each other's publish without knowing. Atomic
   * against every other putIfVersion of the key: of writers racing with one expectation, exactly
   * one is 'written'. Not ordered against a plain put of the same key, which nothing does.
   */
  putIfVersion(key: string, bytes: Uint8Array, expected: Version | null): Promise<'written' | 'conflict'>;
  /**
   * Every key below `prefix`, in lexicographic order. The prefix is a plain string prefix, as in
   * S3: `orgs/a` also lists `orgs/ab/…`; end it with '/' to list one folder.
   */
  list(prefix: string): Promise<string[]>;
  /** Nothing happens when there is no object under `key`. */
  delete(key: string): Promise<void>;
  /** When the bytes under `key` were last written; undefined when there are none. */
  modifiedAt(key: string): Promise<Date | undefined>;
  /**
   * Removes leftovers of writes interrupted before they completed (a crashed builder), older than
   * `before`; returns how many. Never touches a complete object.
   */
  sweepInterrupted(before: Date): Promise<number>;
  /**
   * Makes the store ready for a builder to publish into, once at its start (a directory is
   * created), and reports through `log` what the operator should know of it (an S3-compatible
   * server that ignores conditional writes). Rejects, naming SNAPSHOT_STORE, when it cannot be.
   */
  prepare?(log: Log): Promise<void>;
}

/** A parsed SNAPSHOT_STORE: what to open, and what the rest of the product may ask of it without opening it. */
export interface StoreLocation {
  /** The backend's name: 'directory', 's3'. */
  readonly backend: string;
  /** For messages and logs: the directory's path, or s3://bucket/prefix. */
  readonly description: string;
  /**
   * The key prefix the store's objects sit under as an HTTP cache in front of it sees them (a CDN
   * distribution's path prefix); undefined for a store no CDN can front (CLOUDFRONT_DISTRIBUTION_ID).
   */
  readonly cdnPrefix?: string | undefined;
  /** What the backend read from its variables (bucket, prefix, endpoint; a path), as plain data. */
  readonly settings: Readonly<Record<string, string | undefined>>;
  /** A client for the store; no I/O until it is used. */
  open(): SnapshotStore;
}

/** What a backend may read besides SNAPSHOT_STORE itself. */
export interface StoreSettingContext {
  /** The process's environment: a backend reads only the variables it declares. */
  env: Readonly<Record<string, string | undefined>>;
  /** Relative directory paths are resolved from here. */
  cwd: string;
}

export interface StoreBackend {
  readonly name: string;
  /** How an operator writes it, for the message naming every form: "s3://bucket/prefix". */
  readonly form: string;
  /** The URL scheme that names it ("s3"); undefined for the backend that takes a plain path. */
  readonly scheme: string | undefined;
  /** Variables only this backend reads: one set while another backend is chosen is a mistake to name. */
  readonly variables: readonly string[];
  /** The location `setting` names, or every problem with it (each naming the variable at fault). */
  parse(setting: string, context: StoreSettingContext): StoreLocation | { problems: string[] };
}

/**
 * The last segment of a key may not end with this: backends may use such names for writes in
 * progress (snapshot/stores/directory.ts), which sweepInterrupted removes.
 */
export const IN_PROGRESS_SUFFIX = '.partial';

/**
 * The backend could not be reached or did not answer in time, after its own retries: nothing is
 * known about the key. The gateway answers 503 with Retry-After for what it does not already hold;
 * the builder fails the organization's build, which keeps its previous snapshot.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/** A key or prefix that no backend accepts; every method given one rejects with this. */
export class StoreKeyError extends Error {
  override name = 'StoreKeyError';
}

/**
 * A key is one or more '/'-separated segments, each non-empty and neither '.' nor '..' (so not
 * absolute, no '//', no trailing '/'), without NUL, and not ending in IN_PROGRESS_SUFFIX. A
 * prefix of other keys ('orgs/x' beside 'orgs/x/current.json') is a valid key with no object;
 * holding an object under it at the same time is not promised (a directory is not a file).
 */
export function assertStoreKey(key: string): void {
  const problem = segmentsProblem(key.split('/')) ?? (key.endsWith(IN_PROGRESS_SUFFIX) ? `ends in ${IN_PROGRESS_SUFFIX}, which is reserved` : undefined);
  if (problem !== undefined) throw new StoreKeyError(`store key ${JSON.stringify(key)} is not valid: ${problem}`);
}

/** A prefix is '' or the start of a key: every segment but the last is one a key could have. */
export function assertStorePrefix(prefix: string): void {
  const folders = prefix.split('/').slice(0, -1);
  const problem = prefix.includes('\0') ? 'contains NUL' : segmentsProblem(folders);
  if (problem !== undefined) throw new StoreKeyError(`store prefix ${JSON.stringify(prefix)} is not valid: ${problem}`);
}

function segmentsProblem(segments: string[]): string | undefined {
  for (const segment of segments) {
    if (segment === '') return 'empty segment (absolute, "//" or a trailing "/")';
    if (segment === '.' || segment === '..') return `"${segment}" segment`;
    if (segment.includes('\0')) return 'contains NUL';
  }
  return undefined;
}
