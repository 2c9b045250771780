// The shared place between the gateways that count usage and the builders that keep it (docs/design.md
// "Usage per key"): Redis when REDIS_URL is set, a directory under MARQUEE_HOME otherwise
// (usage-spool-backends.ts). A gateway puts each batch and holds it until the place says it was
// counted; a builder's intake takes waiting batches, counts them durably, then marks them counted.
// Every operation is idempotent by the batch's id, which is what lets each side retry freely.

/** A batch waiting in the shared place: its id and its encoded counts (usage-batch.ts). */
export interface WaitingBatch {
  readonly id: string;
  readonly payload: string;
}

/** What the gateway's side of the place says of batches it put earlier. */
export interface Settlement {
  /** Counted by an intake: the gateway can forget them. */
  readonly counted: readonly string[];
  /** Neither waiting nor counted (the place lost them: a flushed Redis): to put again. */
  readonly lost: readonly string[];
}

/** The gateway's side. */
export interface UsageOutbox {
  /** Hands a batch over; putting the same id again (a retry after a lost answer) is harmless. */
  put(batch: WaitingBatch): Promise<void>;
  /** Of batches put earlier, which were counted and which were lost; the others are still waiting. */
  settle(ids: readonly string[]): Promise<Settlement>;
}

/** The intake's side. */
export interface UsageInbox {
  /** Up to `limit` waiting batches, in no particular order. */
  waiting(limit: number): Promise<WaitingBatch[]>;
  /** How many batches wait (the builders' /metrics). */
  countWaiting(): Promise<number>;
  /** These batches are counted durably: no longer waiting, and their gateways may forget them. */
  markCounted(ids: readonly string[]): Promise<void>;
}

export type UsageSpool = UsageOutbox & UsageInbox;
