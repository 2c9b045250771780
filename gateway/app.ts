// The gateway as an Express app, apart from listen(): wires the snapshot reader,
// access control, routes and the one error handler. Tests drive it in-process; server.ts binds it.
import express, { type Express } from 'express';
import type { Log } from '../runtime/log.ts';
import type { PublishChannel } from '../snapshot/notifications.ts';
import type { SnapshotSource } from '../snapshot/store.ts';
import { accessControl } from './access/access-control.ts';
import { InMemoryRateLimiter } from './access/in-memory-rate-limiter.ts';
import type { KeyVerdicts } from './access/key-verdicts.ts';
import { KeyUseRecorder } from './access/key-uses.ts';
import { after } from '../runtime/awaitable.ts';
import type { TrustProxy } from './access/client-address.ts';
import type { RateLimiter } from './access/rate-limit.ts';
import { EventViews } from './events/views.ts';
import { ChangeAnswers } from './changes.ts';
import type { KeyStore } from '../records/keys/key-store.ts';
import type { GatewayMetrics } from './metrics.ts';
import { requestObserver } from './observed-request.ts';
import { problemHandler } from './problem.ts';
import { standingHeaders } from './standing-headers.ts';
import { BackendStates } from '../runtime/backend-states.ts';
import { healthz, ProcessReadiness, readyz } from '../runtime/readiness.ts';
import { GatewayHealth } from './readiness.ts';
import { OrganizationResources } from './organization-resources.ts';
import { apiRouter } from './routes/api-router.ts';
import { docs } from './routes/docs.ts';
import { elements } from './routes/elements.ts';
import { rejectUnknownPath } from './routes/fallbacks.ts';
import { CurrentSnapshots } from './snapshot-cache/current-snapshots.ts';
import { ObjectCache } from './snapshot-cache/object-cache.ts';
import { PinnedSnapshots } from './snapshot-cache/pinned-snapshots.ts';
import { RetainedSnapshots } from './snapshot-cache/retained-snapshots.ts';
import { DEFAULT_PIN_WINDOW_MS } from './snapshot-cache/pin-window.ts';
import { cacheBudgets, DEFAULT_CACHE_BYTES } from './cache-budget.ts';
import { ParsedKeys } from './access/parsed-keys.ts';
import { OriginMatcherCache } from './access/origin-matchers.ts';
import type { UsageOutbox } from '../records/usage/usage-spool.ts';
import { MOVE_INTERVAL_MS, UsageMover } from './usage/usage-mover.ts';
import { UsageTally } from './usage/usage-tally.ts';

/** Memory bounds and freshness. */
interface GatewayLimits {
  /** Heap bytes of everything kept per organization and per key, split among the caches (gateway/cache-budget.ts). */
  cacheBytes: number;
  /** A pointer older than this is re-read before use: another process's publish shows within 2 s. */
  pointerMaxAgeMs: number;
  /** Between readiness probes of the store and the key store (readiness.ts). */
  healthProbeMs: number;
  /** How long a snapshot may still be read by a pinned request after it stopped being current (SNAPSHOT_PIN_SECONDS); 0: pins name only the current one. */
  pinWindowMs: number;
  /** How often usage counts are moved to the shared place (USAGE_MOVE_SECONDS); at most 10 s. */
  usageMoveMs: number;
}

const DEFAULT_LIMITS: GatewayLimits = {
  cacheBytes: DEFAULT_CACHE_BYTES,
  pointerMaxAgeMs: 1000,
  healthProbeMs: 2000,
  pinWindowMs: DEFAULT_PIN_WINDOW_MS,
  usageMoveMs: MOVE_INTERVAL_MS,
};

export interface GatewayDeps {
  snapshots: SnapshotSource;
  keys: KeyStore;
  /** Requests per key; default in-process, 600 a minute (docs/api.md §8). */
  rateLimiter?: RateLimiter;
  /**
   * Key lookups and per-key counts together (Redis: one round trip per request, access/redis-access.ts).
   * When given, requests are judged by it alone and `keys` and `rateLimiter` are not consulted.
   */
  keyVerdicts?: KeyVerdicts;
  /** Invalid credentials per client address; default in-process, 60 a minute, bounded by the address_failures budget. */
  authFailures?: RateLimiter;
  /** Which proxies' X-Forwarded-For to believe (TRUST_PROXY); default none. */
  trustProxy?: TrustProxy;
  /** Milliseconds since the epoch: decides timing, registration and rate windows. */
  clock?: () => number;
  /** Publish notifications: the changed organization's pointer is re-read at once. */
  channel?: PublishChannel;
  /** Where warnings and failed requests go (runtime/log.ts); bin/ injects the process's log. */
  log: Log;
  /** Prometheus metrics (gateway/metrics.ts), in a registry the caller serves; none by default. */
  metrics?: GatewayMetrics;
  /** Where usage counts per key are moved (records/usage/usage-spool-backends.ts); none: usage is not counted. */
  usage?: UsageOutbox;
  /**
   * The process's readiness (runtime/readiness.ts), which the gateway joins as one part and writes
   * its store's state into; default one of its own. start passes the one its builder joins too.
   */
  readiness?: ProcessReadiness;
  limits?: Partial<GatewayLimits>;
}

