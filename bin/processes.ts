// The long-running commands: start (everything in one process), serve (gateway), builder. Each
// writes one log (bin/log.ts): the gateway's and the builder's events, and the process's own, in
// one format. Only start's banner (the address, the demo key and a curl line to try, the console's
// address) is printed as plain lines for the person who typed the command; the demo key and the
// admin token never go to the log. Each process has its own metrics Registry, served on its
// admin port (ADMIN_PORT): builder and start serve the admin API and console there too, serve
// only /healthz, /readyz and /metrics (docs/design.md "Admin API and console"). start and builder
// each run a builder process (bin/builder-process.ts), which opens and closes its parts in one
// order. Each process keeps one record of its backends' states (runtime/backend-states.ts), which
// its /readyz and its /metrics both read, and drains before it closes (bin/shutdown.ts).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import { createAdminApp } from '../admin/app.ts';
import { currentVersion, LATEST_SCHEMA_VERSION } from '../builder/platform/migrations.ts';
import type { SqlClient } from '../records/database/sql.ts';
import { migrateMarquee } from '../records/schema/migrate.ts';
import { openGatewayAccess } from '../gateway/access/access-backends.ts';
import type { GatewayDeps } from '../gateway/app.ts';
import { cacheBudgets } from '../gateway/cache-budget.ts';
import { gatewayMetrics } from '../gateway/metrics.ts';
import { registerBackendMetrics } from '../runtime/backend-metrics.ts';
import { BackendStates } from '../runtime/backend-states.ts';
import { ProcessReadiness } from '../runtime/readiness.ts';
import { type RunningGateway, startGateway } from '../gateway/server.ts';
import { OperatorError } from '../runtime/errors.ts';
import { writeFileAtomically } from '../runtime/files.ts';
import type { Log } from '../runtime/log.ts';
import { openPublishChannel } from '../snapshot/publish-channel-backends.ts';
import type { Registry } from 'prom-client';
import { listenAdminPort, processRegistry } from './admin-port.ts';
import { adminTokenFile } from './admin-token.ts';
import { openBuilderProcess } from './builder-process.ts';
import type { Config } from './config.ts';
import { createLog } from './log.ts';
import { line } from './output.ts';
import { demoKey, openStartDatabase } from './platform-setup.ts';
import { openDatabase, openSnapshotSource } from './services.ts';
import { describeStart, recordStart, runningStart } from './start-record.ts';
import { tightenEmbeddedDatabase, tightenHome } from './owner-only-home.ts';
import { ensureHome } from '../runtime/shared-state.ts';
import { actingAs } from '../admin/acting.ts';
import { cliRecorder, recordMigrations, systemAttribution } from './commands/trail.ts';
import { onShutdown } from './shutdown.ts';

export async function startCommand(config: Config, options: { sample?: boolean } = {}): Promise<void> {
  const log = await createLog({ format: config.logFormat });
  await besideAnotherStart(config, log);
  // Owner-only before anything in it is opened: the home holds the database, keys and secrets.
  await ensureHome(config.home);
  await tightenHome(config.home, log);
  const { db, sampleLoaded } = await openStartDatabase(config, log, options);
  if (config.databaseUrl === undefined) await tightenEmbeddedDatabase(config.home, log);
  const gatewayLog = log.child({ component: 'gateway' });
  // One Registry for both halves: the gateway's request metrics and the builder's; one readiness too.
  const registry = processRegistry();
  const readiness = processReadiness(registry);
  // The demo runs without configuration: a token is made for the admin port and kept beside the data.
  const token = config.adminToken ?? (await startAdminToken(config.home));
  const builder = await openBuilderProcess(config, db, {
    log: log.child({ component: 'builder' }),
    readiness,
    admin: { token, registry, log: log.child({ component: 'admin' }) },
    // One channel for both halves: the gateway hears this process's publishes, and with Redis every other gateway does too.
    gateway: async (build) => {
      const source = openSnapshotSource(config, build.store);
      const access = await openGatewayAccess(config, gatewayLog, cacheBudgets(config.gatewayCacheBytes), readiness.states);
      const running = await listenOn(
        config,
        { snapshots: source.source, ...access.deps, channel: build.channel, log: gatewayLog, metrics: gatewayMetrics(registry), readiness },
        LOOPBACK,
      );
      return {
        running,
        close: async () => {
          await Promise.all([access.close(), source.close()]);
        },
      };
    },
  });
  // Listening: a second start on this home can now name this one.
  const unrecord = await recordStart(config.home, { gateway: builder.gateway!.url, console: builder.admin!.url });
  // What changed since the last start, which is everything on the first.
  const results = await builder.run('start');

  // A demo key only for the sample data: never one nobody asked for on a real platform's database.
  const demo = await demoKey(config, { keys: builder.keys, db }, results, { create: sampleLoaded });
  const gatewayUrl = builder.gateway!.url;
  line(`gateway listening on ${gatewayUrl}${boundNote(builder.gateway!, ' ')}`);
  if (demo) {
    line(`demo key for ${demo.slug}: ${demo.key}`);
    line(`try: curl -s -H 'Authorization: Bearer ${demo.key}' ${gatewayUrl}/api/integration/v1/events`);
  }
  line(`console: ${builder.admin!.url}/ (user any, password: ${config.adminToken === undefined ? `the token in ${shownPath(adminTokenFile(config.home))}` : 'ADMIN_TOKEN'})`);
  onShutdown({
    log,
    readiness,
    gateway: builder.gateway,
    drainMs: config.shutdownDrainMs,
    close: async () => {
      await unrecord();
      await builder.close();
    },
  });
}

