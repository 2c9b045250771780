// What start's embedded database allows one client (embedded-server.ts enforces them, the
// supervisor ends what overruns): apart from the server so that configuration can name the
// defaults without loading PGlite.

export interface SessionTimeouts {
  /** How long one message may run; 0: no limit. A client may ask for its own (startup parameter statement_timeout). */
  statementMs: number;
  /** How long a client may hold the session (an open transaction or exchange) without sending anything; 0: no limit. */
  idleInTransactionMs: number;
}

/**
 * EMBEDDED_STATEMENT_TIMEOUT, EMBEDDED_IDLE_TRANSACTION_TIMEOUT (docs/configuration.md). 30 s is
 * far above any statement start or the CLI runs on the sample data (milliseconds); 10 s is long
 * for a person typing in psql inside BEGIN, short for everyone the one session keeps waiting.
 */
export const DEFAULT_EMBEDDED_TIMEOUTS: SessionTimeouts = { statementMs: 30_000, idleInTransactionMs: 10_000 };
