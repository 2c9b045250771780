// A builder process, as `start` and `builder` each run one: its parts opened in one order and
// closed in one order, so the two commands cannot drift apart. What differs is the caller's: the
// database it hands over (start's migrated and seeded, builder's checked), start's gateway, and
// what each tells the operator (start's banner, builder's log lines).
import type { Registry } from 'prom-client';
import { createAdminApp } from '../admin/app.ts';
import { keepAuditHeads } from '../records/trail/audit-heads.ts';
import { keepCheckpoints } from '../records/publication-log/checkpoint-keeping.ts';
import { databasePublicationLog } from '../records/publication-log/log-store.ts';
import { loadSigner } from './signing-key.ts';
import { databaseAuditTrail } from '../records/trail/audit-trail.ts';
import { consoleRouter } from '../admin/console/router.ts';
import { openKeyKeeping } from '../records/keys/key-backends.ts';
import { openUsageInbox } from '../records/usage/usage-spool-backends.ts';
import { UsageIntake } from '../records/usage/usage-intake.ts';
import { createAdminServices } from '../admin/services.ts';
import { adminTokenSecret } from './admin-token.ts';
import { openChangeClaims, openScheduleClaims, openWorkList } from '../builder/fleet-backends.ts';
import { registerBuilderMetrics } from '../builder/metrics.ts';
import { watchBuilderBackends } from '../builder/backend-watch.ts';
import { registerFleetFigures } from '../builder/fleet-figures.ts';
import { snapshotLag } from '../builder/platform/snapshot-lag.ts';
import { schedulePeriodMs } from '../builder/schedule-period.ts';
import type { ProcessReadiness } from '../runtime/readiness.ts';
import { listenForChanges } from '../builder/platform/changes.ts';
import { PlatformDatabaseError, type SqlClient } from '../records/database/sql.ts';
import { BuildRuns } from '../builder/runs/build-runs.ts';
import { DatabaseRunRecord, recordWarnings } from '../records/runs/run-record.ts';
import { BuildRunner } from '../builder/runs/runner.ts';
import type { RunResult } from '../builder/runs/work-list.ts';
import { registerWebhookMetrics } from '../builder/webhooks/webhook-metrics.ts';
import { startWebhooks } from '../builder/webhooks/webhook-service.ts';
import type { KeyStore } from '../records/keys/key-store.ts';
import { answerAsOf } from '../gateway/as-of.ts';
import type { RunningGateway } from '../gateway/server.ts';
import type { ListeningServer } from '../runtime/http-server.ts';
import { describeError } from '../runtime/errors.ts';
import type { Log } from '../runtime/log.ts';
import type { BuildTrigger } from '../snapshot/manifest.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { listenAdminPort } from './admin-port.ts';
import type { Config } from './config.ts';
import { type BuildServices, openBuildServices, platformSource } from './services.ts';

export interface BuilderProcessOptions {
  /** The builder's log. */
  log: Log;
  /**
   * The process's readiness, which the builder joins as one part (builder/backend-watch.ts) and
   * whose backend states its probes write; start's gateway joins the same.
   */
  readiness: ProcessReadiness;
  /** The admin port: the admin API, the console and /metrics on `registry`. Absent: not served (builder without ADMIN_TOKEN). */
  admin?: { token: string; registry: Registry; log: Log };
  /**
   * start's gateway, over the store this process builds into and hearing its publishes on its
   * channel. Bound before anything is built, so a port in use is known at once, not after a full
   * build; the admin port's /readyz then answers for both.
   */
  gateway?: (build: BuildServices) => Promise<ServedGateway>;
  /** Tests: how often the publication log's checkpoint is looked at, instead of every half minute. */
  checkpointIntervalMs?: number;
}

/** A gateway run inside a builder process, and what it holds beside its server (its key access, its snapshot source). */
interface ServedGateway {
  running: RunningGateway;
  /** Called once `running` has closed. */
  close(): Promise<void>;
}

