// Access control of the integration API (docs/design.md decisions table "order of checks"), per
// API request after the preflight (which needs no key: access/cors.ts): key 401 (429 for an
// address sending many invalid keys) → organization state 403 → origin 403 → rate limit 429.
// Every refusal is thrown as an ApiError; gateway/problem.ts is the one place that writes the
// body. The hot path does one key-store lookup and no other I/O, and with the
// embedded store and in-process limiters it runs synchronously (gateway/awaitable.ts).
import type { Request } from 'express';
import { after, type Awaitable } from '../awaitable.ts';
import { keyInvalid, organizationSuspended, originNotAllowed, rateLimited } from '../errors.ts';
import { ParsedKeys } from '../keys/parsed-keys.ts';
import type { KeyRecord, KeyStore } from '../keys/key-store.ts';
import type { OrganizationState } from '../../snapshot/manifest.ts';
import { credentialOf } from './credentials.ts';
import { OriginMatcherCache } from './origin.ts';
import { clientGroup } from './client-address.ts';
import type { RateLimiter } from './rate-limit.ts';

/** Milliseconds since the epoch; injected so tests control time. */
type Clock = () => number;

export interface AccessOptions {
  keys: KeyStore;
  /**
   * Invalid credentials per client address (60 a minute): over it, further invalid ones get 429
   * instead of 401. Consulted only for invalid credentials, never for a valid key.
   */
  failures: RateLimiter;
  /** Requests per key id; its limit and window are announced in RateLimit-Policy. */
  limiter: RateLimiter;
  clock: Clock;
  /** From the organization's pointer; undefined while it has no snapshot yet (the routes decide). */
  organizationState: (organizationId: string) => Awaitable<OrganizationState | undefined>;
}

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
// One message for unknown and revoked: a client learns nothing about which keys ever existed.
const UNKNOWN = 'The API key is not recognised or has been revoked.';
const TOO_MANY_FAILURES = 'Too many requests with an invalid API key from this address; fix the key, then try again.';

/**
 * The key (docs/api.md §5): 401 API_KEY_INVALID when missing, malformed, unknown, revoked or ambiguous;
 * 403 ORGANIZATION_SUSPENDED for a suspended or closed organization (§5.5). Then the browser
 * origin against the key's allowed list (§5.7, 403 API_KEY_ORIGIN_NOT_ALLOWED), then requests
 * per key (§8: 600 a minute) with the IETF httpapi RateLimit headers on every response that gets
 * this far; over the limit, 429 RATE_LIMITED with Retry-After. In a sliding window `t` is the
 * seconds until the oldest counted second leaves it (when `r` next grows); on a refusal it equals
 * Retry-After.
 *
 * Invalid credentials are counted per client address (its /64 for IPv6, behind TRUST_PROXY's
 * proxies the forwarded client); past the threshold, further invalid ones get 429 instead of
 * 401, which keeps a misconfigured or guessing client out of the logs and the key store's way.
 * A valid key is never refused because of what else came from its address: organization sites
 * share egress addresses (NAT, hosting platforms, corporate proxies), and one site's revoked key
 * must not take its neighbours down. So the address is never consulted before a key is known to
 * be invalid, and a well-formed key is always looked up: only its record can tell.
 */
export function accessControl({ keys, failures, limiter, clock, organizationState }: AccessOptions): AccessControl {
  const parsedKeys = new ParsedKeys();
  const matchers = new OriginMatcherCache();
  const policy = `"default";q=${limiter.limit};w=${limiter.windowSeconds}`;

  /** Counts the failure against the address: 401, or 429 once the address is over its threshold. */
  const refuse = (req: Request, detail: string): Awaitable<never> =>
    after(failures.consume(clientGroup(req.ip ?? req.socket.remoteAddress ?? 'unknown'), clock()), (counted) => {
      if (!counted.allowed) throw rateLimited(counted.resetSeconds, {}, TOO_MANY_FAILURES);
      throw keyInvalid(detail);
    });

  const authenticate = (req: Request): Awaitable<KeyRecord> => {
    const credential = credentialOf(req);
    if (!credential.ok) return refuse(req, credential.detail);
    // Format and checksum first: a malformed key never reaches the store.
    const parsed = parsedKeys.parse(credential.key);
    if (!parsed.valid) return refuse(req, MALFORMED);
    return after(keys.findBySecretHash(parsed.secretHash), (record) => {
      if (record === undefined || record.revokedAt !== null) return refuse(req, UNKNOWN);
      return after(organizationState(record.organizationId), (state) => {
        if (state === 'suspended' || state === 'closed') throw organizationSuspended();
        return record;
      });
    });
  };

  const checkOrigin = (req: Request, key: KeyRecord): void => {
    const origin = req.headers.origin;
    if (origin !== undefined && !matchers.matcherFor(key.id, key.origins).allows(origin)) throw originNotAllowed(origin);
  };

  const rateLimit = (key: KeyRecord, now: number): Awaitable<Grant> =>
    after(limiter.consume(key.id, now), (decision) => {
      const rateLimitHeaders = ['RateLimit-Policy', policy, 'RateLimit', `"default";r=${decision.remaining};t=${decision.resetSeconds}`];
      if (!decision.allowed) throw rateLimited(decision.resetSeconds, { 'RateLimit-Policy': policy, RateLimit: rateLimitHeaders[3]! });
      return { key, rateLimitHeaders };
    });

  return {
    check(req) {
      return after(authenticate(req), (key) => {
        checkOrigin(req, key);
        return rateLimit(key, clock());
      });
    },
  };
}
