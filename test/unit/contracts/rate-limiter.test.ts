// The RateLimiter contract (test/contracts/rate-limiter.ts) against the in-process limiter, as the
// key limiter uses it (unbounded) and as the invalid-credentials throttle does (maxBuckets).
import { InMemoryRateLimiter } from '../../../gateway/access/in-memory-rate-limiter.ts';
import { rateLimiterContract } from '../../contracts/rate-limiter.ts';

rateLimiterContract('InMemoryRateLimiter', {
  setup: () => ({ limiter: (options: { limit: number; windowSeconds: number }) => new InMemoryRateLimiter(options) }),
});

rateLimiterContract('InMemoryRateLimiter with maxBuckets', {
  setup: () => ({
    limiter: (options: { limit: number; windowSeconds: number }) => new InMemoryRateLimiter({ ...options, maxBuckets: 10_000 }),
  }),
});