/**
 * A second start on a MARQUEE_HOME whose start runs. On the embedded database it is refused: that
 * database is one process's, served by it to the commands beside it (docs/design.md "What runs
 * where today"), and a second start would have been a second gateway and builder on it through the
 * first one's port, started without a word. On DATABASE_URL several builders are the design, so it
 * starts, saying which start it runs beside and what they share.
 */
async function besideAnotherStart(config: Config, log: Log): Promise<void> {
  const other = await runningStart(config.home);
  if (other === undefined) return;
  const where = `MARQUEE_HOME=${config.home}`;
  if (config.databaseUrl === undefined) {
    throw new OperatorError(
      `another marquee start is running on ${where}: ${describeStart(other)}; it holds the embedded database there and serves it to every other command. Use that one, stop it first, or give this start another MARQUEE_HOME (or DATABASE_URL, to run several)`,
    );
  }
  log.warn(
    `another marquee start is running on ${where}: ${describeStart(other)}; this one is a second gateway and builder beside it, on the same database, snapshot store and keys`,
    { otherPid: other.pid, otherGateway: other.gateway, otherConsole: other.console },
  );
}

export async function serveCommand(config: Config): Promise<void> {
  const log = (await createLog({ format: config.logFormat })).child({ component: 'gateway' });
  // The key file and the usage spool are kept in MARQUEE_HOME when there is no Redis.
  await tightenHome(config.home, log);
  // The gateway's request metrics, its backends' and Node's, on the admin port's /metrics.
  const registry = processRegistry();
  const readiness = processReadiness(registry);
  // Bound first and answering 503 "starting" until the gateway joins: /readyz here answers what the gateway's does.
  const admin = await listenAdminPort(config, createAdminApp({ token: config.adminToken, registry, readiness: () => readiness.report(), log }));
  if (config.adminToken === undefined) log.info(`ADMIN_TOKEN is not set: ${admin.url} answers /healthz and /readyz only, not /metrics`, { admin: admin.url });
  const source = openSnapshotSource(config, config.snapshotStore.open());
  const access = await openGatewayAccess(config, log, cacheBudgets(config.gatewayCacheBytes), readiness.states);
  // Without Redis there is no channel across processes: the gateway re-reads pointers older than a second.
  const channel = config.redisUrl === undefined ? undefined : openPublishChannel(config, log);
  // Every interface unless GATEWAY_HOST says otherwise: serve runs behind a load balancer.
  const gateway = await listenOn(
    config,
    { snapshots: source.source, ...access.deps, ...(channel ? { channel } : {}), log, metrics: gatewayMetrics(registry), readiness },
    undefined,
  );
  const store = config.snapshotStore.description;
  log.info(`gateway listening on ${gateway.url},${boundNote(gateway, ' ', ',')} serving snapshots from ${source.source.description}`, {
    url: gateway.url,
    address: gateway.address,
    store,
    admin: admin.url,
  });
  onShutdown({
    log,
    readiness,
    gateway,
    drainMs: config.shutdownDrainMs,
    close: async () => {
      await gateway.close();
      await Promise.all([access.close(), source.close(), channel?.close()]);
      // Last: /metrics and /readyz answer until the gateway has finished.
      await admin.close();
    },
  });
}

