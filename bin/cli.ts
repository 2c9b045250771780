// marquee: the one entry point (docs/design.md "Process model and configuration" — a contract operators, scripts and
// tests depend on). Thin: parses arguments, calls the modules, prints.
// First: everything any command creates is owner-only (bin/umask.ts).
import './umask.ts';
import './runtime-floor.ts';
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { packagePath } from '../runtime/package-root.ts';
import { type ConfigNeeds, parseConfig } from './config.ts';
import { EXIT_FAILURE, EXIT_USAGE, OperatorError } from '../runtime/errors.ts';
import { cliErrorLine } from './flag-words.ts';
import { registerAdminCommands } from './cli/admins.ts';
import { cliActor } from '../records/actor.ts';
import { actingAs } from '../admin/acting.ts';
import { registerAuditLogCommands } from './cli/audit-log.ts';
import { showUsageAfterErrors, usageOf } from './cli/arguments.ts';
import { UsageError } from './usage.ts';
import { registerKeyCommands } from './cli/keys.ts';
import { registerPlatformCommands } from './cli/platform.ts';
import { registerPublicationLogCommands } from './cli/publication-log.ts';
import { registerProcessCommands } from './cli/processes.ts';
import { registerSnapshotCommands } from './cli/snapshots.ts';
import { registerWebhookCommands } from './cli/webhooks.ts';

// Each registration loads its command's modules when it runs, not for `--help` or for another
// command: the builder with PGlite, pg and ajv, or the gateway with Express, cost hundreds of
// milliseconds to import.
const program = new Command('marquee')
  .description('Read-only integration API of an events platform, served from static snapshots')
  .version(packageVersion(), '--version', 'print the version')
  .configureOutput({ outputError: (text, write) => write(text) })
  // Commander's errors are thrown, not exited on, so a wrong command line gets the contract's exit status 2 below.
  .exitOverride();

/** The command whose action runs: a UsageError it throws is followed by its usage line. */
let acting: Command = program;
program.hook('preAction', (_program, actionCommand) => {
  acting = actionCommand;
});

registerProcessCommands(program, config);
registerPlatformCommands(program, config);
registerKeyCommands(program, config);
registerSnapshotCommands(program, config);
registerWebhookCommands(program, config);
registerAdminCommands(program, config);
registerAuditLogCommands(program, config);
registerPublicationLogCommands(program, config);
showUsageAfterErrors(program);

function packageVersion(): string {
  return (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
}

/** `needs`: what the command does beyond reading (ConfigNeeds), so that its own checks are made with the others, before it starts. */
function config(needs?: ConfigNeeds) {
  return parseConfig(process.env, process.cwd(), process.stdout.isTTY === true, needs);
}

// The one place an error becomes the process's exit: an OperatorError (configuration, unknown
// organization, busy or unreachable database, missing snapshot…) is one line and its own exit
// status; anything else is unexpected: its message and every cause below it, exit status 1.
// MARQUEE_DEBUG=1 adds the stack. A wrong command line exits 2 with what is wrong and the
// command's usage line: commander's own refusals have printed both already, a UsageError of the
// command gets its usage line here. --help and --version exit 0.
try {
  // Whatever a command changes is recorded in the audit trail under the CLI's actor (records/actor.ts).
  await actingAs({ actor: cliActor(), door: 'cli' }, () => program.parseAsync(process.argv));
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
  process.stderr.write(`marquee: ${cliErrorLine(error)}\n`);
  if (error instanceof UsageError) process.stderr.write(`${usageOf(acting)}\n`);
  if (process.env.MARQUEE_DEBUG) console.error(error);
  process.exit(error instanceof OperatorError ? error.exitCode : EXIT_FAILURE);
}
