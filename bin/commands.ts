// The one-shot commands of docs/design.md's command table.
import { auditStore } from '../builder/audit.ts';
import { buildOrganizations, type OrganizationResult } from '../builder/build.ts';
import { diffSnapshots, snapshotHistory } from '../builder/history.ts';
import { migrate } from '../builder/platform/migrations.ts';
import { seedSample } from '../builder/platform/sample.ts';
import { applyRetention } from '../builder/retention.ts';
import { createKey, listKeys, revokeKey } from '../gateway/keys/key-admin.ts';
import { EXIT_USAGE, OperatorError } from '../snapshot/errors.ts';
import { isUuid } from '../snapshot/layout.ts';
import { type Config, describeStore } from './config.ts';
import { createLog } from './log.ts';
import { line, printJson, progressReporter } from './output.ts';
import { openBuildServices, openStore, organizationNamed, platformSource, withDatabase, withKeyStore } from './services.ts';

export async function buildCommand(config: Config, options: { org: string[]; json?: boolean }): Promise<void> {
  const results = await withDatabase(config, async (db) => {
    const ids = [];
    for (const name of options.org) ids.push((await organizationNamed(db, name)).id);
    const progress = progressReporter(true);
    // Warnings of the parts a build talks to (Redis, CloudFront) go to stderr: stdout is the command's output.
    const services = openBuildServices(config, await createLog({ format: config.logFormat, destination: 2 }));
    try {
      return await buildOrganizations(services.context(platformSource(db)), {
        trigger: 'manual',
        ...(ids.length > 0 ? { organizationIds: ids } : {}),
        onProgress: (done, total, last) => {
          progress.update(done, total);
          if (!options.json && !process.stderr.isTTY) line(describeResult(last));
        },
      });
    } finally {
      progress.finish();
      await services.close();
    }
  });
  if (options.json) {
    printJson({ organizations: results.map(({ objectsWritten: _written, failure: _failure, ...result }) => result) });
  } else {
    if (process.stderr.isTTY) for (const result of results) line(describeResult(result));
    const count = (r: OrganizationResult['result']) => results.filter((x) => x.result === r).length;
    line(
      `${results.length} organizations: ${count('published')} published, ${count('unchanged')} unchanged, ${count('suspended')} suspended, ${count('failed')} failed; snapshots in ${describeStore(config.snapshotStore)}`,
    );
  }
  if (results.some((r) => r.result === 'failed')) process.exitCode = 1;
}

function describeResult(result: OrganizationResult): string {
  const what = result.result === 'failed' ? `failed: ${result.error}` : result.result;
  const snapshot = result.snapshotId ? ` ${result.snapshotId}` : '';
  return `${result.slug} (${result.id}): ${what}${snapshot}`;
}

export async function dbMigrateCommand(config: Config): Promise<void> {
  await withDatabase(config, async (db) => {
    const result = await migrate(db);
    line(`${db.description}: schema at version ${result.version}${result.applied.length ? ` (applied ${result.applied.join(', ')})` : ' (already up to date)'}`);
  });
}

export async function dbSeedCommand(config: Config, options: { sample?: boolean }): Promise<void> {
  if (!options.sample) throw new OperatorError('say what to seed: marquee db seed --sample', { exitCode: EXIT_USAGE });
  await withDatabase(config, async (db) => {
    const result = await seedSample(db, { now: new Date() });
    line(
      result.seeded
        ? `${db.description}: sample data loaded (${result.organizations.map((o) => o.slug).join(', ')})`
        : `${db.description}: already has organizations; sample not loaded`,
    );
  });
}

export async function keysCreateCommand(config: Config, options: { org: string; origin: string[]; label?: string; json?: boolean }): Promise<void> {
  const org = await withDatabase(config, (db) => organizationNamed(db, options.org));
  const created = await withKeyStore(config, (keys) => createKey(keys, { organizationId: org.id, origins: options.origin, label: options.label ?? null }));
  if (options.json) return printJson(created);
  line(`key ${created.id} for ${org.slug} (${org.id})`);
  line(`origins: ${created.origins.length ? created.origins.join(' ') : '(none: server-side use only)'}`);
  line(`secret (shown once, store it now): ${created.key}`);
}

