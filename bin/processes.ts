// The long-running commands: start (everything in one process), serve (gateway), builder.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OrganizationResult } from '../builder/build.ts';
import { listenForChanges } from '../builder/platform/changes.ts';
import { migrate } from '../builder/platform/migrations.ts';
import { seedSample } from '../builder/platform/sample.ts';
import type { SqlClient } from '../builder/platform/sql.ts';
import { BuildRunner } from '../builder/runner.ts';
import type { GatewayDeps } from '../gateway/app.ts';
import { startGateway, type RunningGateway } from '../gateway/server.ts';
import { parseKey } from '../gateway/keys/format.ts';
import type { FileKeyStore } from '../gateway/keys/file-store.ts';
import { createKey } from '../gateway/keys/commands.ts';
import { InProcessChannel, type PublishChannel } from '../snapshot/notifications.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import type { Config } from './config.ts';
import { OperatorError } from '../snapshot/errors.ts';
import { line } from './output.ts';
import { buildContext, openDatabase, openKeyStore, openStore, platformSource } from './services.ts';

export async function startCommand(config: Config): Promise<void> {
  const db = await openDatabase(config);
  const migration = await migrate(db);
  if (migration.applied.length > 0) line(`platform database ${db.description}: created (schema version ${migration.version})`);
  const seeded = await seedSample(db, { now: new Date() });
  if (seeded.seeded) line(`sample data loaded: ${seeded.organizations.map((o) => o.slug).join(', ')}`);

  const store = openStore(config);
  const channel = new InProcessChannel();
  const keys = openKeyStore(config);
  // Bind before building: a port in use is known at once, not after a full build.
  const gateway = await listenOn(config, { snapshots: store, keys, channel });
  const runner = startBuilder(config, db, store, channel);
  const results = await runner.build('start');
  line(`built ${results.length} organizations into ${config.snapshotStore} (${summarize(results)})`);
  const unlisten = await listenForChanges(db, (orgId) => runner.organizationChanged(orgId));
  runner.schedule(config.buildSchedule);

  const demo = await demoKey(config, keys, results);
  line(`gateway listening on ${gateway.url}`);
  if (demo) {
    line(`demo key for ${demo.slug}: ${demo.key}`);
    line(`try: curl -s -H 'Authorization: Bearer ${demo.key}' ${gateway.url}/api/integration/v1/events`);
  }
  onShutdown(async () => {
    await unlisten();
    await runner.stop();
    await gateway.close();
    await db.close();
  });
}

export async function serveCommand(config: Config): Promise<void> {
  const gateway = await listenOn(config, { snapshots: openStore(config), keys: openKeyStore(config) });
  line(`gateway listening on ${gateway.url}, serving snapshots from ${config.snapshotStore}`);
  onShutdown(() => gateway.close());
}

export async function builderCommand(config: Config): Promise<void> {
  const db = await openDatabase(config);
  const runner = startBuilder(config, db, openStore(config));
  const results = await runner.build('schedule');
  line(`built ${results.length} organizations into ${config.snapshotStore} (${summarize(results)})`);
  const unlisten = await listenForChanges(db, (orgId) => runner.organizationChanged(orgId));
  runner.schedule(config.buildSchedule);
  line(`builder running: schedule "${config.buildSchedule}", listening for platform changes on ${db.description}`);
  onShutdown(async () => {
    await unlisten();
    await runner.stop();
    await db.close();
  });
}

/** The gateway on PORT; a port in use is the operator's to fix, so the message names the variable. */
async function listenOn(config: Config, deps: GatewayDeps): Promise<RunningGateway> {
  try {
    return await startGateway({ ...deps, port: config.port, trustProxy: config.trustProxy });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new OperatorError(`PORT ${config.port} is already in use; stop what listens there or set PORT to a free port`);
    throw error;
  }
}

function startBuilder(config: Config, db: SqlClient, store: SnapshotStore, channel?: PublishChannel): BuildRunner {
  return new BuildRunner(buildContext(config, platformSource(db), store, channel), {
    onResults: (trigger, results) => {
      for (const result of results) {
        if (result.result === 'failed') line(`build (${trigger}) ${result.slug} (${result.id}) failed: ${result.error}`);
        else if (trigger !== 'start' && result.result !== 'unchanged') line(`build (${trigger}) ${result.slug}: ${result.result} ${result.snapshotId ?? ''}`);
      }
    },
    onError: (error) => line(`build failed: ${error instanceof Error ? error.message : String(error)}`),
  });
}

function summarize(results: OrganizationResult[]): string {
  const counts = new Map<string, number>();
  for (const result of results) counts.set(result.result, (counts.get(result.result) ?? 0) + 1);
  return [...counts].map(([result, count]) => `${count} ${result}`).join(', ') || 'nothing to build';
}

/**
 * The demo prints a key that works as printed. Its secret is kept in MARQUEE_HOME (the embedded
 * demo only) so that a restart prints the same key instead of piling up new ones.
 */
async function demoKey(config: Config, keys: FileKeyStore, results: OrganizationResult[]): Promise<{ key: string; slug: string } | undefined> {
  const organization = results.filter((r) => r.result === 'published' || r.result === 'unchanged').sort((a, b) => (a.slug < b.slug ? -1 : 1))[0];
  if (!organization) return undefined;
  const file = join(config.home, 'demo-key.json');
  const saved = await readFile(file, 'utf8').then((text) => JSON.parse(text) as { key: string; slug: string }, () => undefined);
  if (saved) {
    const parsed = parseKey(saved.key);
    const record = parsed.valid ? await keys.findBySecretHash(parsed.secretHash) : undefined;
    if (record && !record.revokedAt) return saved;
  }
  const created = await createKey(keys, { organizationId: organization.id, origins: [], label: 'demo (npm start)' });
  const demo = { key: created.key, slug: organization.slug };
  await writeFile(file, JSON.stringify(demo), { mode: 0o600 });
  return demo;
}

function onShutdown(close: () => Promise<void>): void {
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    line(`${signal}: shutting down`);
    close().then(() => process.exit(0), (error: unknown) => {
      process.stderr.write(`marquee: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
