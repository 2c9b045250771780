// What GET /healthz answers for a process (docs/operation.md "Health"): the gateway's readiness
// (gateway/readiness.ts), served on the gateway's port and on every process's admin port.
export interface HealthReport {
  status: 'ok' | 'starting' | 'unavailable';
  /** Why not ok, one line each, for the operator. */
  problems?: string[];
}
