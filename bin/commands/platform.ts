// The platform commands of docs/design.md's command table: build now, and the database's schema and sample data.
import { cliActor } from '../../records/actor.ts';
import { buildOrganizations, type OrganizationResult } from '../../builder/build.ts';
import { BuildRuns } from '../../builder/runs/build-runs.ts';
import { DatabaseRunRecord, recordWarnings } from '../../records/runs/run-record.ts';
import { runResult } from '../../builder/runs/run-share.ts';
import { describeError } from '../../runtime/errors.ts';
import { migrate } from '../../builder/platform/migrations.ts';
import { migrateMarquee } from '../../records/schema/migrate.ts';
import { webhookOutbox } from '../../builder/webhooks/webhook-service.ts';
import { seedSample } from '../../builder/platform/sample.ts';
import { UsageError } from '../usage.ts';
import type { Config } from '../config.ts';
import { createLog } from '../log.ts';
import { line, printJson, progressReporter } from '../output.ts';
import { findOrganization } from '../../builder/platform/organizations.ts';
import { openBuildServices, platformSource, withDatabase } from '../services.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import { cliRecorder, recordedWork } from './trail.ts';
import { adminTokenSecrets } from '../admin-token.ts';

export async function buildCommand(config: Config, options: { org: string[]; json?: boolean }): Promise<void> {
  const { runId, results } = await withDatabase(config, (db) =>
    recordedWork(
      cliRecorder(async () => db),
      { action: 'build.requested', organization: options.org.length === 1 ? options.org[0] : null, changes: { organizations: options.org } },
      () => build(config, db, options),
      ({ runId, results }) => {
        const failed = results.filter((result) => result.result === 'failed').length;
        return { targetId: runId, ...(failed > 0 ? { failure: `${failed} of ${results.length} organizations failed` } : {}) };
      },
    ),
  );
  if (options.json) {
    printJson({ runId, organizations: results.map(({ objectsWritten: _written, failure: _failure, warning: _warning, ...result }) => result) });
  } else {
    if (process.stderr.isTTY) for (const result of results) line(describeResult(result));
    const count = (r: OrganizationResult['result']) => results.filter((x) => x.result === r).length;
    line(
      `${results.length} organizations: ${count('published')} published, ${count('unchanged')} unchanged, ${count('suspended')} suspended, ${count('failed')} failed; snapshots in ${config.snapshotStore.description}; run ${runId}`,
    );
  }
  if (results.some((r) => r.result === 'failed')) process.exitCode = 1;
}

async function build(config: Config, db: SqlClient, options: { org: string[]; json?: boolean }): Promise<{ runId: string; results: OrganizationResult[] }> {
  const ids = [];
  for (const name of options.org) ids.push((await findOrganization(db, name)).id);
  const progress = progressReporter(true);
  await migrateMarquee(db);
  // Warnings of the parts a build talks to (Redis, CloudFront) go to stderr: stdout is the command's output.
  const log = await createLog({ format: config.logFormat, destination: 2 });
  const services = openBuildServices(config, log);
  // A run like any builder's, recorded with who asked for it: the builders' admin API and console list it.
  const runs = new BuildRuns({ record: new DatabaseRunRecord(db), onRecordError: recordWarnings(log) });
  const run = runs.queued('manual', ids.length > 0 ? ids : 'every', cliActor().name);
  runs.started(run.id);
  try {
    // Its publishes queue their webhook messages; the builders (or start) deliver them.
    const results = await buildOrganizations(services.context(platformSource(db), db, webhookOutbox(db)), {
      trigger: 'manual',
      ...(ids.length > 0 ? { organizationIds: ids } : {}),
      onListed: (total) => runs.listed(run.id, total),
      onProgress: (done, total, last) => {
        runs.progressed(run.id, done, [runResult(last, config.builderName)]);
        progress.update(done, total);
        if (!options.json && !process.stderr.isTTY) line(describeResult(last));
      },
    });
    runs.finished(run.id);
    return { runId: run.id, results };
  } catch (error) {
    runs.finished(run.id, { error: describeError(error) });
    throw error;
  } finally {
    progress.finish();
    await runs.flush();
    await services.close();
  }
}

function describeResult(result: OrganizationResult): string {
  const what = result.result === 'failed' ? `failed: ${result.error}` : result.warning ? `${result.result}, but ${result.warning}` : result.result;
  const snapshot = result.snapshotId ? ` ${result.snapshotId}` : '';
  return `${result.slug} (${result.id}): ${what}${snapshot}`;
}

export async function dbMigrateCommand(config: Config): Promise<void> {
  await withDatabase(
    config,
    (db) =>
      recordedWork(
        cliRecorder(async () => db),
        { action: 'db.migrated' },
        async () => {
          const own = await migrateMarquee(db);
          line(
            `${db.description}: Marquee's relations in schema "${db.marqueeSchema}" at migration ${own.latest}${own.applied.length ? ` (applied ${own.applied.join(', ')})` : ' (already up to date)'}`,
          );
          const platform = await migrate(db);
          line(`${db.description}: schema at version ${platform.version}${platform.applied.length ? ` (applied ${platform.applied.join(', ')})` : ' (already up to date)'}`);
          return { own, platform };
        },
        ({ own, platform }) => ({ changes: { marqueeMigrationsApplied: own.applied, platformVersionsApplied: platform.applied } }),
      ),
    // The one command besides start that makes an embedded database where there is none.
    { relations: 'any', create: true },
  );
}

export async function dbSeedCommand(config: Config, options: { sample?: boolean }): Promise<void> {
  if (!options.sample) throw new UsageError('say what to seed: marquee db seed --sample');
  await withDatabase(config, async (db) => {
    const result = await recordedWork(
      cliRecorder(async () => db),
      { action: 'db.seeded', changes: { sample: true } },
      () => seedSample(db, { now: new Date() }),
      (seeded) => ({ changes: { seeded: seeded.seeded } }),
    );
    line(
      result.seeded
        ? `${db.description}: sample data loaded (${result.organizations.map((o) => o.slug).join(', ')})`
        : `${db.description}: already has organizations; sample not loaded`,
    );
  });
}

/** The commands whose tag counts the rows they changed. */
const CHANGING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * For the demo and for operators of the embedded database, which has no other client: the rows,
 * and for a statement that changes rows how many it changed, as psql's `UPDATE 0` says — an UPDATE
 * whose WHERE matched nothing must not read as one that did something.
 */
export async function dbSqlCommand(config: Config, statement: string, options: { json?: boolean }): Promise<void> {
  // The statement is recorded as given, whether it changes anything or not, but for the secrets it
  // quotes: ADMIN_TOKEN as [ADMIN_TOKEN], Marquee's own (mqk_, mqa_, whsec_) by their kind.
  const known = await adminTokenSecrets(config);
  const outcome = await withDatabase(
    config,
    (db) =>
      recordedWork(
        cliRecorder(async () => db, known),
        { action: 'db.sql', changes: { statement } },
        () => db.statement(statement),
      ),
    { relations: 'any' },
  );
  const { rows, command, rowCount } = outcome;
  if (options.json) return printJson(rows);
  for (const row of rows)
    line(
      Object.entries(row)
        .map(([column, value]) => `${column}=${value === null ? 'null' : String(value)}`)
        .join('  '),
    );
  if (command !== null && rowCount !== null && CHANGING.has(command))
    line(`${command} ${rowCount}: ${rowCount === 0 ? 'no rows' : rowCount === 1 ? '1 row' : `${rowCount} rows`} changed`);
  else line(rows.length === 0 ? 'done; the statement returned no rows' : `${rows.length} rows`);
}
