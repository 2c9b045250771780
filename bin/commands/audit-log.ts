// The audit trail's commands (docs/operation.md "The audit trail"): read it with filters, export it
// as JSON lines, verify it against itself and the heads the builders keep in the snapshot store.
import { type AuditOperations, auditOperations, type AuditQuery } from '../../admin/trail/audit-admin.ts';
import type { AuditEntry } from '../../records/trail/audit-entry.ts';
import { usageChecked } from '../usage.ts';
import { auditWindow } from '../../admin/trail/audit-since.ts';
import { databaseAuditTrail } from '../../records/trail/audit-trail.ts';
import { cliRecorder } from './trail.ts';
import { organizationDirectory } from '../../admin/organization-admin.ts';
import { migrateMarquee } from '../../records/schema/migrate.ts';
import { OperatorError } from '../../runtime/errors.ts';
import type { Config } from '../config.ts';
import { line, printJson } from '../output.ts';
import { withDatabase } from '../services.ts';

export interface AuditLogOptions {
  org?: string;
  actor?: string;
  action?: string;
  since?: string;
  until?: string;
  limit: number;
  json?: boolean;
  jsonl?: boolean;
}

/** Read in pages this large when exporting: the trail is never held whole by the database client. */
const EXPORT_PAGE = 1000;

export async function auditLogCommand(config: Config, options: AuditLogOptions): Promise<void> {
  const { limit } = options;
  const query: AuditQuery = {
    ...(options.org !== undefined ? { organization: options.org } : {}),
    ...(options.actor !== undefined ? { actor: options.actor } : {}),
    ...(options.action !== undefined ? { action: options.action } : {}),
    // A value the command line got wrong is a usage error (exit 2, with the usage line).
    ...usageChecked(() => auditWindow({ since: options.since, until: options.until }, { since: '--since', until: '--until' }, new Date())),
  };
  await withAudit(config, async (audit, slugs) => {
    if (options.jsonl) {
      // Newest first is how the trail is read by filter; an export reads oldest first.
      const pages: AuditEntry[][] = [];
      let before: number | undefined;
      do {
        const page = await audit.list({ ...query, limit: EXPORT_PAGE, ...(before !== undefined ? { before } : {}) });
        pages.push(page.entries);
        before = page.next ?? undefined;
      } while (before !== undefined);
      for (const page of pages.reverse()) for (const entry of page.reverse()) process.stdout.write(`${JSON.stringify(entry)}\n`);
      return;
    }
    const { entries } = await audit.list({ ...query, limit });
    if (options.json) return printJson(entries);
    if (entries.length === 0) line('no audit entries match');
    const names = await slugs(entries);
    for (const entry of entries) line(entryLine(entry, names));
  });
}

export async function auditLogVerifyCommand(config: Config, options: { json?: boolean }): Promise<void> {
  const verdict = await withAudit(config, (audit) => audit.verify());
  if (options.json) printJson(verdict);
  else if (verdict.ok) {
    line(
      verdict.head === null
        ? 'the audit trail is empty'
        : `the audit trail holds together: ${verdict.entries} entries up to #${verdict.head.seq} (${verdict.head.hash}); ${verdict.headsChecked} heads kept in ${config.snapshotStore.description} agree with it`,
    );
  }
  if (!verdict.ok) throw new OperatorError(`the audit trail is broken at entry ${verdict.broken!.seq}: ${verdict.broken!.problem}`);
}

type Slugs = (entries: AuditEntry[]) => Promise<ReadonlyMap<string, string>>;

async function withAudit<T>(config: Config, work: (audit: AuditOperations, slugs: Slugs) => Promise<T>): Promise<T> {
  return withDatabase(config, async (db) => {
    await migrateMarquee(db);
    const organizations = organizationDirectory(async () => db);
    const audit = auditOperations({ trail: databaseAuditTrail(db), store: config.snapshotStore.open(), organizations, recorder: cliRecorder(async () => db) });
    const slugs: Slugs = (entries) => organizations.slugs([...new Set(entries.flatMap((entry) => (entry.organizationId === null ? [] : [entry.organizationId])))]);
    return work(audit, slugs);
  });
}

function entryLine(entry: AuditEntry, slugs: ReadonlyMap<string, string>): string {
  const organization = entry.organizationId === null ? '-' : (slugs.get(entry.organizationId) ?? entry.organizationId);
  const outcome = entry.reason === null ? entry.outcome : `${entry.outcome} (${entry.reason})`;
  const changes = Object.keys(entry.changes).length ? JSON.stringify(entry.changes) : '';
  return [`#${entry.seq}`, entry.at, `${entry.actor} (${entry.actorRole})`, entry.door, entry.action, organization, entry.targetId ?? '-', outcome, changes].join('  ').trimEnd();
}
