// The RateLimiter contract (test/contracts/rate-limiter.ts) against the in-process limiter, as the
// key limiter uses it (unbounded) and and bounded in bytes, as the gateway builds it (maxBytes);
// and against the ground floor's copy (runtime/sliding-window-limiter.ts), which the admin port's
// throttle of failed logins counts with, bounded as that throttle builds it.
import { InMemoryRateLimiter } from '../../../gateway/access/in-memory-rate-limiter.ts';
import { InMemoryRateLimiter as SlidingWindowLimiter } from '../../../runtime/sliding-window-limiter.ts';
import { rateLimiterContract } from '../../contracts/rate-limiter.ts';

rateLimiterContract('InMemoryRateLimiter', {
  setup: () => ({ limiter: (options: { limit: number; windowSeconds: number }) => new InMemoryRateLimiter(options) }),
});

rateLimiterContract('InMemoryRateLimiter with maxBytes', {
  setup: () => ({
    limiter: (options: { limit: number; windowSeconds: number }) => new InMemoryRateLimiter({ ...options, maxBytes: 4 * 1024 * 1024 }),
  }),
});

rateLimiterContract('runtime SlidingWindowLimiter with maxBytes', {
  setup: () => ({
    limiter: (options: { limit: number; windowSeconds: number }) => new SlidingWindowLimiter({ ...options, maxBytes: 1024 * 1024 }),
  }),
});
