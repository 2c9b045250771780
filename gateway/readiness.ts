// Readiness for GET /healthz (docs/design.md "serve": 200 once ready), with the reason in the body
// when not: a load balancer sends a gateway traffic only while it can serve, and an operator reads
// why it cannot without searching the log.
//
// Three conditions, checked in the background (a probe every few seconds, so /healthz itself
// costs nothing and a scraper cannot make the gateway hammer its store):
// - the snapshot store has answered once since start ("starting" until then): a gateway that has
//   never reached it holds nothing;
// - the store exists (a SNAPSHOT_STORE directory that is not there, a bucket that is missing or
//   refuses the credentials): every organization would be unknown, so the gateway is not ready;
// - the embedded key store can be read (a keys file that is corrupt or unreadable refuses every
//   key). With Redis, keys are judged per request and a Redis outage is ridden out on recent
//   verdicts (access/redis-key-verdicts.ts), so it does not make the gateway unready.
//
// An unreachable store after the first answer does NOT make the gateway unready: it still serves
// every organization and object it holds, and 503 only for the rest; if readiness followed the
// store, one storage outage would take every gateway out of the balancer at once, and what they
// hold would be served by none of them.
import type { HealthReport } from '../runtime/health.ts';
import type { RequestHandler } from 'express';
import { describeError } from '../runtime/errors.ts';
import { ORGS_PREFIX } from '../snapshot/layout.ts';
import type { Log } from '../runtime/log.ts';
import { type SnapshotSource, StoreUnavailableError } from '../snapshot/store.ts';
import type { KeyStore } from '../records/keys/key-store.ts';
import { OutageWarning } from './snapshot-cache/outage-warning.ts';

const PROBE_KEY = `${ORGS_PREFIX}readiness-probe`;
const PROBLEM_RECHECK_MS = 250;
/** No secret hashes to this: a lookup that reads the key store and finds nothing. */
const PROBE_SECRET_HASH = '0'.repeat(64);

export interface GatewayHealthOptions {
  store: SnapshotSource;
  /** The embedded key store, whose file must be readable; undefined with Redis. */
  keys?: KeyStore | undefined;
  log: Log;
  /** Between probes; also the retry interval before the store first answered. */
  intervalMs?: number;
}

export class GatewayHealth {
  /** Resolves once the store has answered a probe (start-up waits for this); probes repeat until then. */
  readonly ready: Promise<void>;
  private answered = false;
  private problems: string[] = [];
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly unreachable: OutageWarning;
  private readonly intervalMs: number;
  private resolveReady!: () => void;

  constructor(private readonly options: GatewayHealthOptions) {
    this.intervalMs = options.intervalMs ?? 2_000;
    this.unreachable = new OutageWarning(options.log, 'snapshot store not reachable yet');
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
    void this.probe();
  }

  report(): HealthReport {
    if (!this.answered) return { status: 'starting', problems: this.problems };
    return this.problems.length === 0 ? { status: 'ok' } : { status: 'unavailable', problems: this.problems };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private async probe(): Promise<void> {
    const problems: string[] = [];
    const { store, keys } = this.options;
    let reached = this.answered;
    try {
      // Whether anything was ever published does not matter, only that the store answers. A key,
      // not the bare prefix: store keys never end with '/' (snapshot/store.ts assertStoreKey).
      await store.has(PROBE_KEY);
      reached = true;
      await store.assertExists?.();
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) problems.push(`snapshot store: ${describeError(error)}`);
      else if (!reached) {
        problems.push(`snapshot store ${store.description} not reachable yet: ${describeError(error)}`);
        this.unreachable.report(error, { store: store.description });
      }
      // Reached before: a passing outage, ridden out on what the gateway holds (see above).
    }
    try {
      await keys?.findBySecretHash(PROBE_SECRET_HASH);
    } catch (error) {
      problems.push(`key store: ${describeError(error)}`);
    }
    this.problems = problems;
    // Ready only with this probe's problems in place: marked as soon as the store answered, a
    // request in between was told "ok" by a gateway whose store directory does not exist.
    if (reached && !this.answered) {
      this.answered = true;
      this.resolveReady();
    }
    // A problem is looked at again soon: the fix (start's first build making the directory, an
    // operator repairing the keys file) should show within a moment, not a full interval.
    const next = problems.length > 0 ? Math.min(PROBLEM_RECHECK_MS, this.intervalMs) : this.intervalMs;
    if (!this.closed) this.timer = setTimeout(() => void this.probe(), next);
  }
}

export function healthz(health: GatewayHealth): RequestHandler {
  return function healthCheck(_req, res) {
    const report = health.report();
    res.setHeader('Cache-Control', 'no-store');
    res.status(report.status === 'ok' ? 200 : 503).json(report);
  };
}
