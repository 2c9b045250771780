// The seam between access control and where keys and per-key counts live (docs/design.md "Keys",
// decisions table "rate limit window"): what a presented key is, and its request counted. The
// embedded verdicts ask a KeyStore and then a RateLimiter, synchronously when both answer
// synchronously; a networked backend (access/redis-key-verdicts.ts) does both in one round trip, shared by the
// requests of one turn of the event loop (access/verdict-batch.ts).
import { after, type Awaitable } from '../../runtime/awaitable.ts';
import type { KeyRecord, KeyStore } from '../../records/keys/key-store.ts';
import type { RateDecision, RateLimiter } from './rate-limit.ts';
import type { CacheName } from '../cache-budget.ts';
import type { CacheStats } from '../../runtime/lru.ts';

export interface KeyVerdict {
  /** The key's record, revoked or expired or not; undefined for a key the store does not know, or could not be asked about. */
  readonly record: KeyRecord | undefined;
  /**
   * The request's count, when the verdict counted it together with the lookup (only for a key
   * usable at that instant: key-validity.ts); otherwise `settle` counts it.
   */
  readonly rate?: RateDecision;
  /** Where the verdict counted the request, for `release` (the backend's own token). */
  readonly countedIn?: number;
  /** The store cannot be reached and nothing recent is known of this key: answer 503, retry after this many seconds. */
  readonly retryAfterSeconds?: number;
}

/** A verdict on a key that exists and is usable at the request's instant (neither revoked nor expired then). */
export type UsableVerdict = KeyVerdict & { readonly record: KeyRecord };

/**
 * Access control calls `verdict` once per well-formed key, then exactly one of `settle` (the
 * request passed the organization and origin checks) or `release` (it was refused with 403),
 * so that a refused request uses none of the key's quota however the backend counts.
 */
export interface KeyVerdicts {
  /** Requests per key in any window, announced in RateLimit-Policy. */
  readonly limit: number;
  readonly windowSeconds: number;
  verdict(secretHash: string, nowMs: number): Awaitable<KeyVerdict>;
  /** The request's count against the key's limit. */
  settle(verdict: UsableVerdict, nowMs: number): Awaitable<RateDecision>;
  /** Gives back the slot the verdict counted, if it counted one. Never fails: a lost give-back costs one slot. */
  release(verdict: UsableVerdict): Awaitable<void>;
  /** The bounded memories this backend keeps in the gateway's process, for /metrics. */
  readonly caches?: Partial<Record<CacheName, CacheStats>>;
  /** Keys answered from memory now because the shared store does not answer (/metrics); absent: never. */
  readonly answeredFromMemory?: number;
}

/** Any KeyStore and RateLimiter, asked one after the other: the lookup first, the count only for a request that passed. */
export class EmbeddedKeyVerdicts implements KeyVerdicts {
  readonly limit: number;
  readonly windowSeconds: number;

  constructor(
    private readonly keys: KeyStore,
    private readonly limiter: RateLimiter,
  ) {
    this.limit = limiter.limit;
    this.windowSeconds = limiter.windowSeconds;
  }

  verdict(secretHash: string): Awaitable<KeyVerdict> {
    return after(this.keys.findBySecretHash(secretHash), verdictOf);
  }

  settle(verdict: UsableVerdict, nowMs: number): Awaitable<RateDecision> {
    return this.limiter.consume(verdict.record.id, nowMs);
  }

  /** Nothing was counted before settle. */
  release(): void {}
}

const verdictOf = (record: KeyRecord | undefined): KeyVerdict => ({ record });
