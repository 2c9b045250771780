// The auditors' and the store's commands: history, diff, show (as of an instant), retention, audit.
import { auditStore } from '../../builder/history/audit.ts';
import { diffLines } from '../../builder/history/diff-text.ts';
import { diffJson, historyJson, snapshotOperations } from '../../admin/snapshot-admin.ts';
import { answerAsOf } from '../../gateway/as-of.ts';
import { describeError, OperatorError } from '../../runtime/errors.ts';
import type { OrganizationState } from '../../snapshot/manifest.ts';
import { applyRetention } from '../../builder/retention.ts';
import { assertStoreReadable, describeVerification, verifyInStore, verifyStore } from '../../builder/history/verify-history.ts';
import { checkSinceCheckpoint } from '../../builder/history/since-checkpoint.ts';
import { keptCheckpoint } from './publication-log.ts';
import { databaseBasis, STORE_ONLY_AGAINST, type VerificationBasis } from '../../builder/history/verification-expectations.ts';
import { neverPublished, summaryText, verificationReport, verificationSummary } from '../../builder/history/verification-report.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';
import { resolve } from 'node:path';
import { createSigningKeyFile, groupIdOf, loadSigner } from '../signing-key.ts';
import type { Config } from '../config.ts';
import { line, printJson } from '../output.ts';
import { openDatabase, organizationId } from '../services.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import { databasePublicationLog, type PublicationLog } from '../../records/publication-log/log-store.ts';
import { inclusionSources, type ManifestInclusion, manifestInclusion } from '../../records/publication-log/answer-inclusion.ts';
import type { AsOfAnswer } from '../../snapshot/as-of-answer.ts';

export async function historyCommand(config: Config, options: { org: string; json?: boolean }): Promise<void> {
  const orgId = await organizationId(config, options.org);
  const history = await snapshots(config).history(orgId);
  if (options.json) return printJson(historyJson(history));
  if (history.length === 0) line(`organization ${orgId} has no snapshots in ${config.snapshotStore.description}`);
  for (const entry of history) {
    const what = 'state' in entry ? `${STATE_CHANGE[entry.state].padEnd(31)}` : entry.snapshotId;
    const detail = 'state' in entry ? STATE_DETAIL[entry.state] : `${entry.resources} resources`;
    line(`${what}  ${entry.publishedAt}  ${entry.trigger.padEnd(8)}  ${detail}${entry.current ? '  (current)' : ''}`);
  }
}

const STATE_CHANGE: Record<OrganizationState, string> = { active: 'reactivated', suspended: 'suspended', closed: 'closed' };
const STATE_DETAIL: Record<OrganizationState, string> = {
  active: 'the API serves the snapshot published then',
  suspended: 'the API answers 403 ORGANIZATION_SUSPENDED',
  closed: 'the API answers 403 ORGANIZATION_SUSPENDED',
};

export async function diffCommand(config: Config, options: { org: string; from?: string | undefined; to?: string | undefined; since?: Date; json?: boolean }): Promise<void> {
  const operations = snapshots(config);
  let [from, to] = [options.from ?? '', options.to ?? 'current'];
  if (options.since !== undefined) {
    const then = await operations.snapshotAt(options.org, options.since);
    if (then === null)
      throw new NothingPublishedThenError(
        `organization ${options.org} had no snapshot current at ${options.since.toISOString()} (nothing published yet, suspended or closed then, or pruned)`,
      );
    from = then;
    if (!options.json) line(`from ${then} (current at ${options.since.toISOString()}) to the current snapshot`);
  }
  const diff = await operations.diff(options.org, from, to);
  if (options.json) return printJson(diffJson(diff));
  for (const text of diffLines(diff)) line(text);
}

/** The auditors' operations over the store alone: an id needs no database (bin/services.ts organizationId). */
function snapshots(config: Config, store: SnapshotStore = config.snapshotStore.open()) {
  return snapshotOperations(store, (idOrSlug) => organizationId(config, idOrSlug), answerAsOf);
}

