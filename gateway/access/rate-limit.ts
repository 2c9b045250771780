// Rate limiting (docs/design.md decisions table): at most `limit` accepted requests per bucket in any
// `windowSeconds` window. The in-process limiter (runtime/sliding-window-limiter.ts, shared with the admin port's login
// throttle) answers
// synchronously (runtime/awaitable.ts); with Redis the same count runs inside the key verdicts'
// script (access/redis-sliding-window.ts), which a RateLimiter contract run checks through them.
import type { Awaitable } from '../../runtime/awaitable.ts';
import type { RateDecision } from '../../runtime/sliding-window-limiter.ts';

export type { RateDecision };

export interface RateLimiter {
  readonly limit: number;
  readonly windowSeconds: number;
  /**
   * Counts one request against `bucket` at `nowMs` when allowed; refused requests are not counted.
   * Time has 1-second granularity; a `nowMs` behind one seen before counts into that later second
   * (the window never moves back). Every backend passes test/contracts/rate-limiter.ts.
   */
  consume(bucket: string, nowMs: number): Awaitable<RateDecision>;
}
