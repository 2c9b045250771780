// The shared place for usage counts on one machine (usage-spool.ts): a directory under MARQUEE_HOME,
// one file per batch, named by its id and written atomically, so that an intake never reads a part
// of one. A batch is counted once its file is gone: the intake removes it only after the counts are
// committed. A file system does not lose files as a flushed Redis loses keys, so nothing is ever lost.
import { mkdir, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '../../runtime/files.ts';
import type { Settlement, UsageSpool, WaitingBatch } from './usage-spool.ts';

const SUFFIX = '.json';

/** Batch ids are `<gateway id>.<number>` of safe characters; anything else is no file name of ours. */
const SAFE_ID = /^[A-Za-z0-9._-]+$/;

export class FileUsageSpool implements UsageSpool {
  private made: Promise<unknown> | undefined;

  /** `directory`: MARQUEE_HOME/usage, made when first written to. */
  constructor(private readonly directory: string) {}

  async put(batch: WaitingBatch): Promise<void> {
    // Owner-only whatever the umask: batches name keys, their use and the origins refused for them.
    this.made ??= mkdir(this.directory, { recursive: true, mode: 0o700 });
    await this.made;
    // No fsync: what a power failure could lose is the last few seconds of counts, which the
    // documented loss bound covers; a flush per batch would not buy more than that.
    await writeFileAtomically(this.pathOf(batch.id), batch.payload, { fsync: false, mode: 0o600 });
  }

  async settle(ids: readonly string[]): Promise<Settlement> {
    const counted: string[] = [];
    for (const id of ids) {
      const present = await stat(this.pathOf(id)).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return false;
          throw error;
        },
      );
      if (!present) counted.push(id);
    }
    return { counted, lost: [] };
  }

  async waiting(limit: number): Promise<WaitingBatch[]> {
    const names = await readdir(this.directory).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
    const batches: WaitingBatch[] = [];
    for (const name of names) {
      if (batches.length === limit) break;
      if (!name.endsWith(SUFFIX)) continue; // a temporary file being written
      const id = name.slice(0, -SUFFIX.length);
      const payload = await readFile(join(this.directory, name), 'utf8').catch((error: NodeJS.ErrnoException) => {
        // Another intake counted it meanwhile.
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (payload !== undefined) batches.push({ id, payload });
    }
    return batches;
  }

  async countWaiting(): Promise<number> {
    const names = await readdir(this.directory).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
    return names.filter((name) => name.endsWith(SUFFIX)).length;
  }

  async markCounted(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      await unlink(this.pathOf(id)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
  }

  private pathOf(id: string): string {
    if (!SAFE_ID.test(id)) throw new Error(`not a usage batch id: ${JSON.stringify(id)}`);
    return join(this.directory, id + SUFFIX);
  }
}
