// webhooks …: webhook endpoints of organizations (bin/commands/webhooks.ts).
import type { Command } from 'commander';
import type { Config } from '../config.ts';

const commands = () => import('../commands/webhooks.ts');

export function registerWebhookCommands(program: Command, config: () => Config): void {
  const webhooks = program.command('webhooks').description("webhook endpoints: organization sites told of each publish that changes their API's answers");
  webhooks
    .command('add')
    .description('register an endpoint for an organization; its signing secret is printed once')
    .requiredOption('--org <id|slug>', 'the organization')
    .requiredOption('--url <url>', 'where messages are POSTed: an https URL with a public address')
    .option('--description <text>', 'a description')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; url: string; description?: string; json?: boolean }) => (await commands()).webhooksAddCommand(config(), options));
  webhooks
    .command('list')
    .description('list endpoints (never their secrets)')
    .option('--org <id|slug>', 'only this organization')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org?: string; json?: boolean }) => (await commands()).webhooksListCommand(config(), options));
  webhooks
    .command('update')
    .description("change an endpoint's URL or description, or enable or disable it")
    .argument('<endpoint-id>')
    .option('--url <url>', 'the new URL')
    .option('--description <text>', "the new description ('' for none)")
    .option('--enable', 'send to it again (deliveries that waited are sent)')
    .option('--disable', 'stop sending to it; deliveries wait until it is enabled')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, options: { url?: string; description?: string; enable?: boolean; disable?: boolean; json?: boolean }) =>
      (await commands()).webhooksUpdateCommand(config(), id, options),
    );
  webhooks
    .command('rotate')
    .description('a new signing secret, printed once; the old one keeps signing too for 24 h')
    .argument('<endpoint-id>')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, options: { json?: boolean }) => (await commands()).webhooksRotateCommand(config(), id, options));
  webhooks
    .command('remove')
    .description('delete an endpoint, its pending deliveries and its attempts')
    .argument('<endpoint-id>')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, options: { json?: boolean }) => (await commands()).webhooksRemoveCommand(config(), id, options));
  webhooks
    .command('test')
    .description('queue a webhook.test message for the endpoint (a running builder or start sends it)')
    .argument('<endpoint-id>')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, options: { json?: boolean }) => (await commands()).webhooksTestCommand(config(), id, options));
  webhooks
    .command('attempts')
    .description("the endpoint's last 100 delivery attempts, newest first")
    .argument('<endpoint-id>')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, options: { json?: boolean }) => (await commands()).webhooksAttemptsCommand(config(), id, options));
  webhooks
    .command('redeliver')
    .description('send a message to the endpoint again, under the same webhook-id')
    .argument('<endpoint-id>')
    .argument('<message-id>')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, messageId: string, options: { json?: boolean }) => (await commands()).webhooksRedeliverCommand(config(), id, messageId, options));
}
