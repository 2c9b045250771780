// Keeps Redis's copy of the keys (what gateways read) following their durable record in the
// database (docs/design.md "Keys outlive any cache"). Every builder runs one, each second and as
// soon as its Redis connection is back:
//
// - a copy with no `keys-synced` marker has lost its data (FLUSHALL, a restart without
//   persistence, a new empty instance) or was never filled: the keeper claims the refill, first
//   records in the database any key that only Redis knows (an existing deployment's keys, on the
//   first start of this release), then writes every record, and sets the marker to the change it
//   read up to — unless the marker went meanwhile, in which case the next tick starts over. The
//   claim is renewed after every batch and given back when the refill fails (the database away
//   mid-way): every key is refused while Redis is empty, so no keeper waits out a claim nobody
//   works on longer than a dead keeper's lapses;
// - otherwise it copies the records written after the marker's change (writes that could not reach
//   Redis when they were made: a revocation while Redis was down), and raises the marker;
// - it moves the last uses gateways reported into the durable record.
//
// A revoked or expired key is never brought back by a refill: the durable record is what is
// written, and a record in Redis is only ever replaced by a later change of it. The marker's number
// is also the gateways' mark that the copy is complete (a key missing beside it is 401, without it
// 503: access/redis-key-verdicts.ts). It goes with the data whenever Redis loses it whole, but not
// when Redis evicts some keys, so at its first sync and at each refill the keeper warns when Redis
// may evict records (an `allkeys-*` policy; records and marker never expire, so `volatile-*` spares them). Keepers on several
// builders do the same idempotent writes; the marker's claim keeps two from refilling at once.
import { randomUUID } from 'node:crypto';
import type { Log } from '../../runtime/log.ts';
import { PeriodicRounds } from '../../runtime/periodic-rounds.ts';
import type { RedisKeyStore } from './redis-key-store.ts';
import type { PostgresKeyStore } from './postgres-key-store.ts';

/** Records per database read while copying. */
const BATCH = 500;
/** A refill claim not renewed by then (its keeper died mid-way) is another keeper's to take. */
const RELOAD_CLAIM_SECONDS = 10;

export interface KeyKeeperOptions {
  log: Log;
  /** Between two syncs; default a second. */
  intervalMs?: number;
}

export interface SyncResult {
  /** 'refilled': the copy was empty and was filled; 'copied': later changes were copied; 'current': nothing to do; 'skipped': another keeper is refilling. */
  outcome: 'refilled' | 'copied' | 'current' | 'skipped';
  /** Records written to Redis. */
  records: number;
  /** Keys only Redis knew, now in the database. */
  adopted: number;
  /** Last uses moved into the database. */
  uses: number;
}

export class KeyKeeper {
  private readonly log: Log;
  private readonly rounds: PeriodicRounds<SyncResult | undefined>;
  private failing = false;
  /** Whether this Redis's eviction policy was looked at since the keeper started or last refilled it. */
  private policyChecked = false;

  constructor(
    private readonly durable: PostgresKeyStore,
    private readonly copy: RedisKeyStore,
    options: KeyKeeperOptions,
  ) {
    this.log = options.log;
    this.rounds = new PeriodicRounds(() => this.syncOnce(), options.intervalMs ?? 1_000);
  }

  /** Syncs now and then every interval, until `stop`. */
  start(): void {
    this.rounds.start();
  }

  /** One sync, after any in progress; failures are logged once per outage and retried at the next tick. */
  sync(): Promise<SyncResult | undefined> {
    return this.rounds.now();
  }

  async stop(): Promise<void> {
    await this.rounds.stop();
  }

