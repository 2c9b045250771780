// Access control of the integration API (docs/design.md decisions table "order of checks"), per
// API request after the preflight (which needs no key: access/cors.ts): key 401 (429 for an
// address sending many invalid keys; 503 when the key store cannot be reached and the key was not
// seen recently) → organization state 403 → origin 403 → rate limit 429. Every refusal is thrown
// as an ApiError; gateway/problem.ts is the one place that writes the body. The hot path asks the
// key verdicts once (access/key-verdicts.ts: with Redis, lookup and count in one round trip) and
// does no other I/O; with the embedded store and in-process limiters it runs synchronously
// (runtime/awaitable.ts).
import type { Request } from 'express';
import { after, type Awaitable } from '../../runtime/awaitable.ts';
import { type ApiError, keyInvalid, organizationSuspended, originNotAllowed, rateLimited, serviceUnavailable } from '../errors.ts';
import { ParsedKeys } from './parsed-keys.ts';
import type { KeyRecord, KeyStore } from '../../records/keys/key-store.ts';
import { standingAt } from '../../records/keys/key-validity.ts';
import type { OrganizationState } from '../../snapshot/manifest.ts';
import { credentialOf } from './credentials.ts';
import { chargeTo } from '../observed-request.ts';
import { EmbeddedKeyVerdicts, type KeyVerdicts, type UsableVerdict } from './key-verdicts.ts';
import { OriginMatcherCache } from './origin-matchers.ts';
import { clientGroup } from './client-address.ts';
import type { RateLimiter } from './rate-limit.ts';

/** Milliseconds since the epoch; injected so tests control time. */
type Clock = () => number;

interface CommonAccessOptions {
  /**
   * Invalid credentials per client address (60 a minute): over it, further invalid ones get 429
   * instead of 401. Consulted only for invalid credentials, never for a valid key.
   */
  failures: RateLimiter;
  clock: Clock;
  /** From the organization's pointer; undefined while it has no snapshot yet (the routes decide). */
  organizationState: (organizationId: string) => Awaitable<OrganizationState | undefined>;
  /** Told of every accepted request's key (a Map set, no I/O): keys' last use (access/key-uses.ts). */
  uses?: KeyUses;
  /** Presented keys' parsed form, and keys' compiled origin lists: bounded caches the gateway sizes (default 1 MB each). */
  parsedKeys?: ParsedKeys;
  matchers?: OriginMatcherCache;
}

/** Where accepted requests' keys are noted; `note` must be cheap and never throw. */
export interface KeyUses {
  note(keyId: string, nowMs: number): void;
}

/**
 * The keys and the per-key counts: key verdicts (lookup and count together, e.g. Redis), or a
 * key store and a limiter of requests per key id, asked one after the other. The limit and
 * window are announced in RateLimit-Policy.
 */
export type AccessOptions = CommonAccessOptions & ({ verdicts: KeyVerdicts } | { keys: KeyStore; limiter: RateLimiter });

/** What a request that passed every access check may be answered with. */
export interface Grant {
  readonly key: KeyRecord;
  /** RateLimit-Policy and RateLimit (§8) as name/value pairs: on every response from here on. */
  readonly rateLimitHeaders: readonly string[];
}

export interface AccessControl {
  /**
   * The request's authenticated, unrevoked key of an organization that is not suspended or
   * closed, within its rate limit. Throws (or rejects with) the ApiError of the first check that
   * fails; a 429 carries the RateLimit headers itself.
   */
  check(req: Request): Awaitable<Grant>;
}

const MALFORMED = 'The API key is malformed.';
// One message for unknown, revoked and expired: a client learns nothing about which keys ever
// existed, and the spec's 401 row covers every key that is not (or no longer) valid.
const UNKNOWN = 'The API key is not recognised or has been revoked.';
const TOO_MANY_FAILURES = 'Too many requests with an invalid API key from this address; fix the key, then try again.';
const UNCHECKABLE = 'The API key cannot be checked at the moment; try again shortly.';

