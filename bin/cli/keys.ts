// keys …: API keys (bin/commands/keys.ts).
import type { Command } from 'commander';
import type { Config } from '../config.ts';
import { origins } from './arguments.ts';

const commands = () => import('../commands/keys.ts');

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
    .description('list keys (never their secrets)')
    .option('--org <id|slug>', 'only this organization')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org?: string; json?: boolean }) => (await commands()).keysListCommand(config(), options));
  keys
    .command('find')
    .description('the key a (leaked) secret belongs to, found by its hash; exit 1 when none')
    .requiredOption('--secret <secret>', "the secret, or '-' to read it from standard input (keeps it out of shell history)")
    .option('--json', 'print the result as JSON')
    .action(async (options: { secret: string; json?: boolean }) => (await commands()).keysFindCommand(config(), options));
}
