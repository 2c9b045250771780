// admins …: named admin credentials and their roles (bin/commands/admins.ts).
import type { Command } from 'commander';
import type { Config } from '../config.ts';

const commands = () => import('../commands/admins.ts');

export function registerAdminCommands(program: Command, config: () => Config): void {
  const admins = program.command('admins').description('named admin credentials for the admin API and console, each with a role');
  admins
    .command('create')
    .description('create a named admin credential; the secret is printed once')
    .requiredOption('--name <name>', 'unique, never reused (e.g. alice, ci-deploy)')
    .requiredOption('--role <role>', 'auditor (reads everything), operator (also keys, webhooks, builds) or owner (also admin credentials)')
    .option('--expires <when>', 'when it stops working: a duration (90d, 24h) or an ISO instant (2027-01-01T00:00:00Z); default never')
    .option('--json', 'print the result as JSON')
    .action(async (options: { name: string; role: string; expires?: string; json?: boolean }) => (await commands()).adminsCreateCommand(config(), options));
  admins
    .command('list')
    .description('list admin credentials (never their secrets), revoked ones too')
    .option('--json', 'print the result as JSON')
    .action(async (options: { json?: boolean }) => (await commands()).adminsListCommand(config(), options));
  admins
    .command('revoke')
    .description('revoke an admin credential; refused from the next request on')
    .argument('<name>')
    .option('--json', 'print the result as JSON')
    .action(async (name: string, options: { json?: boolean }) => (await commands()).adminsRevokeCommand(config(), name, options));
}