export async function builderCommand(config: Config): Promise<void> {
  const log = (await createLog({ format: config.logFormat })).child({ component: 'builder' });
  await tightenHome(config.home, log);
  const db = await openDatabase(config, { log });
  await versionedSource(db, log);
  // Only with ADMIN_TOKEN is there an admin port: the admin API, the console, /readyz and /metrics.
  const token = config.adminToken;
  const registry = token === undefined ? undefined : processRegistry();
  const readiness = processReadiness(registry);
  const builder = await openBuilderProcess(config, db, { log, readiness, admin: token === undefined || registry === undefined ? undefined : { token, registry, log } });
  const admin = builder.admin;
  if (admin) log.info(`admin API and console on ${admin.url}`, { admin: admin.url });
  else log.info('ADMIN_TOKEN is not set: the admin API, the console and /metrics are not served (set ADMIN_TOKEN to serve them on ADMIN_PORT)');
  // What changed since any builder last built into this store: a restart of the fleet rebuilds nothing that is current.
  await builder.run('schedule');
  log.info(`builder running: schedule "${config.buildSchedule}", listening for platform changes on ${db.description}, building into ${builder.store.description}`, {
    schedule: config.buildSchedule,
    database: db.description,
    store: builder.store.description,
    ...(admin ? { admin: admin.url } : {}),
  });
  onShutdown({ log, readiness, drainMs: config.shutdownDrainMs, close: () => builder.close() });
}

/** A process's readiness and the backend states it reads, their gauges on `registry` when the process serves /metrics. */
function processReadiness(registry: Registry | undefined): ProcessReadiness {
  const states = new BackendStates();
  if (registry !== undefined) registerBackendMetrics(registry, states);
  return new ProcessReadiness(states);
}

/**
 * Marquee's own relations, migrated (a platform of views never runs `db migrate`), each migration
 * this builder applied an entry of the audit trail by `system:builder`; a migrated platform still
 * on an older schema has change triggers that do not advance source versions, which the operator
 * is told how to fix.
 */
async function versionedSource(db: SqlClient, log: Log): Promise<void> {
  const own = await migrateMarquee(db);
  const recorder = cliRecorder(async () => db);
  await actingAs(systemAttribution('builder'), () => recordMigrations(recorder, { marquee: own.applied }));
  const version = await currentVersion(db);
  if (version > 0 && version < LATEST_SCHEMA_VERSION) {
    log.warn(
      `${db.description} is at schema version ${version}, this release's is ${LATEST_SCHEMA_VERSION}: its change triggers do not advance source versions, so a change whose notification is missed waits for the rolling verification (FULL_BUILD_EVERY); run \`marquee db migrate\``,
      { schemaVersion: version, latest: LATEST_SCHEMA_VERSION },
    );
  }
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

/** start's gateway without GATEWAY_HOST: a demo on one machine is not served to the network it is on (docs/design.md "Process model and configuration"). */
const LOOPBACK = '127.0.0.1';

/**
 * The gateway on GATEWAY_HOST:PORT, GATEWAY_HOST defaulting to the command's `defaultHost`
 * (undefined: every interface); a port in use or an address this machine does not have is the
 * operator's to fix, so the message names the variable.
 */
async function listenOn(config: Config, deps: GatewayDeps, defaultHost: string | undefined): Promise<RunningGateway> {
  const host = config.gatewayHost ?? defaultHost;
  try {
    return await startGateway({
      ...deps,
      ...(host === undefined ? {} : { host }),
      port: config.port,
      trustProxy: config.trustProxy,
      timeouts: config.httpTimeouts,
      limits: { cacheBytes: config.gatewayCacheBytes, pinWindowMs: config.snapshotPinMs, usageMoveMs: config.usageMoveMs },
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const on = host === undefined ? '' : ` on ${host}`;
    if (code === 'EADDRINUSE') throw new OperatorError(`PORT ${config.port} is already in use${on}; stop what listens there or set PORT to a free port`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new OperatorError(`GATEWAY_HOST ${host} is not an address of this machine`);
    throw error;
  }
}

/** What the printed address does not say of a gateway bound to every interface (0.0.0.0 or ::); '' otherwise. */
function boundNote(running: RunningGateway, before: string, after = ''): string {
  return running.everyInterface ? `${before}on every interface (${running.address})${after}` : '';
}
