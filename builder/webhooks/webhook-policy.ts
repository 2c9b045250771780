// How webhooks are delivered, from the configuration (bin/config.ts): where they may go, how
// retries are spaced and when a receiver that only fails is disabled.
import type { DestinationPolicy } from './destinations.ts';

export interface WebhookPolicy extends DestinationPolicy {
  /** The delay before each retry, in order; after the last, the message is marked failed. */
  retryDelaysMs: readonly number[];
  /** An endpoint whose every attempt failed for this long is disabled. */
  disableAfterMs: number;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** About 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h: a receiver down for a day still gets every message. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

export const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * HOUR;

/** The delay before retry number `attempt` (1 for the first retry), with ±10 % jitter so that retries of many messages do not arrive together; undefined after the last. */
export function retryDelay(policy: WebhookPolicy, attempt: number, random: () => number = Math.random): number | undefined {
  const delay = policy.retryDelaysMs[attempt - 1];
  return delay === undefined ? undefined : delay * (0.9 + 0.2 * random());
}
