// Moves a gateway's usage counts to the shared place (docs/design.md "Usage per key"): every 10 s,
// and at once when the tally is half full, what was counted becomes a batch with an id of its own
// (this gateway's id and the batch's number) and is put in the shared place (records/usage/). A
// batch is held until the place says an intake counted it: one whose put failed is put again, same
// id, at the next move (counting goes on meanwhile, within the tally's budget); one the place lost
// (a flushed Redis) is put again too. The intake counts each id once, so no retry counts twice, and
// what a gateway can lose is what it held when killed: at most one interval of counts.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Log } from '../../runtime/log.ts';
import { encodeBatch } from '../../records/usage/usage-batch.ts';
import type { UsageOutbox, WaitingBatch } from '../../records/usage/usage-spool.ts';
import type { UsageTally } from './usage-tally.ts';

/** The longest between two moves: the design's promise. */
export const MOVE_INTERVAL_MS = 10_000;
/** A batch put but still not counted after this is forgotten: it waits in the shared place (3 days in Redis). */
const HOLD_MS = 24 * 3_600_000;

export interface UsageMoverOptions {
  log: Log;
  /** Between two moves; default MOVE_INTERVAL_MS. */
  intervalMs?: number;
  /**
   * Bytes of batches held until counted; past it the oldest put are forgotten (they wait in the
   * shared place, and are lost only if it loses them too). Default the tally's own budget.
   */
  maxHeldBytes: number;
  /** Names this gateway's batches; default host, process and a random part. */
  gatewayId?: string;
  clock?: () => number;
}

interface HeldBatch {
  readonly batch: WaitingBatch;
  readonly putAt: number;
}

export class UsageMover {
  private readonly log: Log;
  private readonly gatewayId: string;
  private readonly maxHeldBytes: number;
  private readonly clock: () => number;
  private readonly timer: NodeJS.Timeout;
  private sequence = 0;
  /** A batch made but not yet put (its put failed): put again, first, at the next move. */
  private unput: WaitingBatch | undefined;
  /** Batches put and not yet known to be counted, oldest first. */
  private readonly held = new Map<string, HeldBatch>();
  private heldBytes = 0;
  private moving: Promise<void> = Promise.resolve();
  private failing = false;

  constructor(
    private readonly tally: UsageTally,
    private readonly outbox: UsageOutbox,
    options: UsageMoverOptions,
  ) {
    this.log = options.log;
    this.maxHeldBytes = options.maxHeldBytes;
    this.clock = options.clock ?? Date.now;
    this.gatewayId = options.gatewayId ?? defaultGatewayId();
    this.timer = setInterval(() => void this.move(), options.intervalMs ?? MOVE_INTERVAL_MS);
    // Moving counts is never a reason to keep a process alive.
    this.timer.unref();
  }

  /** Batches made and not yet known to be counted (for tests and metrics). */
  get pending(): number {
    return this.held.size + (this.unput === undefined ? 0 : 1);
  }

  /** One move, after any in progress; what fails waits for the next. */
  move(): Promise<void> {
    this.moving = this.moving.then(() => this.moveOnce());
    return this.moving;
  }

  /** Stops the timer and moves what is left, once; before the shared place is closed. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.move();
  }

  private async moveOnce(): Promise<void> {
    try {
      await this.settle();
      if (this.unput !== undefined) {
        await this.put(this.unput);
        this.unput = undefined;
      }
      const taken = this.tally.take();
      if (taken.counts.length > 0 || taken.origins.length > 0) {
        const id = `${this.gatewayId}.${++this.sequence}`;
        this.unput = { id, payload: encodeBatch({ id, ...taken }) };
        await this.put(this.unput);
        this.unput = undefined;
      }
      if (this.failing) this.log.info('usage counts reach the shared place again');
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.log.warn('usage counts cannot be moved to the shared place; they are held and moved once it answers', { err: error });
      this.failing = true;
    }
  }

  /** Forgets the batches counted, puts again those the place lost. */
  private async settle(): Promise<void> {
    if (this.held.size === 0) return;
    const { counted, lost } = await this.outbox.settle([...this.held.keys()]);
    for (const id of counted) this.forget(id);
    if (lost.length > 0) this.log.warn('the shared place lost usage batches not yet counted (Redis lost its data?); putting them again', { batches: lost.length });
    for (const id of lost) {
      const held = this.held.get(id);
      if (held !== undefined) await this.outbox.put(held.batch);
    }
    const now = this.clock();
    for (const [id, held] of this.held) if (now - held.putAt > HOLD_MS) this.forget(id);
  }

  private async put(batch: WaitingBatch): Promise<void> {
    await this.outbox.put(batch);
    this.held.set(batch.id, { batch, putAt: this.clock() });
    this.heldBytes += batch.payload.length;
    // Oldest first: the earliest batch put is the likeliest to have been counted already.
    for (const [id] of this.held) {
      if (this.heldBytes <= this.maxHeldBytes || id === batch.id) break;
      this.forget(id);
    }
  }

  private forget(id: string): void {
    const held = this.held.get(id);
    if (held === undefined) return;
    this.held.delete(id);
    this.heldBytes -= held.batch.payload.length;
  }
}

/** `<host>-<pid>-<random>`, in the characters a batch id may hold. */
function defaultGatewayId(): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9-]/g, '-')
      .slice(0, 40) || 'gateway';
  return `${host}-${process.pid}-${randomBytes(4).toString('hex')}`;
}
