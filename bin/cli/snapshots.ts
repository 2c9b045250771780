// history, diff, gc, audit: the auditors' and the store's commands (bin/commands/snapshots.ts).
import type { Command } from 'commander';
import type { Config } from '../config.ts';
import { DEFAULT_GRACE_MINUTES, DEFAULT_KEEP } from '../../builder/retention.ts';
import { minutes, wholeNumber } from './arguments.ts';

const commands = () => import('../commands/snapshots.ts');

export function registerSnapshotCommands(program: Command, config: () => Config): void {
  program
    .command('history')
    .description("an organization's snapshots, newest first")
    .requiredOption('--org <id|slug>', 'the organization')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; json?: boolean }) => (await commands()).historyCommand(config(), options));
  program
    .command('diff')
    .description('what changed between two snapshots ("current" names the current one)')
    .requiredOption('--org <id|slug>', 'the organization')
    .argument('<from>')
    .argument('<to>')
    .option('--json', 'print the result as JSON')
    .action(async (from: string, to: string, options: { org: string; json?: boolean }) => (await commands()).diffCommand(config(), { ...options, from, to }));
  program
    .command('gc')
    .description('apply retention: keep the newest N snapshots per organization')
    .option('--keep <n>', 'snapshots to keep', wholeNumber, DEFAULT_KEEP)
    .option('--grace-minutes <n>', 'spare unreferenced objects younger than this (a build may be publishing them)', minutes, DEFAULT_GRACE_MINUTES)
    .action(async (options: { keep: number; graceMinutes: number }) => (await commands()).gcCommand(config(), options));

  program
    .command('audit')
    .description("scan every published object for other addresses, other organizations' ids and slugs, orphans and missing or corrupt objects; exit 1 on findings")
    .option('--grace-minutes <n>', 'unreferenced objects younger than this are not orphans yet (a build may be publishing them)', minutes, DEFAULT_GRACE_MINUTES)
    .option('--json', 'print the report as JSON')
    .action(async (options: { graceMinutes: number; json?: boolean }) => (await commands()).auditCommand(config(), options));
}