export async function gcCommand(
  config: Config,
  options: { keep?: number; days?: number; graceMinutes: number; dryRun?: boolean; storeOnly?: boolean; json?: boolean },
): Promise<void> {
  const keep = options.keep ?? config.retention.keep;
  const days = options.days ?? config.retention.days;
  const store = config.snapshotStore.open();
  const retention = { keep, days, graceMinutes: options.graceMinutes, dryRun: options.dryRun ?? false };
  // A removal is logged before it is made (builder/retention.ts), so verify knows it from a removed
  // publication; a dry run removes nothing, and --store-only prunes with no log at all.
  const report =
    options.dryRun || options.storeOnly
      ? await applyRetention(store, retention)
      : await withLog(config, (publicationLog) => applyRetention(store, { ...retention, publicationLog }));
  if (options.storeOnly && !report.dryRun && report.manifestsDeleted + report.stateRecordsDeleted > 0)
    process.stderr.write('marquee: pruned with --store-only: the publication log does not record these removals, and verify reports each as a publication missing\n');
  if (options.json) return printJson(report);
  const verb = report.dryRun ? 'would be deleted' : 'deleted';
  for (const org of report.deleted) {
    line(`${org.organizationId}: ${org.snapshots.length} snapshots, ${org.stateRecords.length} state records and ${org.objects} objects ${verb}`);
    for (const id of org.snapshots) line(`  snapshot ${id}`);
  }
  line(
    `${report.organizations} organizations: ${report.manifestsDeleted} snapshots, ${report.stateRecordsDeleted} state records and ${report.objectsDeleted} objects ${verb} ` +
      `(kept everything younger than ${days} days, at least the newest ${keep}, and the current snapshot); ` +
      `${report.objectsSpared} unreferenced objects younger than ${options.graceMinutes} minutes spared` +
      (report.interruptedWritesDeleted === null ? '' : `; ${report.interruptedWritesDeleted} interrupted writes removed`),
  );
}

/** `work` with the platform database's publication log; without the database (or its log), the reason and --store-only. */
async function withLog<T>(config: Config, work: (log: PublicationLog) => Promise<T>): Promise<T> {
  const hint = 'gc logs every removal in the publication log, so that verify tells a pruned snapshot from a removed one: give --store-only to prune without it';
  let db: SqlClient;
  try {
    db = await openDatabase(config);
  } catch (error) {
    throw new OperatorError(`${describeError(error)}; ${hint}`, { cause: error, exitCode: error instanceof OperatorError ? error.exitCode : undefined });
  }
  try {
    if (!(await holdsPublicationLog(db)))
      throw new OperatorError(`no publication log in ${db.description} (its migration is not applied: run marquee db migrate, or a build); ${hint}`);
    return await work(databasePublicationLog(db));
  } finally {
    await db.close();
  }
}

/** Whether the database holds the publication log: its migration (10) may not be applied yet. */
async function holdsPublicationLog(db: SqlClient): Promise<boolean> {
  const [log] = await db.query<{ present: boolean }>(`SELECT to_regclass('marquee_publication_log') IS NOT NULL AS present`);
  return log?.present === true;
}

/**
 * `show --evidence`'s proof that the manifest behind the answer is in the publication log the
 * store's newest checkpoint signs (records/publication-log/answer-inclusion.ts, as the admin API's
 * inclusion route). The rest of the evidence stands on the store alone, so a log that cannot be
 * read is said in inclusionReason, as a manifest older than the log is, rather than failing.
 */
async function answerInclusion(config: Config, store: SnapshotStore, organizationId: string, answer: AsOfAnswer): Promise<ManifestInclusion> {
  const none = (inclusionReason: string): ManifestInclusion => ({ inclusion: null, inclusionReason });
  const { snapshotId } = answer;
  const { manifestHash } = answer.evidence;
  if (snapshotId === null || manifestHash === null) return none(`no manifest decided this answer: the organization was ${answer.state} then`);
  let db: SqlClient;
  try {
    db = await openDatabase(config);
  } catch (error) {
    return none(`the publication log, in the platform database, cannot be read: ${describeError(error)}`);
  }
  try {
    if (!(await holdsPublicationLog(db))) return none(`no publication log in ${db.description} (its migration is not applied: run marquee db migrate, or a build)`);
    return await manifestInclusion(inclusionSources(store, databasePublicationLog(db)), { organizationId, snapshotId, manifestHash });
  } finally {
    await db.close();
  }
}

/** `show` of an instant for which the store holds no snapshot of the organization. */
class NothingPublishedThenError extends OperatorError {
  override name = 'NothingPublishedThenError';
}

export async function showCommand(config: Config, options: { org: string; at: Date; path: string; evidence?: boolean }): Promise<void> {
  const orgId = await organizationId(config, options.org);
  const store = config.snapshotStore.open();
  const operations = snapshots(config, store);
  const answer = await operations.asOf(orgId, options.at, options.path);
  if (answer.state === null) {
    const oldest = (await operations.history(orgId)).reverse().find((entry) => !('state' in entry));
    throw new NothingPublishedThenError(
      `organization ${orgId} had no snapshot at ${options.at.toISOString()} in ${config.snapshotStore.description}` +
        (oldest ? `: its oldest retained snapshot is ${oldest.snapshotId}, published ${oldest.publishedAt}` : ': it has none'),
    );
  }
  if (options.evidence) {
    printJson({
      organizationId: orgId,
      at: options.at.toISOString(),
      path: options.path,
      status: answer.status,
      snapshotId: answer.snapshotId,
      state: answer.state,
      manifestHash: answer.evidence.manifestHash,
      signature: answer.evidence.signature,
      etag: answer.evidence.etag,
      ...(await answerInclusion(config, store, orgId, answer)),
      body: answer.body,
    });
  } else printJson(answer.body);
  if (answer.status < 200 || answer.status > 299) {
    process.stderr.write(`marquee: the API answered ${answer.status} at ${options.at.toISOString()}${answer.state === 'active' ? '' : ` (organization ${answer.state})`}\n`);
    process.exitCode = 1;
  }
}

