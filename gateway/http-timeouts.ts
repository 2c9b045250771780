// The gateway's HTTP timeouts; apart from server.ts so that configuration can name its defaults
// without loading the server.

/**
 * How long a client may take, set deliberately rather than left to Node's defaults (60 s for
 * headers, checked every 30 s, so a half-sent request held its socket for about 78 s). A request
 * is a few hundred bytes with no body: 10 s to send its headers is generous on any real network.
 */
export interface HttpTimeouts {
  /** Until the request's headers are complete; then 408. */
  headersMs: number;
  /** Until the whole request is received; then 408. */
  requestMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };
