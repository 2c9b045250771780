// The long-running commands: start (everything in one process), serve (gateway), builder. Each
// writes one log (bin/log.ts): the gateway's and the builder's events, and the process's own, in
// one format. Only start's banner (the address, the demo key and a curl line to try, the console's
// address) is printed as plain lines for the person who typed the command; the demo key and the
// admin token never go to the log. Each process has its own metrics Registry, served on its
// admin port (ADMIN_PORT): builder and start serve the admin API and console there too, serve
// only /healthz and /metrics (docs/design.md "Admin API and console").
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import type { Router } from 'express';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { createAdminApp } from '../admin/app.ts';
import { consoleRouter } from '../admin/console/router.ts';
import { listenAdmin } from '../admin/server.ts';
import { type AdminServices, createAdminServices } from '../admin/services.ts';
import { openScheduleClaims, openWorkList } from '../builder/build-lock-backends.ts';
import { registerBuilderMetrics } from '../builder/metrics.ts';
import { listOrganizations } from '../builder/platform/organizations.ts';
import { listenForChanges } from '../builder/platform/changes.ts';
import type { SqlClient } from '../builder/platform/sql.ts';
import { currentVersion, LATEST_SCHEMA_VERSION } from '../builder/platform/migrations.ts';
import { migrateMarquee } from '../builder/platform/marquee-schema/migrate.ts';
import { webhookOperations } from '../builder/webhooks/webhook-admin.ts';
import { registerWebhookMetrics } from '../builder/webhooks/webhook-metrics.ts';
import { type RunningWebhooks, startWebhooks } from '../builder/webhooks/webhook-service.ts';
import { BuildRunner, type RunnerOptions } from '../builder/runs/runner.ts';
import type { WorkList } from '../builder/runs/work-list.ts';
import { openKeyKeeping } from '../admin/keys/key-backends.ts';
import { openGatewayAccess } from '../gateway/access/access-backends.ts';
import type { GatewayDeps } from '../gateway/app.ts';
import { gatewayMetrics } from '../gateway/metrics.ts';
import type { HealthReport } from '../gateway/readiness.ts';
import { startGateway, type RunningGateway } from '../gateway/server.ts';
import type { KeyStore } from '../gateway/keys/key-store.ts';
import { openPublishChannel } from '../snapshot/publish-channels.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import type { Config } from './config.ts';
import { OperatorError } from '../runtime/errors.ts';
import { writeFileAtomically } from '../runtime/files.ts';
import type { Log } from '../runtime/log.ts';
import { createLog } from './log.ts';
import { line } from './output.ts';
import { demoKey, openStartDatabase } from './platform-setup.ts';
import { openBuildServices, openDatabase, openSnapshotSource, platformSource } from './services.ts';

export async function startCommand(config: Config, options: { sample?: boolean } = {}): Promise<void> {
  const log = await createLog({ format: config.logFormat });
  const { db, sampleLoaded } = await openStartDatabase(config, log, options);

  const gatewayLog = log.child({ component: 'gateway' });
  const builderLog = log.child({ component: 'builder' });
  // One Registry for both halves: the gateway's request metrics and the builder's.
  const registry = processRegistry();
  // One channel for both halves: the gateway hears this process's publishes, and with Redis every other gateway does too.
  const build = openBuildServices(config, builderLog);
  const source = openSnapshotSource(config, build.store);
  const access = await openGatewayAccess(config, gatewayLog);
  await build.store.prepare?.(builderLog);
  // Bind before building: a port in use is known at once, not after a full build.
  const gateway = await listenOn(config, { snapshots: source.source, ...access.deps, channel: build.channel, log: gatewayLog, metrics: gatewayMetrics(registry) });
  const workList = openWorkList(config, db);
  const webhooks = startWebhooks(db, { policy: config.webhooks, builder: config.builderName, log: builderLog, metrics: registerWebhookMetrics(registry) });
  const runner = new BuildRunner(build.context(platformSource(db), db, webhooks.outbox), runnerOptions(config, builderLog, workList));
  registerBuilderMetrics(registry, builderMetricsSources(db, build.store, runner));
  // The demo runs without configuration: a token is made for the admin port and kept beside the data.
  const token = config.adminToken ?? (await startAdminToken(config.home));
  const control = await openKeyKeeping(config, async () => db, builderLog);
  const services = adminServices(config, { db, store: build.store, keys: control.keys, runner, webhooks, log: builderLog });
  const admin = await listenAdmin(
    createAdminApp({ token, registry, health: () => gateway.health(), log: log.child({ component: 'admin' }), services, console: adminConsole(services, log) }),
    {
      host: config.adminHost,
      port: config.adminPort,
    },
  ).catch((error: unknown) => adminPortError(config, error));
  // Listening first: a change made while the first build runs is built after it, not at the next schedule.
  const unlisten = await followChanges(db, runner);
  // What changed since the last start, which is everything on the first.
  const results = await runner.buildChanged('start');
  const claims = openScheduleClaims(config, db, builderLog, config.builderName);
  runner.schedule(config.buildSchedule, claims);

  // A demo key only for the sample data: never one nobody asked for on a real platform's database.
  const demo = await demoKey(config, control.keys, results, { create: sampleLoaded });
  line(`gateway listening on ${gateway.url}`);
  if (demo) {
    line(`demo key for ${demo.slug}: ${demo.key}`);
    line(`try: curl -s -H 'Authorization: Bearer ${demo.key}' ${gateway.url}/api/integration/v1/events`);
  }
  line(`console: ${admin.url}/ (user any, password: ${config.adminToken === undefined ? `the token in ${shownPath(adminTokenFile(config.home))}` : 'ADMIN_TOKEN'})`);
  onShutdown(log, async () => {
    await unlisten();
    await admin.close();
    await runner.stop();
    await gateway.close();
    await Promise.all([access.close(), control.close(), source.close(), build.close(), workList?.close(), webhooks.close()]);
    await db.close();
  });
}

