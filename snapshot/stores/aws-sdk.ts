// How Marquee's AWS SDK clients (the S3 store, the builder's CloudFront invalidations) talk to AWS:
// per-attempt timeouts, a bounded number of attempts, and quiet about the Node version.

/**
 * Per attempt: connecting may take `connectionTimeout`, the answer's headers `requestTimeout`
 * (an error, not the SDK's default warning: throwOnRequestTimeout), and a body may stall for
 * `socketTimeout` between two chunks. Given as options, from which the SDK makes its own
 * NodeHttpHandler (keep-alive agents included) without this module importing the handler's
 * package. S3 answers its first byte in tens of milliseconds; a request still unanswered after
 * seconds is stuck, and another attempt on a new connection does better than waiting.
 */
export const HTTP_HANDLER_OPTIONS = {
  connectionTimeout: 2_000,
  requestTimeout: 5_000,
  throwOnRequestTimeout: true,
  socketTimeout: 5_000,
} as const;

/**
 * The SDK's standard retry mode: throttling (429, SlowDown…), 5xx, timeouts and network errors
 * are retried with exponential backoff and full jitter (50 ms base, 1 s for throttling), up to
 * this many attempts in all; anything else (403, 404, 412) is not retried. With the timeouts
 * above, a call against a backend that never answers gives up after about 3 × 7 s.
 */
export const RETRY_OPTIONS = { maxAttempts: 3, retryMode: 'standard' } as const;

/**
 * The AWS SDK warns once per process, on Node 20, that its releases after early January 2027 will
 * need Node 22 (NodeVersionSupportWarning, from @aws-sdk/core's emitWarningIfUnsupportedVersion).
 * package.json pins the SDK to releases that support Node 20, which Marquee supports, so the
 * warning says nothing an operator can act on. The SDK's own switch turns it off: the environment
 * variable AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true, read when a client is created.
 * Set only when unset, so an operator who sets it otherwise sees the warning. Call before
 * creating a client.
 */
export function quietNodeVersionWarning(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}
