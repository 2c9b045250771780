// The fleet-wide figures a builder shows on /metrics: how far the snapshots lag behind the platform
// (the oldest unbuilt change, how many organizations are stale), webhook deliveries waiting, usage
// batches waiting to be counted. Each comes from a shared record (the platform database, the usage
// spool), so every builder shows the fleet's figure, whoever built or delivered what; and each is
// read in the background every few seconds, never per scrape: a scraper never makes a builder
// query its database, and /metrics still answers (with the figures last read, and
// marquee_backend_up saying which backend is down) while the database does not.
import { Gauge, type Registry } from 'prom-client';
import type { Log } from '../runtime/log.ts';
import { describeError } from '../runtime/errors.ts';
import type { SnapshotLag } from './platform/snapshot-lag.ts';

export interface FleetFigureSources {
  /** How far the snapshots of this builder's store lag, organizations older than the threshold counted as stale. */
  snapshotLag(): Promise<SnapshotLag>;
  /** Webhook deliveries waiting to be sent (retries included). */
  webhookBacklog(): Promise<number>;
  /** Usage batches gateways moved to the shared place that no builder has counted yet. */
  usageBatchesWaiting(): Promise<number>;
}

export interface FleetFiguresOptions {
  log: Log;
  /** Between two readings; default 15 s, about a Prometheus scrape interval. */
  intervalMs?: number;
  /** Milliseconds since the epoch, for the oldest change's age at scrape time. */
  clock?: () => number;
}

export interface FleetFigures {
  /** Resolves once the figures were read once, whatever came of it (tests). */
  readonly firstReading: Promise<void>;
  stop(): void;
}

export function registerFleetFigures(registry: Registry, sources: FleetFigureSources, options: FleetFiguresOptions): FleetFigures {
  const clock = options.clock ?? Date.now;
  const intervalMs = options.intervalMs ?? 15_000;
  // One line when readings start failing and one when they work again, not one per reading: the
  // backend's own outage is told by its probe (marquee_backend_up, /readyz).
  let failing = false;
  let lag: SnapshotLag = { oldestChangeMs: undefined, stale: 0 };
  let webhookBacklog = 0;
  let usageBatchesWaiting = 0;

  new Gauge({
    name: 'marquee_snapshot_oldest_age_seconds',
    help: "Seconds since the oldest platform change not yet built into this builder's store was made (0 when every organization's snapshot is current)",
    registers: [registry],
    collect() {
      this.set(lag.oldestChangeMs === undefined ? 0 : Math.max(0, (clock() - lag.oldestChangeMs) / 1000));
    },
  });
  new Gauge({
    name: 'marquee_snapshots_stale',
    help: 'Organizations whose snapshot has lagged a platform change for longer than SNAPSHOT_STALE_AFTER',
    registers: [registry],
    collect() {
      this.set(lag.stale);
    },
  });
  new Gauge({
    name: 'marquee_webhook_backlog',
    help: 'Webhook deliveries waiting to be sent, retries included (every builder of the fleet shows the same figure)',
    registers: [registry],
    collect() {
      this.set(webhookBacklog);
    },
  });
  new Gauge({
    name: 'marquee_usage_batches_waiting',
    help: 'Usage batches that gateways moved to the shared place and no builder has counted yet',
    registers: [registry],
    collect() {
      this.set(usageBatchesWaiting);
    },
  });

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const read = async (): Promise<void> => {
    // Each on its own: a usage spool in Redis that is down does not hide the database's figures.
    const [lagRead, backlogRead, usageRead] = await Promise.allSettled([sources.snapshotLag(), sources.webhookBacklog(), sources.usageBatchesWaiting()]);
    if (lagRead.status === 'fulfilled') lag = lagRead.value;
    if (backlogRead.status === 'fulfilled') webhookBacklog = backlogRead.value;
    if (usageRead.status === 'fulfilled') usageBatchesWaiting = usageRead.value;
    const failed = [lagRead, backlogRead, usageRead].find((reading) => reading.status === 'rejected');
    if (failed !== undefined && !failing) {
      options.log.warn(
        'cannot read the fleet figures of /metrics (snapshot lag and webhook backlog from the platform database, usage batches from the usage spool); showing the last ones read',
        {
          reason: describeError(failed.reason),
        },
      );
    }
    if (failed === undefined && failing) options.log.info('the fleet figures of /metrics are read again');
    failing = failed !== undefined;
  };
  const loop = async (): Promise<void> => {
    await read();
    if (stopped) return;
    timer = setTimeout(() => void loop(), intervalMs);
    timer.unref();
  };
  const firstReading = loop();
  return {
    firstReading,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
