// A builder's usage intake (docs/design.md "Usage per key"): every couple of seconds it takes the
// batches waiting in the shared place (usage-spool.ts), adds their counts to the hourly rows in one
// transaction each round (usage-store.ts, exactly once by batch id), and only then marks them
// counted, which lets their gateways forget them. Hourly, it prunes what is older than
// USAGE_RETENTION_DAYS. Every builder runs one; two taking the same batch count it once.
import { describeError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import { PeriodicRounds } from '../../runtime/periodic-rounds.ts';
import type { SqlClient } from '../database/sql.ts';
import { decodeBatch, HOUR_MS, type UsageBatch } from './usage-batch.ts';
import type { UsageInbox } from './usage-spool.ts';
import { countBatches, pruneUsage } from './usage-store.ts';

/** Batches per transaction; a round takes at most ROUND_PAGES of them, then yields to the next tick. */
const PAGE = 100;
const ROUND_PAGES = 50;

export interface UsageIntakeOptions {
  log: Log;
  /** USAGE_RETENTION_DAYS: counts older than this many days are pruned. */
  retentionDays: number;
  /** Between two rounds; default 2 s. */
  intervalMs?: number;
  /** Milliseconds since the epoch; injected so tests control time. */
  clock?: () => number;
  /** What the shared place is, for a warning that it failed: its name ("Redis") and the `backend` field's value ("redis"). */
  place?: { name: string; backend: string };
}

export interface IntakeRound {
  /** Batches whose counts were added. */
  added: number;
  /** Batches counted before, handed over again. */
  repeated: number;
  /** Payloads that are no batch, set aside (logged) so they do not come back every round. */
  unreadable: number;
}

export class UsageIntake {
  private readonly log: Log;
  private readonly clock: () => number;
  private readonly rounds: PeriodicRounds<IntakeRound | undefined>;
  private failing = false;
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: SqlClient,
    private readonly inbox: UsageInbox,
    private readonly options: UsageIntakeOptions,
  ) {
    this.log = options.log;
    this.clock = options.clock ?? Date.now;
    this.rounds = new PeriodicRounds(() => this.roundOnce(), options.intervalMs ?? 2_000);
  }

  /** A round now and then every interval, until `stop`. */
  start(): void {
    this.rounds.start();
  }

  /** One round, after any in progress; a failure is logged once per outage and the batches wait for the next. */
  round(): Promise<IntakeRound | undefined> {
    return this.rounds.now();
  }

  /** Stops the rounds, after one last (what gateways moved while the builder stops is not left for an hour). */
  async stop(): Promise<void> {
    await this.rounds.stop();
    await this.rounds.now();
  }

  private async roundOnce(): Promise<IntakeRound | undefined> {
    // Which backend the round is using, so that a failure's warning names the one that failed.
    let using: 'place' | 'database' = 'place';
    try {
      const total: IntakeRound = { added: 0, repeated: 0, unreadable: 0 };
      for (let page = 0; page < ROUND_PAGES; page++) {
        using = 'place';
        const waiting = await this.inbox.waiting(PAGE);
        const batches: UsageBatch[] = [];
        for (const { id, payload } of waiting) {
          try {
            batches.push(decodeBatch(payload));
          } catch (error) {
            total.unreadable++;
            this.log.error('usage intake: a waiting batch is unreadable and is set aside', { batch: id, err: error });
          }
        }
        using = 'database';
        const counted = await countBatches(this.db, batches);
        using = 'place';
        await this.inbox.markCounted(waiting.map((batch) => batch.id));
        total.added += counted.added;
        total.repeated += counted.repeated;
        if (waiting.length < PAGE) break;
      }
      using = 'database';
      await this.pruneHourly();
      if (this.failing) this.log.info('usage intake: counting again');
      this.failing = false;
      return total;
    } catch (error) {
      if (!this.failing) this.warnOfFailure(using, error);
      this.failing = true;
      return undefined;
    }
  }

  /** Once per outage, one line naming the backend that failed and why. */
  private warnOfFailure(failed: 'place' | 'database', error: unknown): void {
    const place = this.options.place ?? { name: 'the shared place', backend: 'shared place' };
    const backend = failed === 'database' ? 'the platform database' : place.name;
    this.log.warn(`usage intake: cannot count usage: ${backend} failed (${describeError(error)}); the batches wait in ${place.name} and are counted once it answers again`, {
      backend: failed === 'database' ? 'database' : place.backend,
    });
  }

  private async pruneHourly(): Promise<void> {
    const now = this.clock();
    if (now - this.prunedAt < HOUR_MS) return;
    await pruneUsage(this.db, new Date(now - this.options.retentionDays * 24 * HOUR_MS), new Date(now));
    this.prunedAt = now;
  }
}
