// The builder's part of GET /readyz and of marquee_backend_up (runtime/readiness.ts,
// runtime/backend-states.ts): its backends probed in the background — the platform database
// (`SELECT 1`), the snapshot store (a lookup), Redis when configured (a PING on a connection of its
// own, so that a probe never queues behind a build's commands) — and the CDN told by the outcome of
// each invalidation (builder/cdn-invalidation.ts: invalidations are billed per path, so it is never
// probed). A builder is ready once the database and the store have answered, and unavailable while
// either is down: it can build nothing without both. Redis or the CDN down leaves it ready: it goes
// on with what it can, as `meanwhile` says.
import type { Redis } from 'ioredis';
import type { BackendName, BackendStates } from '../runtime/backend-states.ts';
import { type BackendProbe, probeBackends } from '../runtime/backend-probes.ts';
import type { Log } from '../runtime/log.ts';
import type { PartReadiness } from '../runtime/readiness.ts';
import { closeRedis, openRedis, whenReady } from '../runtime/redis-connection.ts';
import type { SqlClient } from '../records/database/sql.ts';
import { ORGS_PREFIX } from '../snapshot/layout.ts';
import type { SnapshotStore } from '../snapshot/store.ts';

const STORE_PROBE_KEY = `${ORGS_PREFIX}readiness-probe`;
/** How long a Redis probe waits for a connection being made, within the probe's own deadline. */
const REDIS_CONNECT_WAIT_MS = 1_500;

const MEANWHILE: Record<BackendName, string> = {
  database: 'building nothing: change builds, scheduled runs, webhook deliveries and usage counting wait for the database',
  store: 'builds fail and every organization keeps its previous snapshot; each is tried again, and published once the store answers',
  redis: "build locks, the publish channel and the gateways' copy of the keys wait for Redis; each is refilled once it answers",
  cdn: 'pointers are published no-cache, so every cache revalidates them anyway; the next publish invalidates again',
};

/** The backends the process needs for its work, in the order /readyz lists them. */
const NEEDED: readonly BackendName[] = ['database', 'store'];

export interface WatchedBackends {
  db: SqlClient;
  store: SnapshotStore;
  /** REDIS_URL, when the builder shares its work through Redis. */
  redisUrl?: string | undefined;
  /** CDN invalidation is configured (CLOUDFRONT_DISTRIBUTION_ID): its outcomes are written as `cdn`. */
  cdn: boolean;
  log: Log;
  /** Probe timing; tests probe more often. */
  intervalMs?: number;
}

export interface BuilderBackendWatch {
  /** The builder's part of /readyz. */
  part(): PartReadiness;
  stop(): Promise<void>;
}

export function watchBuilderBackends(states: BackendStates, backends: WatchedBackends): BuilderBackendWatch {
  const { db, store, log } = backends;
  for (const backend of NEEDED) states.use(backend, { meanwhile: MEANWHILE[backend] });
  const probes: BackendProbe[] = [
    { backend: 'database', check: async () => void (await db.query('SELECT 1')) },
    { backend: 'store', check: async () => void (await store.has(STORE_PROBE_KEY)) },
  ];
  let redis: Redis | undefined;
  if (backends.redisUrl !== undefined) {
    states.use('redis', { meanwhile: MEANWHILE.redis });
    // No offline queue: a PING while the connection is down fails at once instead of waiting for it.
    const probed = openRedis(backends.redisUrl, 'readiness probe', log, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    redis = probed;
    probes.push({
      backend: 'redis',
      check: async () => {
        await whenReady(probed, REDIS_CONNECT_WAIT_MS);
        await probed.ping();
      },
    });
  }
  if (backends.cdn) states.use('cdn', { meanwhile: MEANWHILE.cdn, assumeAnswering: true });
  const running = probeBackends(states, probes, backends.intervalMs === undefined ? {} : { intervalMs: backends.intervalMs });
  return {
    part() {
      const down = NEEDED.filter((backend) => states.stateOf(backend) !== 'ok' && states.stateOf(backend) !== 'degraded');
      if (down.length === 0) return { status: 'ready' };
      const report = states.report();
      const problems = down.map((backend) => `${backend}: ${report[backend]?.why ?? 'down'}`);
      // Never answered since start: starting, as expected; answered before: a backend lost.
      const starting = down.some((backend) => report[backend]?.lastSuccessSecondsAgo === undefined);
      return { status: starting ? 'starting' : 'unavailable', problems };
    },
    async stop() {
      running.stop();
      if (redis !== undefined) await closeRedis(redis);
    },
  };
}
