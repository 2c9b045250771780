// marquee: the one entry point (docs/design.md "Command line" — a contract operators, scripts and
// tests depend on). Thin: parses arguments, calls the modules, prints.
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, parseConfig } from './config.ts';
import { DEFAULT_GRACE_MINUTES, DEFAULT_KEEP } from '../builder/retention.ts';
import { CliError } from './output.ts';
import { buildCommand, dbMigrateCommand, dbSeedCommand, diffCommand, gcCommand, historyCommand, keysCreateCommand, keysListCommand, keysRevokeCommand } from './commands.ts';
import { builderCommand, serveCommand, startCommand } from './processes.ts';

const collect = (value: string, previous: string[]): string[] => [...previous, value];
const minutes = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number of minutes');
  return Number(value);
};
const wholeNumber = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return Number(value);
};

const program = new Command('marquee')
  .description('Read-only integration API of an events platform, served from static snapshots')
  .showHelpAfterError()
  .configureOutput({ outputError: (text, write) => write(text) });

program.command('start').description('everything in one process on embedded defaults: migrate and seed on first run, build, serve, schedule and listen')
  .action(() => startCommand(config()));
program.command('serve').description('the gateway on PORT (8080); GET /healthz answers 200 once ready')
  .action(() => serveCommand(config()));
program.command('builder').description('scheduled builds (BUILD_SCHEDULE) plus change-triggered builds')
  .action(() => builderCommand(config()));
program.command('build').description('build now: all organizations, or those named; exit 1 if any failed')
  .option('--org <id|slug>', 'an organization (repeatable)', collect, [])
  .option('--json', 'print the result as JSON')
  .action((options: { org: string[]; json?: boolean }) => buildCommand(config(), options));

const db = program.command('db').description('the platform database');
db.command('migrate').description('create the platform relations of docs/platform.md, with change triggers')
  .action(() => dbMigrateCommand(config()));
db.command('seed').description('load data').option('--sample', 'the sample dataset')
  .action((options: { sample?: boolean }) => dbSeedCommand(config(), options));

const keys = program.command('keys').description('API keys');
keys.command('create').description('create a key for an organization; the secret is printed once')
  .requiredOption('--org <id|slug>', 'the organization')
  .option('--origin <origin>', 'an allowed browser origin (repeatable); none = server-side only', collect, [])
  .option('--label <text>', 'a label')
  .option('--json', 'print the result as JSON')
  .action((options: { org: string; origin: string[]; label?: string; json?: boolean }) => keysCreateCommand(config(), options));
keys.command('revoke').description('revoke a key; effective from the next request on').argument('<key-id>')
  .action((id: string) => keysRevokeCommand(config(), id));
keys.command('list').description('list keys (never their secrets)')
  .option('--org <id|slug>', 'only this organization').option('--json', 'print the result as JSON')
  .action((options: { org?: string; json?: boolean }) => keysListCommand(config(), options));

program.command('history').description("an organization's snapshots, newest first")
  .requiredOption('--org <id|slug>', 'the organization').option('--json', 'print the result as JSON')
  .action((options: { org: string; json?: boolean }) => historyCommand(config(), options));
program.command('diff').description('what changed between two snapshots ("current" names the current one)')
  .requiredOption('--org <id|slug>', 'the organization').argument('<from>').argument('<to>').option('--json', 'print the result as JSON')
  .action((from: string, to: string, options: { org: string; json?: boolean }) => diffCommand(config(), { ...options, from, to }));
program.command('gc').description('apply retention: keep the newest N snapshots per organization')
  .option('--keep <n>', 'snapshots to keep', wholeNumber, DEFAULT_KEEP)
  .option('--grace-minutes <n>', 'spare unreferenced objects younger than this (a build may be publishing them)', minutes, DEFAULT_GRACE_MINUTES)
  .action((options: { keep: number; graceMinutes: number }) => gcCommand(config(), options));

function config() {
  return parseConfig(process.env);
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof ConfigError || error instanceof CliError) {
    process.stderr.write(`marquee: ${error.message}\n`);
    process.exit(error instanceof CliError ? error.exitCode : 2);
  }
  process.stderr.write(`marquee: ${error instanceof Error ? error.message : String(error)}\n`);
  if (process.env.MARQUEE_DEBUG) console.error(error);
  process.exit(1);
}