  private async syncOnce(): Promise<SyncResult | undefined> {
    try {
      const state = await this.copy.syncState();
      if (state.state === 'empty') this.policyChecked = false;
      if (!this.policyChecked) await this.checkEvictionPolicy();
      const result =
        state.state === 'reloading'
          ? { outcome: 'skipped' as const, records: 0, adopted: 0 }
          : state.state === 'empty'
            ? await this.refill()
            : await this.copyChanges(state.change);
      const uses = await this.moveUses();
      if (this.failing) {
        const how = result.outcome === 'skipped' ? 'another keeper is refilling Redis' : 'the keys are in sync';
        this.log.info(`key keeper: Redis and the database answer again; ${how}`);
      }
      this.failing = false;
      return { ...result, uses };
    } catch (error) {
      if (!this.failing) this.log.warn('key keeper: cannot sync the keys between the database and Redis; trying again every second', { err: error });
      this.failing = true;
      return undefined;
    }
  }

  private async refill(): Promise<Omit<SyncResult, 'uses'>> {
    const token = randomUUID();
    if (!(await this.copy.beginReload(token, RELOAD_CLAIM_SECONDS))) return { outcome: 'skipped', records: 0, adopted: 0 };
    let adopted: number;
    let upTo: number;
    let records: number;
    try {
      adopted = await this.durable.adopt(await this.copy.list());
      upTo = await this.durable.latestChange();
      records = await this.copyRange(0, upTo, token);
    } catch (error) {
      // Best effort: a Redis that cannot take this either lets the claim lapse.
      await this.copy.abandonReload(token).catch(() => {});
      throw error;
    }
    if (!(await this.copy.finishReload(token, upTo))) {
      this.log.warn('key keeper: Redis lost its data again while being refilled; refilling again');
      return { outcome: 'skipped', records, adopted };
    }
    this.log.info(`key keeper: Redis had no keys; refilled it with ${records} from the database${adopted ? `, after recording ${adopted} that only Redis had` : ''}`, {
      records,
      adopted,
    });
    return { outcome: 'refilled', records, adopted };
  }

  private async copyChanges(synced: number): Promise<Omit<SyncResult, 'uses'>> {
    const upTo = await this.durable.latestChange();
    if (upTo <= synced) return { outcome: 'current', records: 0, adopted: 0 };
    const records = await this.copyRange(synced, upTo);
    await this.copy.advanceSynced(upTo);
    return { outcome: 'copied', records, adopted: 0 };
  }

  /**
   * Writes every record whose latest change is in (after, upTo]; answers how many were written. A
   * refill's `claim` is renewed after each batch; once it is gone the copying stops, and finishing
   * the refill is refused.
   */
  private async copyRange(after: number, upTo: number, claim?: string): Promise<number> {
    let written = 0;
    let from = after;
    for (;;) {
      const batch = (await this.durable.changedSince(from, BATCH)).filter((kept) => kept.change <= upTo);
      const results = await Promise.all(batch.map((kept) => this.copy.put(kept.record, kept.change)));
      written += results.filter(Boolean).length;
      if (batch.length < BATCH) return written;
      if (claim !== undefined && !(await this.copy.renewReload(claim, RELOAD_CLAIM_SECONDS))) return written;
      from = batch.at(-1)!.change;
    }
  }

  /** Warns when Redis may evict records: one evicted stays missing beside the copy's mark, and its key is answered 401. */
  private async checkEvictionPolicy(): Promise<void> {
    const policy = await this.copy.evictionPolicy();
    this.policyChecked = true;
    if (policy?.startsWith('allkeys-')) {
      this.log.warn(
        `key keeper: Redis may evict keys (maxmemory-policy ${policy}); a key it evicts is answered 401 until Redis loses its data whole; run Redis with maxmemory-policy noeviction`,
        { policy },
      );
    }
  }

  /** Moves the last uses gateways noted in Redis into the database; given back to Redis if that fails. */
  private async moveUses(): Promise<number> {
    const uses = await this.copy.takeUses();
    if (uses.size === 0) return 0;
    try {
      await this.durable.recordUse(new Map([...uses].map(([id, at]) => [id, new Date(at)])));
    } catch (error) {
      await this.copy.returnUses(uses);
      throw error;
    }
    return uses.size;
  }
}
