// Gateways' leases on the key file (docs/design.md "Keys"): how "from the next request on" holds
// across processes without a system call per request.
//
// A gateway reading the key file holds a lease: a small file in `<keys.json>.readers/` saying up to
// which generation of the key file it has loaded (`seen`) and until when it may answer from memory
// (`leaseUntil`). It renews it every RENEW_MS, and at once when the key file's directory reports a
// change. While its lease holds, a lookup is a map read and a clock read; once it has lapsed (a
// stalled event loop, a failed renewal) every lookup checks the file again, as if there were no
// lease. A writer (the CLI, the admin API) that changed the file returns only once every reader has
// seen that generation or has let its lease lapse, so a request sent after `keys revoke` returned
// is refused by every gateway.
//
// Why it holds: a renewal writes its lease file first and only then checks the key file, and its
// memory trusts the loaded keys no longer than the lease it wrote. A writer that finds a lease
// lapsed knows that reader's memory has lapsed too; any renewal that completes after that checks a
// key file that already has the change.
import { randomBytes } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomically } from '../../runtime/files.ts';

/** How long a lease lets a reader answer from memory; also the longest a writer waits for a stalled reader. */
export const LEASE_MS = 1_000;
/** Between two renewals: four per lease, so one late timer does not let it lapse. */
const RENEW_MS = 250;
/** Wall clocks of two processes are one clock here; this covers reading it at slightly different moments. */
const CLOCK_MARGIN_MS = 50;
/** A lease file left by a reader that died is removed by the next writer once it is this old. */
const ABANDONED_MS = 60_000;

/** A reader's lease as its file holds it. */
interface LeaseRecord {
  readonly pid: number;
  /** The key file generation loaded when the lease was written. */
  readonly seen: number;
  /** Epoch ms; the reader trusts its memory no longer. */
  readonly leaseUntil: number;
}

export const readersDirectory = (keyFile: string): string => `${keyFile}.readers`;

/**
 * What a writer of `generation` still waits for: false once the reader has seen it, or once its
 * lease has lapsed (the reader then checks the file before answering again).
 */
function awaitsReader(lease: LeaseRecord, generation: number, nowMs: number): boolean {
  return lease.seen < generation && nowMs <= lease.leaseUntil + CLOCK_MARGIN_MS;
}

/** The reader side: held by the gateway's key file store. */
export class ReaderLease {
  private readonly file: string;
  private validUntil = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private watcher: FSWatcher | undefined;
  private renewing: Promise<void> | undefined;
  private again = false;
  private closed = false;

  /** `load` checks the key file (reloading it when it changed) and returns the generation loaded. */
  constructor(
    private readonly keyFile: string,
    private readonly load: () => number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.file = join(readersDirectory(keyFile), `${process.pid}-${randomBytes(4).toString('hex')}.json`);
  }

  /** Memory may answer: the lease this reader last wrote has not run out. */
  holds(): boolean {
    return performance.now() < this.validUntil;
  }

  /** Takes the first lease, then renews it until close. */
  async start(): Promise<void> {
    await mkdir(readersDirectory(this.keyFile), { recursive: true, mode: 0o700 });
    await this.renew();
    this.timer = setInterval(() => void this.renew(), RENEW_MS).unref();
    try {
      // A change is usually seen within a millisecond this way; the timer is what guarantees it.
      const name = basename(this.keyFile);
      this.watcher = watch(dirname(this.keyFile), { persistent: false }, (_event, changed) => {
        if (changed === name) void this.renew();
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      this.watcher = undefined;
    }
  }

  /** Renews now; a renewal asked for while one runs runs once more after it, so no change is missed. */
  renew(): Promise<void> {
    if (this.renewing !== undefined) {
      this.again = true;
      return this.renewing;
    }
    this.renewing = this.renewOnce().finally(() => {
      this.renewing = undefined;
      if (this.again && !this.closed) {
        this.again = false;
        void this.renew();
      }
    });
    return this.renewing;
  }

  private async renewOnce(): Promise<void> {
    let seen = this.load();
    // Written, then checked: each round's memory trusts what was loaded after its lease was on disk.
    for (let round = 0; round < 3 && !this.closed; round++) {
      const startedAt = performance.now();
      const lease: LeaseRecord = { pid: process.pid, seen, leaseUntil: Date.now() + LEASE_MS };
      try {
        await writeFileAtomically(this.file, JSON.stringify(lease), { fsync: false, mode: 0o600 });
        const loaded = this.load();
        this.validUntil = startedAt + LEASE_MS;
        if (loaded === seen) return;
        seen = loaded;
      } catch (error) {
        // Memory stops answering when the last good lease runs out; lookups then check the file.
        this.onError(error);
        return;
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.watcher?.close();
    await this.renewing;
    this.validUntil = -Infinity;
    await unlink(this.file).catch(() => undefined);
  }
}

/**
 * The writer side: resolves once every reader has seen `generation` or let its lease lapse; throws
 * naming the readers that did neither within a few leases (a reader renewing without reloading
 * would be a defect, not a stall).
 */
export async function awaitReaders(keyFile: string, generation: number, options: { timeoutMs?: number } = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 4 * LEASE_MS);
  const directory = readersDirectory(keyFile);
  for (let pause = 2; ; pause = Math.min(pause * 2, 25)) {
    const waiting = await waitingReaders(directory, generation);
    if (waiting.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(
        `key file ${keyFile}: changed, but gateway process${waiting.length > 1 ? 'es' : ''} ${waiting.map((lease) => lease.pid).join(', ')} did not apply it within ${options.timeoutMs ?? 4 * LEASE_MS} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

async function waitingReaders(directory: string, generation: number): Promise<LeaseRecord[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    // No directory, no lease: nobody could have written one there.
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return [];
    throw error;
  }
  const now = Date.now();
  const waiting: LeaseRecord[] = [];
  for (const name of names.filter((entry) => entry.endsWith('.json'))) {
    const lease = await readLease(join(directory, name));
    if (lease === undefined) continue;
    if (now - lease.leaseUntil > ABANDONED_MS) await unlink(join(directory, name)).catch(() => undefined);
    else if (awaitsReader(lease, generation, now)) waiting.push(lease);
  }
  return waiting;
}

/** A lease file, or undefined when it is gone (its reader closed) or not a lease. */
async function readLease(path: string): Promise<LeaseRecord | undefined> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as Partial<LeaseRecord>;
    if (typeof value.pid !== 'number' || typeof value.seen !== 'number' || typeof value.leaseUntil !== 'number') return undefined;
    return value as LeaseRecord;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof SyntaxError) return undefined;
    throw error;
  }
}
