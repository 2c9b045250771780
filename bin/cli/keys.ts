// keys …: API keys (bin/commands/keys.ts).
import { type Command, InvalidArgumentError } from 'commander';
import type { KeyUsageOptions } from '../commands/keys.ts';
import type { Config } from '../config.ts';
import { origins } from './arguments.ts';

const commands = () => import('../commands/keys.ts');

/** `--by` of keys usage: the buckets of the report. */
const granularity = (value: string): 'hour' | 'day' => {
  if (value !== 'hour' && value !== 'day') throw new InvalidArgumentError('must be hour or day');
  return value;
};

export function registerKeyCommands(program: Command, config: () => Config): void {
  const keys = program.command('keys').description('API keys');
  keys
    .command('create')
    .description('create a key for an organization; the secret is printed once')
    .requiredOption('--org <id|slug>', 'the organization')
    .option('--origin <origin>', 'an allowed browser origin, scheme://host[:port] (repeatable); none = server-side only', origins, [])
    .option('--label <text>', 'a label')
    .option('--expires <when>', 'when the key stops working: a duration (90d, 24h, 30m) or an ISO instant (2027-01-01T00:00:00Z); default never')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; origin: string[]; label?: string; expires?: string; json?: boolean }) => (await commands()).keysCreateCommand(config(), options));
  keys
    .command('update')
    .description("replace a key's allowed origins and/or label; effective from the next request on")
    .argument('<key-id>')
    .option('--origin <origin>', 'an allowed browser origin, scheme://host[:port] (repeatable): replaces the list', origins, [])
    .option('--no-origins', 'no browser origin: server-side use only')
    .option('--label <text>', "the new label ('' for none)")
    .option('--json', 'print the result as JSON')
    .action(async (id: string, options: { origin: string[]; origins: boolean; label?: string; json?: boolean }) => (await commands()).keysUpdateCommand(config(), id, options));
  keys
    .command('roll')
    .description('replace a key by a new one with the same organization, origins and label; the old one is revoked when the grace period ends')
    .argument('<key-id>')
    .option('--grace <duration>', 'how long the old key keeps working: 30m, 24h, 7d, or 0 for now', '24h')
    .option('--json', 'print the new key as JSON')
    .action(async (id: string, options: { grace: string; json?: boolean }) => (await commands()).keysRollCommand(config(), id, options));
  keys
    .command('revoke')
    .description('revoke a key; effective from the next request on')
    .argument('<key-id>')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, options: { json?: boolean }) => (await commands()).keysRevokeCommand(config(), id, options));
  keys
    .command('list')
    .description('list keys (never their secrets), each with its last use and its requests in the last 24 hours')
    .option('--org <id|slug>', 'only this organization')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org?: string; json?: boolean }) => (await commands()).keysListCommand(config(), options));
  keys
    .command('usage')
    .description(
      "a key's requests over time, or every key's of an organization: by hour or day, by outcome (the status, with a 403's errorCode), by route, and the browser origins refused",
    )
    .argument('[key-id]', 'the key (or give --org)')
    .option('--org <id|slug>', 'every key of this organization instead of one key')
    .option('--since <when>', 'from an instant (2026-11-01T00:00:00Z) or a duration back (24h, 7d), widened down to its hour or day; default a week before --until')
    .option('--until <when>', 'before an instant, exclusive, or a duration back; widened up to the end of its hour or day; default the end of this hour')
    .option('--by <hour|day>', 'one row per UTC hour or day; default hour for a week or less, day beyond', granularity)
    .option('--json', 'print the report as JSON')
    .option('--csv', 'print one line per bucket and outcome: start,outcome,requests')
    .action(async (id: string | undefined, options: KeyUsageOptions) => (await commands()).keysUsageCommand(config(), id, options));
  keys
    .command('find')
    .description('the key a (leaked) secret belongs to, found by its hash; exit 1 when none')
    .requiredOption('--secret <secret>', "the secret, or '-' to read it from standard input (keeps it out of shell history)")
    .option('--json', 'print the result as JSON')
    .action(async (options: { secret: string; json?: boolean }) => (await commands()).keysFindCommand(config(), options));
}
