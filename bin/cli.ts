// marquee: the one entry point (docs/design.md "Command line" — a contract operators, scripts and
// tests depend on). Thin: parses arguments, calls the modules, prints.
import './runtime-floor.ts';
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { packagePath } from '../snapshot/package-root.ts';
import { parseConfig } from './config.ts';
import { DEFAULT_GRACE_MINUTES, DEFAULT_KEEP } from '../builder/retention.ts';
import { describeError, EXIT_FAILURE, OperatorError } from '../snapshot/errors.ts';

// A command's modules load when it runs, not for `--help` or for another command: the builder
// with PGlite, pg and ajv, or the gateway with Express, cost hundreds of milliseconds to import.
const commands = () => import('./commands.ts');
const processes = () => import('./processes.ts');

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
  .version(packageVersion(), '--version', 'print the version')
  .showHelpAfterError()
  .configureOutput({ outputError: (text, write) => write(text) });

program
  .command('start')
  .description('everything in one process on embedded defaults: migrate and seed on first run, build, serve, schedule and listen')
  .action(async () => (await processes()).startCommand(config()));
program
  .command('serve')
  .description('the gateway on PORT (8080); GET /healthz answers 200 once ready')
  .action(async () => (await processes()).serveCommand(config()));
program
  .command('builder')
  .description('scheduled builds (BUILD_SCHEDULE) plus change-triggered builds')
  .action(async () => (await processes()).builderCommand(config()));
program
  .command('build')
  .description('build now: all organizations, or those named; exit 1 if any failed')
  .option('--org <id|slug>', 'an organization (repeatable)', collect, [])
  .option('--json', 'print the result as JSON')
  .action(async (options: { org: string[]; json?: boolean }) => (await commands()).buildCommand(config(), options));

const db = program.command('db').description('the platform database');
db.command('migrate')
  .description('create the platform relations of docs/platform.md, with change triggers')
  .action(async () => (await commands()).dbMigrateCommand(config()));
db.command('seed')
  .description('load data')
  .option('--sample', 'the sample dataset')
  .action(async (options: { sample?: boolean }) => (await commands()).dbSeedCommand(config(), options));

const keys = program.command('keys').description('API keys');
keys
  .command('create')
  .description('create a key for an organization; the secret is printed once')
  .requiredOption('--org <id|slug>', 'the organization')
  .option('--origin <origin>', 'an allowed browser origin (repeatable); none = server-side only', collect, [])
  .option('--label <text>', 'a label')
  .option('--json', 'print the result as JSON')
  .action(async (options: { org: string; origin: string[]; label?: string; json?: boolean }) => (await commands()).keysCreateCommand(config(), options));
keys
  .command('revoke')
  .description('revoke a key; effective from the next request on')
  .argument('<key-id>')
  .action(async (id: string) => (await commands()).keysRevokeCommand(config(), id));
keys
  .command('list')
  .description('list keys (never their secrets)')
  .option('--org <id|slug>', 'only this organization')
  .option('--json', 'print the result as JSON')
  .action(async (options: { org?: string; json?: boolean }) => (await commands()).keysListCommand(config(), options));

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

function packageVersion(): string {
  return (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
}

function config() {
  return parseConfig(process.env);
}

// The one place an error becomes the process's exit: an OperatorError (configuration, unknown
// organization, busy or unreachable database, missing snapshot…) is one line and its own exit
// status; anything else is unexpected: its message and every cause below it, exit status 1.
// MARQUEE_DEBUG=1 adds the stack.
try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`marquee: ${describeError(error)}\n`);
  if (process.env.MARQUEE_DEBUG) console.error(error);
  process.exit(error instanceof OperatorError ? error.exitCode : EXIT_FAILURE);
}
