// The webhook commands (docs/design.md "Webhooks"): a door over admin/webhook-admin.ts's webhook
// operations, as the admin API and the console are; `--json` prints the admin API's shapes.
import { recordedArea } from '../../admin/trail/recorded-operations.ts';
import { organizationDirectory } from '../../admin/organization-admin.ts';
import { type ListedEndpoint, WEBHOOK_DESCRIPTION_MAX, type WebhookOperations, webhookOperations } from '../../admin/webhook-admin.ts';
import { parseDestination } from '../../builder/webhooks/destinations.ts';
import { migrateMarquee } from '../../records/schema/migrate.ts';
import { type WebhookEndpoint, WebhookStore } from '../../builder/webhooks/webhook-store.ts';
import { UsageError, usageChecked } from '../usage.ts';
import type { Config } from '../config.ts';
import { line, printJson } from '../output.ts';
import { withDatabase } from '../services.ts';
import { cliRecorder } from './trail.ts';

function withWebhooks<T>(config: Config, work: (webhooks: WebhookOperations) => Promise<T>): Promise<T> {
  return withDatabase(config, async (db) => {
    await migrateMarquee(db);
    const operations = webhookOperations({ store: new WebhookStore(db), policy: config.webhooks, organizations: organizationDirectory(async () => db) });
    // Each change is recorded in the audit trail, as through the admin API.
    return work(
      recordedArea(
        'webhooks',
        operations,
        cliRecorder(async () => db),
      ),
    );
  });
}

/**
 * `--url` in form and `--description` in length, first thing: a wrong command line. Whether the
 * WEBHOOK_ALLOW_* settings let the URL be used is the registration's to say.
 */
function checkArguments(options: { url?: string; description?: string }): void {
  if (options.url !== undefined) usageChecked(() => parseDestination(options.url!, { allowInsecure: true, allowPrivate: true }));
  if (options.description !== undefined && options.description.length > WEBHOOK_DESCRIPTION_MAX)
    throw new UsageError(`--description must be at most ${WEBHOOK_DESCRIPTION_MAX} characters`);
}

export async function webhooksAddCommand(config: Config, options: { org: string; url: string; description?: string; json?: boolean }): Promise<void> {
  checkArguments(options);
  const created = await withWebhooks(config, (webhooks) => webhooks.add(options.org, { url: options.url, description: options.description ?? null }));
  warn(created.warnings);
  if (options.json) return printJson(created);
  line(describe(created));
  line(`signing secret (shown once, store it now): ${created.secret}`);
}

/** A running builder would refuse the URL: said on stderr (and in --json's `warnings`), the registration stands. */
function warn(warnings: readonly string[] | undefined): void {
  for (const warning of warnings ?? []) process.stderr.write(`marquee: warning: ${warning}\n`);
}

export async function webhooksListCommand(config: Config, options: { org?: string; json?: boolean }): Promise<void> {
  const endpoints = await withWebhooks(config, (webhooks) => webhooks.list(options.org));
  if (options.json) return printJson(endpoints);
  if (endpoints.length === 0) line('no webhook endpoints');
  for (const endpoint of endpoints) {
    line(describe(endpoint));
    line(`  ${describeHealth(endpoint.health)}`);
  }
}

export async function webhooksUpdateCommand(
  config: Config,
  id: string,
  options: { url?: string; description?: string; enable?: boolean; disable?: boolean; json?: boolean },
): Promise<void> {
  if (options.enable && options.disable) throw new UsageError('--enable and --disable contradict each other: give one or the other');
  checkArguments(options);
  const enabled = options.enable ? true : options.disable ? false : undefined;
  const changes = {
    ...(options.url !== undefined ? { url: options.url } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(enabled !== undefined ? { enabled } : {}),
  };
  if (Object.keys(changes).length === 0) throw new UsageError(`nothing to change for endpoint ${id}: give --url, --description, --enable or --disable`);
  const updated = await withWebhooks(config, (webhooks) => webhooks.update(id, changes));
  warn(updated.warnings);
  if (options.json) return printJson(updated);
  line(describe(updated));
}

export async function webhooksRotateCommand(config: Config, id: string, options: { json?: boolean }): Promise<void> {
  const rotated = await withWebhooks(config, (webhooks) => webhooks.rotate(id));
  if (options.json) return printJson(rotated);
  line(describe(rotated));
  line(`new signing secret (shown once, store it now): ${rotated.secret}`);
  line('the previous secret keeps signing beside it for 24 h');
}

export async function webhooksRemoveCommand(config: Config, id: string, options: { json?: boolean }): Promise<void> {
  await withWebhooks(config, (webhooks) => webhooks.remove(id));
  if (options.json) return printJson({ id, removed: true });
  line(`endpoint ${id} removed`);
}

export async function webhooksTestCommand(config: Config, id: string, options: { json?: boolean }): Promise<void> {
  const queued = await withWebhooks(config, (webhooks) => webhooks.test(id));
  if (options.json) return printJson(queued);
  line(`webhook.test message ${queued.messageId} queued for ${id}; a running builder (or start) sends it`);
}

export async function webhooksAttemptsCommand(config: Config, id: string, options: { json?: boolean }): Promise<void> {
  const attempts = await withWebhooks(config, (webhooks) => webhooks.attempts(id));
  if (options.json) return printJson(attempts);
  if (attempts.length === 0) line(`no attempts for ${id} yet`);
  for (const attempt of attempts) {
    const outcome = attempt.status === null ? attempt.error : `${attempt.status}${attempt.error ? ` (${attempt.error})` : ''}`;
    line(`${attempt.at} ${attempt.messageId} ${attempt.type}: ${outcome} in ${attempt.durationMs} ms`);
  }
}

export async function webhooksRedeliverCommand(config: Config, id: string, messageId: string, options: { json?: boolean }): Promise<void> {
  await withWebhooks(config, (webhooks) => webhooks.redeliver(id, messageId));
  if (options.json) return printJson({ messageId });
  line(`message ${messageId} queued again for ${id}; a running builder (or start) sends it`);
}

function describe(endpoint: WebhookEndpoint & { organizationSlug?: string | null }): string {
  const state = endpoint.enabled ? 'enabled' : `disabled${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}`;
  // By slug, as `keys list` names them; by id only for an organization the platform no longer has.
  const organization = endpoint.organizationSlug ?? endpoint.organizationId;
  return `${endpoint.id} for ${organization}: ${endpoint.url}${endpoint.description ? ` — ${endpoint.description}` : ''}; ${state}`;
}

/** The last attempt, how it ended and why, and what waits: `last attempt 2026-…: failed: answered 503; 2 waiting, next retry 2026-…`. */
export function describeHealth(health: ListedEndpoint['health']): string {
  const last = health.lastAttempt;
  const attempt =
    last === null ? 'no attempt yet' : `last attempt ${last.at}: ${last.delivered ? `delivered (${last.status})` : `failed: ${last.error ?? `answered ${last.status}`}`}`;
  const waiting = health.waiting === 0 ? '' : `; ${health.waiting} waiting${health.nextRetryAt ? `, next retry ${health.nextRetryAt}` : ''}`;
  return attempt + waiting;
}