export interface BuilderProcess {
  store: SnapshotStore;
  /** The keys operators write (records/keys/key-backends.ts): start's demo key is made here. */
  keys: KeyStore;
  admin: ListeningServer | undefined;
  gateway: RunningGateway | undefined;
  /**
   * Listens for platform changes, runs a build of what changed since any builder last built into
   * this store (`trigger` names that run; 'schedule' makes it the scheduled run of the period this
   * builder starts in, which another builder of the fleet may have claimed: then it is skipped),
   * then schedules runs; resolves with that run's results.
   */
  run(trigger: BuildTrigger): Promise<RunResult[]>;
  /** Stops and closes everything, the database last. */
  close(): Promise<void>;
}

/** Opens a builder process's parts on `db`, which it closes on `close()`; nothing is built before `run`. */
export async function openBuilderProcess(config: Config, db: SqlClient, options: BuilderProcessOptions): Promise<BuilderProcess> {
  const { log, readiness } = options;
  const build = openBuildServices(config, log, undefined, readiness.states);
  await build.store.prepare?.(log);
  // The database, the store, Redis and the CDN, probed in the background for /readyz and /metrics.
  const watch = watchBuilderBackends(readiness.states, {
    db,
    store: build.store,
    redisUrl: config.redisUrl,
    cdn: config.cloudFrontDistributionId !== undefined,
    log,
  });
  readiness.add(() => watch.part());
  const gateway = await options.gateway?.(build);
  // With Redis, runs are divided among the builders through the platform database.
  const workList = openWorkList(config, db);
  const metrics = options.admin?.registry;
  const webhooks = startWebhooks(db, { policy: config.webhooks, builder: config.builderName, log, ...(metrics ? { metrics: registerWebhookMetrics(metrics) } : {}) });
  // Every run is also written to the database, with who asked for it: the admin API lists every builder's runs and the CLI's.
  const runs = new BuildRuns({ record: new DatabaseRunRecord(db), onRecordError: recordWarnings(log) });
  const runner = new BuildRunner(build.context(platformSource(db), db, webhooks.outbox), {
    log,
    runs,
    fullBuildEveryMs: config.fullBuildEveryMs,
    builder: config.builderName,
    ...(workList ? { workList } : {}),
    // With Redis, each change every builder hears is built by the one that claims it.
    changeClaims: openChangeClaims(config, db, log, config.builderName),
  });
  // With Redis, every builder keeps the gateways' copy of the keys following the database, admin port or not.
  const control = await openKeyKeeping(config, async () => db, log);
  // Every builder counts the usage gateways moved to the shared place into the database, and prunes it.
  const usageInbox = openUsageInbox(config, log);
  const usage = new UsageIntake(db, usageInbox.inbox, {
    log,
    retentionDays: config.usageRetentionDays,
    place: config.redisUrl === undefined ? { name: 'the usage directory', backend: 'directory' } : { name: 'Redis', backend: 'redis' },
  });
  usage.start();
  // Every builder keeps the audit trail's head in the store, whoever appended to it (docs/design.md "The audit trail").
  const trail = databaseAuditTrail(db);
  // …and in the publication log, which every publish of this process appends to (bin/services.ts).
  const publicationLog = databasePublicationLog(db);
  const heads = keepAuditHeads(trail, build.store, (error) => warnOfBackend(log, 'cannot keep the audit trail head', error), undefined, {
    log: publicationLog,
    db,
  });
  // The log's checkpoint in the store at least every minute while it grows; none without a signing key or an origin.
  const signer = loadSigner(config);
  const origin = config.publicationLogOrigin;
  if (signer === undefined) log.info('no publication log checkpoints: SNAPSHOT_SIGNING_KEY=none, nothing signs them');
  else if (typeof origin !== 'string') log.warn(`no publication log checkpoints: ${origin.problem}`);
  const checkpoints =
    signer !== undefined && typeof origin === 'string'
      ? keepCheckpoints({
          store: build.store,
          log: publicationLog,
          signer,
          origin,
          onError: (error) => warnOfBackend(log, 'cannot write the publication log checkpoint', error),
          ...(options.checkpointIntervalMs === undefined ? {} : { intervalMs: options.checkpointIntervalMs }),
        })
      : undefined;

  let admin: ListeningServer | undefined;
  let figures: { stop(): void } | undefined;
  if (options.admin) {
    const { token, registry, log: adminLog } = options.admin;
    registerBuilderMetrics(registry, { runs: runner.runs });
    // A change not built within two scheduled periods is stale, unless SNAPSHOT_STALE_AFTER says otherwise.
    const staleAfterMs = config.snapshotStaleAfterMs ?? 2 * schedulePeriodMs(config.buildSchedule);
    figures = registerFleetFigures(
      registry,
      {
        snapshotLag: () => snapshotLag(db, build.store.description, staleAfterMs),
        webhookBacklog: () => webhooks.store.pending(),
        usageBatchesWaiting: () => usageInbox.inbox.countWaiting(),
      },
      { log },
    );
    // The admin API and the console work on the same parts as this process's builds, keys and webhook deliveries.
    const services = createAdminServices({
      db,
      store: build.store,
      keys: control.keys,
      webhooks: { store: webhooks.store, policy: config.webhooks, onQueued: webhooks.wake },
      runs,
      builds: runner,
      trail,
      onBuildError: (error) => log.error('manual build failed', { trigger: 'manual', err: error }),
      answerAsOf,
      publicationLog,
      knownSecrets: [adminTokenSecret(token)],
    });
    admin = await listenAdminPort(
      config,
      createAdminApp({ token, registry, readiness: () => readiness.report(), log: adminLog, services, console: consoleRouter(services, { log: adminLog }) }),
    );
  }

  let unlisten: (() => Promise<void>) | undefined;
  return {
    store: build.store,
    keys: control.keys,
    admin,
    gateway: gateway?.running,
    run: async (trigger) => {
      // Listening first: a change made while the first run builds is built after it, not at the next schedule.
      // Each changed organization is rebuilt; after the listener lost the database, everything is (what it missed is unknown).
      unlisten = await listenForChanges(db, (organizationId) => runner.organizationChanged(organizationId), { onReconnect: () => runner.catchUp() });
      // With Redis, each period's scheduled build is run by one builder of the fleet, not by each;
      // a builder's start-up run ('schedule') is its period's, claimed the same way.
      const claims = openScheduleClaims(config, db, log, config.builderName);
      // Skipped only while another builder runs (the running builders announce themselves with their webhook policies).
      const othersRunning = async () => (await webhooks.store.livePolicies()).some((running) => running.builder !== config.builderName);
      const results = trigger === 'schedule' ? await runner.buildThisPeriod(config.buildSchedule, claims, othersRunning) : await runner.buildChanged(trigger);
      runner.schedule(config.buildSchedule, claims);
      return results;
    },
    // From the outside in: first what brings work stops bringing it (the listener: change builds;
    // the admin port: manual builds and key writes); then the runner stops, waiting for the build
    // under way, so that no publish is cut off; the gateway serves until then and answers the
    // requests in flight; then what builds and deliveries used (locks, the publish channel, the
    // work list, the key keeper, the webhook deliverer, the gateway's key access and source), all
    // at once, since none needs another; and last the database, which all of them read or write.
    close: async () => {
      await unlisten?.();
      figures?.stop();
      await admin?.close();
      await runner.stop();
      await heads.stop();
      await checkpoints?.stop();
      await gateway?.running.close();
      // After the gateway: its last counts, moved as it closed, are counted before the database closes.
      await usage.stop();
      await Promise.all([gateway?.close(), control.close(), build.close(), workList?.close(), webhooks.close(), usageInbox.close(), watch.stop()]);
      await db.close();
    },
  };
}

/**
 * A background task that reads the platform database and writes the snapshot store (the audit
 * trail's heads, the publication log's checkpoints) failed: its warning names which of the two
 * failed, by the error's kind (records/database/postgres.ts makes a lost connection a
 * PlatformDatabaseError; a statement the server refused carries PostgreSQL's severity), and why.
 * One line, no stack: the task retries at its next look.
 */
function warnOfBackend(log: Log, doing: string, error: unknown): void {
  const database = error instanceof PlatformDatabaseError || (error instanceof Error && 'severity' in error);
  const backend = database ? 'the platform database' : 'the snapshot store';
  log.warn(`${doing}: ${backend} failed (${describeError(error)}); retrying`, { backend: database ? 'database' : 'store' });
}
