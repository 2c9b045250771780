// The object-storage interface both sides use. Backends: a directory (default), memory (tests),
// S3 (production). Keys are '/'-separated relative paths from snapshot/layout.ts.

export type Version = string;

export interface VersionedBytes {
  bytes: Buffer;
  /** Opaque; changes whenever the bytes under the key are replaced. */
  version: Version;
}

export interface SnapshotStore {
  /** For messages: "directory /srv/snapshots", "s3://bucket/prefix". */
  readonly description: string;
  get(key: string): Promise<Buffer | undefined>;
  /** A conditional read for mutable keys (pointers): 'unchanged' when `version` is current. */
  getIfChanged(key: string, version: Version | undefined): Promise<VersionedBytes | 'unchanged' | undefined>;
  has(key: string): Promise<boolean>;
  /** Atomic: a reader sees the old bytes or the new ones, never a part. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** Every key below `prefix`, in lexicographic order. */
  list(prefix: string): Promise<string[]>;
  delete(key: string): Promise<void>;
  /** When the bytes under `key` were last written; undefined when there are none. */
  modifiedAt(key: string): Promise<Date | undefined>;
  /**
   * Removes leftovers of writes interrupted before they completed (a crashed builder), older than
   * `before`; returns how many. Never touches a complete object.
   */
  sweepInterrupted(before: Date): Promise<number>;
}