export async function serveCommand(config: Config): Promise<void> {
  const log = (await createLog({ format: config.logFormat })).child({ component: 'gateway' });
  // The gateway's request metrics, and Node's, on the admin port's /metrics.
  const registry = processRegistry();
  let gateway: RunningGateway | undefined;
  // Bound first and answering 503 until the gateway is: /healthz here answers what the gateway's does.
  const starting: HealthReport = { status: 'starting', problems: ['the gateway is not listening yet'] };
  const admin = await listenAdmin(createAdminApp({ token: config.adminToken, registry, health: () => gateway?.health() ?? starting, log }), {
    host: config.adminHost,
    port: config.adminPort,
  }).catch((error: unknown) => adminPortError(config, error));
  if (config.adminToken === undefined) log.info(`ADMIN_TOKEN is not set: ${admin.url} answers /healthz only, not /metrics`, { admin: admin.url });
  const source = openSnapshotSource(config, config.snapshotStore.open());
  const access = await openGatewayAccess(config, log);
  // Without Redis there is no channel across processes: the gateway re-reads pointers older than a second.
  const channel = config.redisUrl === undefined ? undefined : openPublishChannel(config, log);
  gateway = await listenOn(config, { snapshots: source.source, ...access.deps, ...(channel ? { channel } : {}), log, metrics: gatewayMetrics(registry) });
  const store = config.snapshotStore.description;
  log.info(`gateway listening on ${gateway.url}, serving snapshots from ${source.source.description}`, { url: gateway.url, store, admin: admin.url });
  onShutdown(log, async () => {
    await admin.close();
    await gateway.close();
    await Promise.all([access.close(), source.close(), channel?.close()]);
  });
}

export async function builderCommand(config: Config): Promise<void> {
  const log = (await createLog({ format: config.logFormat })).child({ component: 'builder' });
  const db = await openDatabase(config);
  await versionedSource(db, log);
  const build = openBuildServices(config, log);
  await build.store.prepare?.(log);
  const workList = openWorkList(config, db);
  // Only with ADMIN_TOKEN is /metrics served; the deliverer reports to it then.
  const registry = config.adminToken === undefined ? undefined : processRegistry();
  const webhooks = startWebhooks(db, { policy: config.webhooks, builder: config.builderName, log, ...(registry ? { metrics: registerWebhookMetrics(registry) } : {}) });
  const runner = new BuildRunner(build.context(platformSource(db), db, webhooks.outbox), runnerOptions(config, log, workList));
  // With Redis, every builder keeps the gateways' copy of the keys following the database, admin port or not.
  const control = await openKeyKeeping(config, async () => db, log);
  const admin = await builderAdmin(config, registry, { db, store: build.store, keys: control.keys, runner, webhooks, log });
  const unlisten = await followChanges(db, runner);
  // What changed since any builder last built into this store: a restart of the fleet rebuilds nothing that is current.
  await runner.buildChanged('schedule');
  // With Redis, each period's scheduled build is run by one builder of the fleet, not by each.
  const claims = openScheduleClaims(config, db, log, config.builderName);
  runner.schedule(config.buildSchedule, claims);
  log.info(`builder running: schedule "${config.buildSchedule}", listening for platform changes on ${db.description}, building into ${build.store.description}`, {
    schedule: config.buildSchedule,
    database: db.description,
    store: build.store.description,
    ...(admin ? { admin: admin.url } : {}),
  });
  onShutdown(log, async () => {
    await unlisten();
    await admin?.close();
    await runner.stop();
    await Promise.all([build.close(), control.close(), workList?.close(), webhooks.close()]);
    await db.close();
  });
}

/** How a process's runner builds: runs divided through `workList` (with Redis) among builders named by BUILDER_NAME. */
function runnerOptions(config: Config, log: Log, workList: WorkList | undefined): RunnerOptions {
  return { log, fullBuildEveryMs: config.fullBuildEveryMs, builder: config.builderName, ...(workList ? { workList } : {}) };
}

