// The gateway's in-process rate limiter is the ground floor's sliding window, the same one the admin
// port's failed-login throttle counts with (runtime/sliding-window-limiter.ts); it answers the
// gateway's RateLimiter (rate-limit.ts), which the RateLimiter contract checks.
export { InMemoryRateLimiter } from '../../runtime/sliding-window-limiter.ts';
