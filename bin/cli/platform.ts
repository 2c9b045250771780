// build and db: the platform's commands (bin/commands/platform.ts).
import type { Command } from 'commander';
import type { Config, ConfigNeeds } from '../config.ts';
import { collect, secondsMs } from './arguments.ts';

const commands = () => import('../commands/platform.ts');

export function registerPlatformCommands(program: Command, config: (needs?: ConfigNeeds) => Config): void {
  program
    .command('build')
    .description('build now: all organizations, or those named; exit 1 if any failed')
    .option('--org <id|slug>', 'an organization (repeatable)', collect, [])
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string[]; json?: boolean }) => {
      // The configuration first, before the builder's modules load (as start and builder read it).
      const checked = config({ builds: true });
      return (await commands()).buildCommand(checked, options);
    });

  const db = program.command('db').description('the platform database');
  db.command('migrate')
    .description('create the platform relations of docs/platform.md, with change triggers')
    .action(async () => (await commands()).dbMigrateCommand(config()));
  db.command('seed')
    .description('load data')
    .option('--sample', 'the sample dataset')
    .action(async (options: { sample?: boolean }) => (await commands()).dbSeedCommand(config(), options));
  db.command('status')
    .description("Marquee's migrations applied and pending, and the platform relations' version; changes nothing; exit 1 when a migration is pending")
    .option('--json', 'print the status as JSON')
    .action(async (options: { json?: boolean }) => (await import('../commands/db-status.ts')).dbStatusCommand(config(), options));
  db.command('sql')
    .description('run one SQL statement on the platform database (beside a running start too) and print the rows it returns')
    .argument('<statement>', 'e.g. "UPDATE team_members SET show_on_website = false WHERE full_name = \'…\'"')
    .option('--json', 'print the rows as JSON')
    .option('--statement-timeout <seconds>', 'beside a running start: how long the statement may run (default EMBEDDED_STATEMENT_TIMEOUT, 30)', secondsMs)
    .action(async (statement: string, options: { json?: boolean; statementTimeout?: number }) => {
      const checked = config();
      // Asked of start's embedded database with the connection; it ends a statement that runs longer.
      const timeouts = { ...checked.embeddedTimeouts, ...(options.statementTimeout === undefined ? {} : { statementMs: options.statementTimeout }) };
      return (await commands()).dbSqlCommand({ ...checked, embeddedTimeouts: timeouts }, statement, options);
    });
}
