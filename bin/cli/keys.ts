// keys …: API keys (bin/commands/keys.ts).
import type { Command } from 'commander';
import type { Config } from '../config.ts';
import { collect } from './arguments.ts';

const commands = () => import('../commands/keys.ts');

export function registerKeyCommands(program: Command, config: () => Config): void {
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
}
