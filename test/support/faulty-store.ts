// A store that "crashes" the writer: the (n+1)-th write (put or putIfVersion) throws before
// touching the inner store, so every write before it happened and none after. Simulates a builder
// killed between writes.
import type { SnapshotStore, Version, VersionedBytes } from '../../snapshot/store.ts';

export class SimulatedCrash extends Error {
  override name = 'SimulatedCrash';
}

export class CrashingStore implements SnapshotStore {
  readonly description: string;
  puts = 0;

  constructor(
    private readonly inner: SnapshotStore,
    private readonly putsBeforeCrash: number,
  ) {
    this.description = `crashing ${inner.description}`;
  }

  get(key: string): Promise<Buffer | undefined> {
    return this.inner.get(key);
  }
  getIfChanged(key: string, version: Version | undefined): Promise<VersionedBytes | 'unchanged' | undefined> {
    return this.inner.getIfChanged(key, version);
  }
  has(key: string): Promise<boolean> {
    return this.inner.has(key);
  }
  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
  modifiedAt(key: string): Promise<Date | undefined> {
    return this.inner.modifiedAt(key);
  }
  sweepInterrupted(before: Date): Promise<number> {
    return this.inner.sweepInterrupted(before);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    this.countWrite(key);
    await this.inner.put(key, bytes);
  }

  /** A conditional write is a write like any other: the crash may come before it. */
  async putIfVersion(key: string, bytes: Uint8Array, expected: Version | null): Promise<'written' | 'conflict'> {
    this.countWrite(key);
    return this.inner.putIfVersion(key, bytes, expected);
  }

  private countWrite(key: string): void {
    if (this.puts >= this.putsBeforeCrash) throw new SimulatedCrash(`crashed before write #${this.puts + 1} (${key})`);
    this.puts++;
  }
}
