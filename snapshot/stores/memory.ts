// Snapshot store in memory, for tests and for builds into a throwaway target. It refuses the keys
// every backend refuses (assertStoreKey), so a test on memory catches what a directory would.
import { assertStoreKey, assertStorePrefix, type SnapshotStore, type Version, type VersionedBytes } from '../store.ts';

export class MemoryStore implements SnapshotStore {
  readonly description = 'memory';
  readonly entries = new Map<string, { bytes: Buffer; version: number; modifiedAt: Date }>();
  private nextVersion = 1;

  async get(key: string): Promise<Buffer | undefined> {
    assertStoreKey(key);
    return this.entries.get(key)?.bytes;
  }

  async getIfChanged(key: string, version: Version | undefined): Promise<VersionedBytes | 'unchanged' | undefined> {
    assertStoreKey(key);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (String(entry.version) === version) return 'unchanged';
    return { bytes: entry.bytes, version: String(entry.version) };
  }

  async has(key: string): Promise<boolean> {
    assertStoreKey(key);
    return this.entries.has(key);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    assertStoreKey(key);
    this.write(key, bytes);
  }

  /** The comparison and the write happen in one turn of the event loop: nothing runs between them. */
  async putIfVersion(key: string, bytes: Uint8Array, expected: Version | null): Promise<'written' | 'conflict'> {
    assertStoreKey(key);
    const current = this.entries.get(key);
    const matches = expected === null ? current === undefined : current !== undefined && String(current.version) === expected;
    if (!matches) return 'conflict';
    this.write(key, bytes);
    return 'written';
  }

  private write(key: string, bytes: Uint8Array): void {
    this.entries.set(key, { bytes: Buffer.from(bytes), version: this.nextVersion++, modifiedAt: new Date() });
  }

  async list(prefix: string): Promise<string[]> {
    assertStorePrefix(prefix);
    return [...this.entries.keys()].filter((key) => key.startsWith(prefix)).sort();
  }

  async delete(key: string): Promise<void> {
    assertStoreKey(key);
    this.entries.delete(key);
  }

  async modifiedAt(key: string): Promise<Date | undefined> {
    assertStoreKey(key);
    return this.entries.get(key)?.modifiedAt;
  }

  /** A write to memory cannot be interrupted half-way. */
  async sweepInterrupted(): Promise<number> {
    return 0;
  }
}