export async function auditCommand(config: Config, options: { graceMinutes: number; storeOnly?: boolean; json?: boolean }): Promise<void> {
  const store = config.snapshotStore.open();
  await assertStoreReadable(store);
  const { report, against } = await withExpectations(config, store, options, async ({ expected, against }) => ({
    report: await auditStore(store, { graceMinutes: options.graceMinutes, ...(expected ? { expected } : {}) }),
    against,
  }));
  if (options.json) printJson(report);
  else {
    for (const f of report.findings) line(`${f.organizationId} ${f.kind}${f.path ? ` ${f.path}` : ''}${f.object ? ` ${f.object}` : ''}: ${f.detail}`);
    line(`${report.organizations} organizations, ${report.objects} objects: ${report.findings.length} findings in ${store.description}; checked against ${against}`);
  }
  if (report.findings.length > 0) process.exitCode = 1;
}

/**
 * Runs `work` (verify's, audit's) on what the store is checked against: what the platform database
 * says must be in it (builder/history/verification-expectations.ts, which the admin port's
 * verifications share), and with --org, the organization it names. With --store-only, the store
 * alone (an auditor who holds only the store): an organization whose history was removed whole
 * then reads as one never published, which `against` says. The database stays open until `work`
 * is done: the publication log, read before any organization's turn, is read again for an
 * organization before a break a publication since would explain is told (verify-history.ts `again`).
 */
async function withExpectations<T>(
  config: Config,
  store: SnapshotStore,
  options: { org?: string | undefined; storeOnly?: boolean | undefined; since?: string | undefined },
  work: (basis: VerificationBasis) => Promise<T>,
): Promise<T> {
  if (options.storeOnly) {
    const orgId = options.org === undefined ? undefined : await organizationId(config, options.org);
    return work({ expected: undefined, orgId, against: STORE_ONLY_AGAINST });
  }
  let db: SqlClient;
  try {
    db = await openDatabase(config);
  } catch (error) {
    throw new OperatorError(
      `${describeError(error)}; the platform database says which organizations must have a history in the store: give --store-only to check the store alone`,
      {
        cause: error,
        exitCode: error instanceof OperatorError ? error.exitCode : undefined,
      },
    );
  }
  try {
    if (options.since === undefined) return await work(await databaseBasis(db, store, options.org));
    // A kept checkpoint the log no longer extends is the answer, before any history is read.
    const { keptSize } = await checkSinceCheckpoint(store, databasePublicationLog(db), await keptCheckpoint(config, options.since));
    return await work(await databaseBasis(db, store, options.org, keptSize));
  } finally {
    await db.close();
  }
}

export async function verifyCommand(config: Config, options: { org?: string; all?: boolean; storeOnly?: boolean; since?: string; json?: boolean }): Promise<void> {
  const store = config.snapshotStore.open();
  // The store first: pointed at the wrong MARQUEE_HOME, it is what the operator must hear of.
  await assertStoreReadable(store);
  const { expected, against, verifications } = await withExpectations(config, store, options, async ({ expected, orgId, against }) => ({
    expected,
    against,
    verifications: options.all ? (await verifyStore(store, expected)).organizations : [await verifyInStore(store, orgId!, expected?.get(orgId!) ?? [])],
  }));
  const report = verificationReport(store, against, verifications);
  if (options.json) {
    printJson(report);
  } else {
    for (const verification of verifications) {
      if (options.all && verification.ok) continue;
      const unpublished = neverPublished(verification) ? (expected ? ' (the platform database records no build of it into this store)' : ` (checked against ${against})`) : '';
      line(`${describeVerification(verification)}${unpublished}`);
    }
    if (options.all) line(`${summaryText(verificationSummary(verifications))} in ${store.description}; checked against ${against}`);
  }
  if (!report.ok) process.exitCode = 1;
}

export async function signingKeyCreateCommand(file: string, options: { group?: string } = {}): Promise<void> {
  const path = resolve(file);
  const groupId = options.group === undefined ? undefined : groupIdOf(options.group);
  if (createSigningKeyFile(path, { exclusive: true, ...(groupId === undefined ? {} : { groupId }) }) === undefined)
    throw new OperatorError(`${path} exists: a signing key is never overwritten (remove it first, or choose another file)`);
  const signer = loadSigner({ signingKey: { file: path, generate: false } });
  const readers = options.group === undefined ? 'readable by its owner only' : `readable by its owner and group ${options.group} (0640)`;
  line(
    `wrote ${path} (${readers}): Ed25519 signing key ${signer?.keyId}. Give every builder this file as SNAPSHOT_SIGNING_KEY; its public key is published in the store at its first signature.`,
  );
}
