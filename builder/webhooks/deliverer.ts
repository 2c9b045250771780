// The webhook deliverer of a builder (and of start): takes due deliveries from the webhook store,
// a few at a time, sends each (delivery.ts), logs the attempt and decides what comes next — done,
// a retry on the policy's schedule, or failed after the last. It runs apart from building: a slow
// or hostile receiver holds one of its slots for at most the delivery timeout, never a build.
// Every builder runs one; the store hands each delivery to one of them at a time, and at most one
// delivery per endpoint is in flight, so a receiver that never answers holds one slot. It looks for
// due deliveries every POLL_MS, and at once when this process queued some (wake).
import type { Dispatcher } from 'undici';
import { describeError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import { attemptDelivery, DELIVERY_TIMEOUT_MS, deliveryAgent } from './delivery.ts';
import { retryDelay, type WebhookPolicy } from './webhook-policy.ts';
import type { AttemptEnd, ClaimedDelivery, WebhookStore } from './webhook-store.ts';

/** What the deliverer reports as it goes (metrics). */
export interface DeliveryEvents {
  delivered(latencySeconds: number): void;
  retried(): void;
  failed(): void;
}

export interface DelivererOptions {
  store: WebhookStore;
  policy: WebhookPolicy;
  /** This builder's name (BUILDER_NAME): who holds a delivery. */
  builder: string;
  log: Log;
  events?: DeliveryEvents;
  /** How often to look for due deliveries when nothing wakes it. */
  pollMs?: number;
  /** Deliveries in flight at once. */
  concurrency?: number;
  /** For tests: the agent deliveries go through. */
  agent?: Dispatcher;
}

const POLL_MS = 500;
/** Each in flight waits on one receiver (one per endpoint at a time): a socket and at most 64 KiB each. */
const CONCURRENCY = 32;
/** A claim outlives the longest attempt; a builder that died holding one loses it after this. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;
/** Messages are pruned about this often. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export class WebhookDeliverer {
  private readonly agent: Dispatcher;
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private lastPrune = 0;
  private unreachableSince: number | undefined;

  constructor(private readonly options: DelivererOptions) {
    this.agent = options.agent ?? deliveryAgent(options.policy);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Look for due deliveries now: this process just queued some. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops taking deliveries and waits for those in flight (at most the delivery timeout). */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.all(this.inFlight);
    if (this.options.agent === undefined) await this.agent.close();
  }

  private async run(): Promise<void> {
    const concurrency = this.options.concurrency ?? CONCURRENCY;
    while (this.running) {
      this.woken = false;
      let claimed: ClaimedDelivery[] = [];
      const free = concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          claimed = await this.options.store.claim(this.options.builder, free, LEASE_MS);
          await this.pruneNowAndThen();
          this.reachable();
        } catch (error) {
          this.unreachable(error);
        }
      }
      for (const delivery of claimed) {
        const attempt = this.deliver(delivery).finally(() => {
          this.inFlight.delete(attempt);
          this.wake();
        });
        this.inFlight.add(attempt);
      }
      // A full batch may have more behind it; otherwise wait for a wake or the next poll.
      if (claimed.length === 0 || claimed.length < free) await this.pause();
    }
  }

  private pause(): Promise<void> {
    if (this.woken || !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.options.pollMs ?? POLL_MS);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        done();
      };
    });
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const { log, policy, store, builder, events } = this.options;
    const attempt = await attemptDelivery(this.agent, policy, delivery);
    const number = delivery.attempts + 1;
    const delay = attempt.delivered ? undefined : retryDelay(policy, number);
    const end: AttemptEnd = attempt.delivered ? { outcome: 'delivered' } : delay === undefined ? { outcome: 'failed' } : { outcome: 'retry', afterMs: delay };
    const fields = { endpointId: delivery.endpointId, messageId: delivery.messageId, type: delivery.type, attempt: number };
    try {
      const { disabled } = await store.finish(builder, delivery, attempt, end, policy.disableAfterMs);
      if (disabled) log.warn(`webhook endpoint ${delivery.endpointId} disabled: every attempt failed for ${policy.disableAfterMs / 3_600_000} h`, fields);
    } catch (error) {
      // Not recorded: the lease ends and the delivery is attempted again, which at-least-once allows.
      log.warn(`webhook message ${delivery.messageId} to endpoint ${delivery.endpointId}: the attempt could not be recorded: ${describeError(error)}`, fields);
      return;
    }
    if (end.outcome === 'delivered') {
      events?.delivered((Date.now() - Date.parse(delivery.queuedAt)) / 1000);
    } else if (end.outcome === 'retry') {
      events?.retried();
      log.warn(
        `webhook message ${delivery.messageId} to endpoint ${delivery.endpointId}, attempt ${number}: ${attempt.error}; retried in ${Math.round(end.afterMs / 1000)} s`,
        fields,
      );
    } else {
      events?.failed();
      log.warn(`webhook message ${delivery.messageId} to endpoint ${delivery.endpointId} failed after ${number} attempts, the last: ${attempt.error}`, fields);
    }
  }

  private async pruneNowAndThen(): Promise<void> {
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    await this.options.store.prune();
  }

  /** The database is down: said once per outage, not at every poll. */
  private unreachable(error: unknown): void {
    if (this.unreachableSince !== undefined) return;
    this.unreachableSince = Date.now();
    this.options.log.warn(`webhook deliveries wait: the database did not answer (${describeError(error)}); retrying every ${(this.options.pollMs ?? POLL_MS) / 1000} s`);
  }

  private reachable(): void {
    if (this.unreachableSince === undefined) return;
    this.options.log.info(`webhook deliveries resume: the database answers again after ${Math.round((Date.now() - this.unreachableSince) / 1000)} s`);
    this.unreachableSince = undefined;
  }
}