export interface Gateway {
  app: Express;
  /** What GET /readyz answers (the admin port answers the same), and what a shutdown turns to draining. */
  readiness: ProcessReadiness;
  /** Resolves once the snapshot store has answered (GET /readyz is 200 from then on unless a problem is found). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function createGateway(deps: GatewayDeps): Gateway {
  const clock = deps.clock ?? Date.now;
  const log = deps.log;
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const budgets = cacheBudgets(limits.cacheBytes);

  const snapshots = new CurrentSnapshots({
    store: deps.snapshots,
    log,
    maxAgeMs: limits.pointerMaxAgeMs,
    ...(deps.channel ? { deliveryEpoch: () => deps.channel?.deliveryEpoch } : {}),
    maxBytes: budgets.snapshots,
  });
  const metrics = deps.metrics;
  const objects = new ObjectCache(deps.snapshots, budgets.objects, log);
  const views = new EventViews(objects, budgets.views, log);
  const pinned = new PinnedSnapshots(deps.snapshots, limits.pinWindowMs, budgets.pinned);
  // The changes share holds the answers, and which earlier snapshots the store keeps (a few bytes each).
  const changeAnswers = new ChangeAnswers(budgets.changes * 0.75);
  const retained = new RetainedSnapshots(deps.snapshots, { maxAgeMs: limits.pointerMaxAgeMs, maxBytes: budgets.changes * 0.25 });
  const resources = new OrganizationResources(snapshots, objects, views, pinned, changeAnswers, retained);
  // The limiters the gateway makes are its own caches, within their budgets; one passed in keeps its counts where it likes.
  const ownKeyRates =
    deps.keyVerdicts === undefined && deps.rateLimiter === undefined ? new InMemoryRateLimiter({ limit: 600, windowSeconds: 60, maxBytes: budgets.key_rates }) : undefined;
  const ownAddressFailures = deps.authFailures === undefined ? new InMemoryRateLimiter({ limit: 60, windowSeconds: 60, maxBytes: budgets.address_failures }) : undefined;
  const parsedKeys = new ParsedKeys(budgets.parsed_keys);
  const matchers = new OriginMatcherCache(budgets.origins);
  metrics?.caches({
    snapshots: snapshots.stats,
    pinned: pinned.stats,
    changes: changeAnswers.stats,
    objects: objects.stats,
    views: views.stats,
    parsed_keys: parsedKeys.stats,
    origins: matchers.stats,
    ...(ownKeyRates && { key_rates: ownKeyRates.stats }),
    ...(ownAddressFailures && { address_failures: ownAddressFailures.stats }),
    ...deps.keyVerdicts?.caches,
  });
  const unsubscribe = deps.channel?.subscribe((organizationId) => snapshots.invalidate(organizationId));
  const readiness = deps.readiness ?? new ProcessReadiness(new BackendStates());
  const health = new GatewayHealth({
    store: deps.snapshots,
    keys: deps.keyVerdicts === undefined ? deps.keys : undefined,
    log,
    states: readiness.states,
    intervalMs: limits.healthProbeMs,
  });
  readiness.add(() => health.part());
  // Keys answered from remembered verdicts while Redis does not answer: 0 without Redis, and while it answers.
  metrics?.keysFromMemory(() => deps.keyVerdicts?.answeredFromMemory ?? 0);
  // Keys' last use: noted per accepted request, written to the key store at most once a minute.
  const uses = new KeyUseRecorder(deps.keys, { log });
  // Usage per key: counted per response, moved to the shared place every 10 s (gateway/usage/).
  // Half the budget for what is counted, half for the batches moved and not yet counted.
  let mover: UsageMover | undefined;
  const usage = deps.usage && new UsageTally({ maxBytes: budgets.usage / 2, clock, onPressure: () => void mover?.move() });
  if (usage !== undefined) mover = new UsageMover(usage, deps.usage!, { log, maxHeldBytes: budgets.usage / 2, clock, intervalMs: limits.usageMoveMs });
  if (usage !== undefined && mover !== undefined) metrics?.usage(usage, mover);

  const app = express();
  app.disable('x-powered-by');
  // req.ip, for the invalid-credentials throttle and the logs: the socket's address, or the client
  // named by the operator's own proxies (gateway/access/client-address.ts).
  app.set('trust proxy', deps.trustProxy ?? false);
  // Entity tags are content hashes set by the routes, never Express's weak body hashes.
  app.set('etag', false);
  // Every request gets its id, route label and start time first (X-Request-Id, logs, metrics):
  // the API's from the API router itself, every other one from the observer's middleware after it.
  const observer = requestObserver(metrics, usage);
  // The API first: its requests, the hot path, walk no other layer; it writes its own standing headers (CORS, nosniff).
  app.use(
    apiRouter({
      access: accessControl({
        ...(deps.keyVerdicts !== undefined ? { verdicts: deps.keyVerdicts } : { keys: deps.keys, limiter: (deps.rateLimiter ?? ownKeyRates)! }),
        failures: (deps.authFailures ?? ownAddressFailures)!,
        parsedKeys,
        matchers,
        clock,
        organizationState: (organizationId) => after(snapshots.get(organizationId), (snapshot) => snapshot?.state),
        uses,
      }),
      resources,
      clock,
      observe: observer.note,
    }),
  );
  app.use(observer.middleware);
  app.use(standingHeaders());
  // Liveness and readiness (runtime/readiness.ts): a load balancer probes /readyz.
  app.get('/healthz', healthz);
  app.get(
    '/readyz',
    readyz(() => readiness.report()),
  );
  // The API's description (GET /openapi.json) and its reference page (GET /docs/), without a key.
  app.use(docs());
  app.use(elements());
  app.use(rejectUnknownPath());
  app.use(problemHandler({ log, metrics }));

  return {
    app,
    ready: health.ready,
    readiness,
    close: async () => {
      unsubscribe?.();
      health.close();
      await Promise.all([uses.close(), mover?.close()]);
    },
  };
}