/**
 * Marquee's own relations, migrated (a platform of views never runs `db migrate`); a migrated
 * platform still on an older schema has change triggers that do not advance source versions,
 * which the operator is told how to fix.
 */
async function versionedSource(db: SqlClient, log: Log): Promise<void> {
  await migrateMarquee(db);
  const version = await currentVersion(db);
  if (version > 0 && version < LATEST_SCHEMA_VERSION) {
    log.warn(
      `${db.description} is at schema version ${version}, this release's is ${LATEST_SCHEMA_VERSION}: its change triggers do not advance source versions, so a change whose notification is missed waits for the rolling verification (FULL_BUILD_EVERY); run \`marquee db migrate\``,
      { schemaVersion: version, latest: LATEST_SCHEMA_VERSION },
    );
  }
}

/**
 * The builder's admin port: the admin API, the console and /metrics, with ADMIN_TOKEN only. Its
 * keys are the control plane's (admin/keys/key-backends.ts), so a key made here works on every gateway.
 */
async function builderAdmin(config: Config, registry: Registry | undefined, parts: ControlParts): Promise<{ url: string; close(): Promise<void> } | undefined> {
  const { db, store, runner, log } = parts;
  if (config.adminToken === undefined || registry === undefined) {
    log.info('ADMIN_TOKEN is not set: the admin API, the console and /metrics are not served (set ADMIN_TOKEN to serve them on ADMIN_PORT)');
    return undefined;
  }
  registerBuilderMetrics(registry, builderMetricsSources(db, store, runner));
  const services = adminServices(config, parts);
  const admin = await listenAdmin(createAdminApp({ token: config.adminToken, registry, health: () => ({ status: 'ok' }), log, services, console: adminConsole(services, log) }), {
    host: config.adminHost,
    port: config.adminPort,
  }).catch((error: unknown) => adminPortError(config, error));
  log.info(`admin API and console on ${admin.url}`, { admin: admin.url });
  return admin;
}

/** The process's metrics: Node's own (memory, event loop, CPU) and whatever each part registers. */
function processRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

function builderMetricsSources(db: SqlClient, store: SnapshotStore, runner: BuildRunner) {
  return { runs: runner.runs, store, organizationIds: async () => (await listOrganizations(db)).map((organization) => organization.id) };
}

/** What the admin API and the console of a builder (or start) work on. */
interface ControlParts {
  db: SqlClient;
  store: SnapshotStore;
  keys: KeyStore;
  runner: BuildRunner;
  webhooks: RunningWebhooks;
  log: Log;
}

function adminServices(config: Config, { db, store, keys, runner, webhooks, log }: ControlParts): AdminServices {
  return createAdminServices({
    db,
    store,
    keys,
    webhooks: webhookOperations(db, webhooks.store, config.webhooks, webhooks.wake),
    runs: runner.runs,
    builds: runner,
    onBuildError: (error) => log.error('manual build failed', { trigger: 'manual', err: error }),
  });
}

function adminConsole(services: AdminServices, log: Log): Router {
  return consoleRouter(services, { log });
}

/** A busy or forbidden admin address is the operator's to fix: the message names the variables. */
function adminPortError(config: Config, error: unknown): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    throw new OperatorError(`ADMIN_PORT ${config.adminPort} is already in use on ${config.adminHost}; stop what listens there or set ADMIN_PORT to a free port`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new OperatorError(`ADMIN_HOST ${config.adminHost} is not an address of this machine`);
  throw error;
}

function adminTokenFile(home: string): string {
  return join(home, 'admin-token');
}

/** start's admin token when ADMIN_TOKEN is unset: made once into MARQUEE_HOME/admin-token (0600), the same after a restart. */
async function startAdminToken(home: string): Promise<string> {
  const file = adminTokenFile(home);
  const saved = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (saved.length >= 16) return saved;
  const token = randomBytes(32).toString('hex');
  await writeFileAtomically(file, `${token}\n`, { fsync: true, mode: 0o600 });
  return token;
}

/** A path as the operator would type it from here. */
function shownPath(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown.startsWith('..') || isAbsolute(shown) ? path : shown;
}

/** Each changed organization is rebuilt; after the listener lost the database, everything is (what it missed is unknown). */
function followChanges(db: SqlClient, runner: BuildRunner): Promise<() => Promise<void>> {
  return listenForChanges(db, (organizationId) => runner.organizationChanged(organizationId), { onReconnect: () => runner.catchUp() });
}

/** The gateway on PORT; a port in use is the operator's to fix, so the message names the variable. */
async function listenOn(config: Config, deps: GatewayDeps): Promise<RunningGateway> {
  try {
    return await startGateway({ ...deps, port: config.port, trustProxy: config.trustProxy, timeouts: config.httpTimeouts });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new OperatorError(`PORT ${config.port} is already in use; stop what listens there or set PORT to a free port`);
    throw error;
  }
}

function onShutdown(log: Log, close: () => Promise<void>): void {
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    log.info(`${signal}: shutting down`, { signal });
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error('shutdown failed', { err: error });
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