/**
 * The key (docs/api.md §5): 401 API_KEY_INVALID when missing, malformed, unknown, revoked (its
 * revocation instant has come), expired or ambiguous;
 * 403 ORGANIZATION_SUSPENDED for a suspended or closed organization (§5.5). Then the browser
 * origin against the key's allowed list (§5.7, 403 API_KEY_ORIGIN_NOT_ALLOWED), then requests
 * per key (§8: 600 a minute) with the IETF httpapi RateLimit headers on every response that gets
 * this far; over the limit, 429 RATE_LIMITED with Retry-After. In a sliding window `t` is the
 * seconds until the oldest counted second leaves it (when `r` next grows); on a refusal it equals
 * Retry-After. A key the verdicts cannot judge (the store unreachable, the key not seen recently)
 * gets 503 SERVICE_UNAVAILABLE with Retry-After: closed for authentication, but never a 401 for a
 * key that may be valid.
 *
 * Invalid credentials are counted per client address (its /64 for IPv6, behind TRUST_PROXY's
 * proxies the forwarded client); past the threshold, further invalid ones get 429 instead of
 * 401, which keeps a misconfigured or guessing client out of the logs and the key store's way.
 * A valid key is never refused because of what else came from its address: organization sites
 * share egress addresses (NAT, hosting platforms, corporate proxies), and one site's revoked key
 * must not take its neighbours down. So the address is never consulted before a key is known to
 * be invalid, and a well-formed key is always looked up: only its record can tell.
 */
export function accessControl(options: AccessOptions): AccessControl {
  const { failures, clock, organizationState, uses } = options;
  const verdicts = 'verdicts' in options ? options.verdicts : new EmbeddedKeyVerdicts(options.keys, options.limiter);
  const parsedKeys = options.parsedKeys ?? new ParsedKeys();
  const matchers = options.matchers ?? new OriginMatcherCache();
  const policy = `"default";q=${verdicts.limit};w=${verdicts.windowSeconds}`;

  /** Counts the failure against the address: 401, or 429 once the address is over its threshold. */
  const refuse = (req: Request, detail: string): Awaitable<never> =>
    after(failures.consume(clientGroup(req.ip ?? req.socket.remoteAddress ?? 'unknown'), clock()), (counted) => {
      if (!counted.allowed) throw rateLimited(counted.resetSeconds, {}, TOO_MANY_FAILURES);
      throw keyInvalid(detail);
    });

  /** A 403 after the verdict: whatever it counted is given back first, so the refusal uses no quota. */
  const forbid = (verdict: UsableVerdict, error: ApiError): Awaitable<never> =>
    after(verdicts.release(verdict), () => {
      throw error;
    });

  /** The organization's state, then the origin, then the count; the key is known and unrevoked. */
  const admit = (req: Request, verdict: UsableVerdict, now: number): Awaitable<Grant> => {
    const key = verdict.record;
    return after(organizationState(key.organizationId), (state) => {
      if (state === 'suspended' || state === 'closed') return forbid(verdict, organizationSuspended());
      const origin = req.headers.origin;
      if (origin !== undefined && !matchers.matcherFor(key.id, key.origins).allows(origin)) return forbid(verdict, originNotAllowed(origin));
      return after(verdicts.settle(verdict, now), (decision) => {
        const rateLimitHeaders = ['RateLimit-Policy', policy, 'RateLimit', `"default";r=${decision.remaining};t=${decision.resetSeconds}`];
        if (!decision.allowed) throw rateLimited(decision.resetSeconds, { 'RateLimit-Policy': policy, RateLimit: rateLimitHeaders[3]! });
        uses?.note(key.id, now);
        return { key, rateLimitHeaders };
      });
    });
  };

  return {
    check(req) {
      const credential = credentialOf(req);
      if (!credential.ok) return refuse(req, credential.detail);
      // Format and checksum first: a malformed key never reaches the store.
      const parsed = parsedKeys.parse(credential.key);
      if (!parsed.valid) return refuse(req, MALFORMED);
      const now = clock();
      return after(verdicts.verdict(parsed.secretHash, now), (verdict) => {
        // Not an invalid credential: the key may well be valid, so neither 401 nor a count against the address.
        if (verdict.retryAfterSeconds !== undefined) throw serviceUnavailable(verdict.retryAfterSeconds, UNCHECKABLE);
        if (verdict.record === undefined) return refuse(req, UNKNOWN);
        // From here on the request counts in the key's usage, a revoked or expired key's 401 too:
        // an operator asking "is anyone still using it" must see those (an unknown credential counts in the metrics only).
        chargeTo(req, verdict.record);
        if (standingAt(verdict.record, now) !== 'usable') return refuse(req, UNKNOWN);
        return admit(req, verdict as UsableVerdict, now);
      });
    },
  };
}