export async function keysRevokeCommand(config: Config, id: string): Promise<void> {
  await withKeyStore(config, (keys) => revokeKey(keys, id));
  line(`key ${id} revoked; refused from the next request on`);
}

export async function keysListCommand(config: Config, options: { org?: string; json?: boolean }): Promise<void> {
  const orgId = options.org ? await organizationId(config, options.org) : undefined;
  const keys = await withKeyStore(config, (store) => listKeys(store, orgId));
  if (options.json) return printJson(keys);
  for (const key of keys) {
    line(`${key.id}  ${key.organizationId}  ${key.revokedAt ? `revoked ${key.revokedAt}` : 'active'}  ${key.label ?? ''}  ${key.origins.join(' ')}`);
  }
}

export async function historyCommand(config: Config, options: { org: string; json?: boolean }): Promise<void> {
  const orgId = await organizationId(config, options.org);
  const history = await snapshotHistory(openStore(config), orgId);
  if (options.json) return printJson(history.map(({ current: _current, ...entry }) => entry));
  if (history.length === 0) line(`organization ${orgId} has no snapshots in ${describeStore(config.snapshotStore)}`);
  for (const entry of history) {
    line(`${entry.snapshotId}  ${entry.publishedAt}  ${entry.trigger.padEnd(8)}  ${entry.resources} resources${entry.current ? '  (current)' : ''}`);
  }
}

export async function diffCommand(config: Config, options: { org: string; from: string; to: string; json?: boolean }): Promise<void> {
  const orgId = await organizationId(config, options.org);
  const diff = await diffSnapshots(openStore(config), orgId, options.from, options.to);
  if (options.json) return printJson(diff);
  for (const path of diff.added) line(`+ ${path}`);
  for (const path of diff.removed) line(`- ${path}`);
  for (const change of diff.changed) {
    line(`~ ${change.path}`);
    for (const op of change.patch) line(`    ${op.op} ${op.path}${'value' in op ? ` ${JSON.stringify(op.value)}` : ''}`);
  }
  if (!diff.added.length && !diff.removed.length && !diff.changed.length) line('no differences');
}

export async function gcCommand(config: Config, options: { keep: number; graceMinutes: number }): Promise<void> {
  const report = await applyRetention(openStore(config), options);
  line(
    `${report.organizations} organizations: ${report.manifestsDeleted} snapshots and ${report.objectsDeleted} objects deleted (kept the newest ${options.keep}); ` +
      `${report.objectsSpared} unreferenced objects younger than ${options.graceMinutes} minutes spared; ${report.interruptedWritesDeleted} interrupted writes removed`,
  );
}

export async function auditCommand(config: Config, options: { graceMinutes: number; json?: boolean }): Promise<void> {
  const report = await auditStore(openStore(config), { graceMinutes: options.graceMinutes });
  if (options.json) printJson(report);
  else {
    for (const f of report.findings) line(`${f.organizationId} ${f.kind}${f.path ? ` ${f.path}` : ''}${f.object ? ` ${f.object}` : ''}: ${f.detail}`);
    line(`${report.organizations} organizations, ${report.objects} objects: ${report.findings.length} findings in ${describeStore(config.snapshotStore)}`);
  }
  if (report.findings.length > 0) process.exitCode = 1;
}

/** Auditors may hold only the store: an id needs no database; a slug is looked up in it. */
async function organizationId(config: Config, idOrSlug: string): Promise<string> {
  if (isUuid(idOrSlug)) return idOrSlug.toLowerCase();
  return (await withDatabase(config, (db) => organizationNamed(db, idOrSlug))).id;
}
