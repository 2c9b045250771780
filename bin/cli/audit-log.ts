// audit-log …: the audit trail (bin/commands/audit-log.ts).
import type { Command } from 'commander';
import type { AuditLogOptions } from '../commands/audit-log.ts';
import type { Config } from '../config.ts';
import { wholeNumber } from './arguments.ts';

const commands = () => import('../commands/audit-log.ts');

export function registerAuditLogCommands(program: Command, config: () => Config): void {
  const auditLog = program
    .command('audit-log')
    .description('who did what: the audit trail of every change made through the admin API, the console or this CLI, newest first')
    .option('--org <id|slug>', 'only entries of this organization')
    .option('--actor <name>', 'only this actor (root, cli:<user>@<host>, a credential name)')
    .option('--action <action>', 'only this action (key.created, key.revoked, webhook.rotated, build.requested, db.sql, …)')
    .option('--since <when>', 'only entries since an instant (2026-11-01T00:00:00Z) or within a duration back (24h, 7d)')
    .option('--until <when>', 'only entries before an instant, exclusive, or a duration back (1h); --since A --until B is the half-open window [A, B)')
    .option('--limit <n>', 'at most this many entries (not with --jsonl)', wholeNumber, 100)
    .option('--json', 'print the entries as one JSON array, newest first')
    .option('--jsonl', 'export: every matching entry as JSON lines, oldest first')
    .action(async (options: AuditLogOptions) => (await commands()).auditLogCommand(config(), options));
  auditLog
    .command('verify')
    .description('check the chain: every entry against its hash and its predecessor, and against the heads kept in the snapshot store; exit 1 naming the first broken entry')
    .option('--json', 'print the verdict as JSON')
    // `--json` is audit-log's own option too, which commander gives the parent: read both.
    .action(async (_options: { json?: boolean }, command: Command) =>
      (await commands()).auditLogVerifyCommand(config(), { json: command.optsWithGlobals<{ json?: boolean }>().json === true }),
    );
}
