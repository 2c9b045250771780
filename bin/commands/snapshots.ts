// The auditors' and the store's commands: history, diff, retention, audit.
import { auditStore } from '../../builder/audit.ts';
import { diffLines } from '../../builder/diff-text.ts';
import { diffSnapshots, snapshotHistory } from '../../builder/history.ts';
import type { OrganizationState } from '../../snapshot/manifest.ts';
import { applyRetention } from '../../builder/retention.ts';
import { type Config, describeStore } from '../config.ts';
import { line, printJson } from '../output.ts';
import { openStore, organizationId } from '../services.ts';

export async function historyCommand(config: Config, options: { org: string; json?: boolean }): Promise<void> {
  const orgId = await organizationId(config, options.org);
  const history = await snapshotHistory(openStore(config), orgId);
  if (options.json) return printJson(history.map(({ current: _current, ...entry }) => entry));
  if (history.length === 0) line(`organization ${orgId} has no snapshots in ${describeStore(config.snapshotStore)}`);
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

export async function diffCommand(config: Config, options: { org: string; from: string; to: string; json?: boolean }): Promise<void> {
  const orgId = await organizationId(config, options.org);
  const diff = await diffSnapshots(openStore(config), orgId, options.from, options.to);
  // The documented shape: paths and patches; the labelled changes are the text form's.
  if (options.json) return printJson({ added: diff.added, removed: diff.removed, changed: diff.changed.map(({ path, patch }) => ({ path, patch })) });
  for (const text of diffLines(diff)) line(text);
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
