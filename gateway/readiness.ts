// Readiness for GET /healthz (docs/design.md "serve": 200 once ready): the gateway is ready once the
// snapshot store has answered, since every API response depends on it. Keys and rate limits are
// checked per request and report their own faults.
//
// Ready once, ready for good. A gateway that has not reached the store since it started holds
// nothing, so a load balancer should send it nothing. But a ready gateway that loses the store
// still answers every organization and object it holds, and 503 only for the rest; if readiness
// followed the store, one storage outage would take every gateway out of the balancer at once,
// and what they hold would be served by none of them.
import type { RequestHandler } from 'express';
import { ORGS_PREFIX } from '../snapshot/layout.ts';
import type { SnapshotSource } from '../snapshot/store.ts';
import type { Log } from '../snapshot/log.ts';
import { OutageWarning } from './snapshot-cache/outage-warning.ts';

const PROBE_KEY = `${ORGS_PREFIX}readiness-probe`;

export class StoreReadiness {
  /** Resolves once the store has answered a probe; probes repeat until then. */
  readonly ready: Promise<void>;
  private isReady = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly unreachable: OutageWarning;

  constructor(
    private readonly store: SnapshotSource,
    log: Log,
    private readonly retryMs = 1000,
  ) {
    this.unreachable = new OutageWarning(log, 'snapshot store not reachable yet');
    this.ready = new Promise((resolve) => this.probe(resolve));
  }

  get ok(): boolean {
    return this.isReady;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private probe(resolve: () => void): void {
    // Whether anything was ever published does not matter, only that the store answers. A key,
    // not the bare prefix: store keys never end with '/' (snapshot/store.ts assertStoreKey).
    this.store.has(PROBE_KEY).then(
      () => {
        this.isReady = true;
        resolve();
      },
      (error: unknown) => {
        this.unreachable.report(error, { store: this.store.description });
        if (!this.closed) this.timer = setTimeout(() => this.probe(resolve), this.retryMs);
      },
    );
  }
}

export function healthz(readiness: StoreReadiness): RequestHandler {
  return function healthCheck(_req, res) {
    res.setHeader('Cache-Control', 'no-store');
    res.status(readiness.ok ? 200 : 503).json({ status: readiness.ok ? 'ok' : 'starting' });
  };
}
