// Webhook operations, the same through the CLI's `webhooks` commands and the admin API and console
// (docs/design.md "Webhooks"): endpoints registered per organization (by id or slug), their
// secrets shown once at creation and rotation, test messages, attempts, redelivery. A destination
// is checked (builder/webhooks/destinations.ts) when registered and when its URL changes. The
// builder keeps the store and delivers; this is what operators do with it.
import { checkDestination, type DestinationPolicy } from '../builder/webhooks/destinations.ts';
import { testMessage } from '../builder/webhooks/messages.ts';
import type { WebhookPolicy } from '../builder/webhooks/webhook-policy.ts';
import type { BuilderPolicy, EndpointHealth, WebhookAttempt, WebhookEndpoint, WebhookStore } from '../builder/webhooks/webhook-store.ts';
import { describeError, OperatorError } from '../runtime/errors.ts';
import type { OrganizationDirectory } from './organization-admin.ts';

/** How long a rotated secret keeps signing beside the new one. */
const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** The description an endpoint may carry (the CLI refuses a longer one as it reads its command line). */
export const WEBHOOK_DESCRIPTION_MAX = 500;

export class WebhookNotFoundError extends OperatorError {
  override name = 'WebhookNotFoundError';
  constructor(readonly endpointId: string) {
    super(`no webhook endpoint has the id ${JSON.stringify(endpointId)}`);
  }
}

export class WebhookMessageNotFoundError extends OperatorError {
  override name = 'WebhookMessageNotFoundError';
  constructor(endpointId: string, messageId: string) {
    super(`no message ${JSON.stringify(messageId)} of endpoint ${endpointId}'s organization is kept (messages are kept 30 days)`);
  }
}

/** An endpoint with its secret: the answer to creation and rotation, the only ones that show it. */
type EndpointWithSecret = WebhookEndpoint & { secret: string };

/**
 * Said in the answer to a registration or a change of URL: a running builder would refuse to deliver
 * there (its WEBHOOK_ALLOW_* differ from the settings that accepted it). Absent when there is none.
 */
type Warned<T> = T & { warnings?: string[] };

/**
 * An endpoint with its organization's slug, as a registration's answer names the organization (the
 * CLI prints it, as `keys` does); absent for an organization the platform no longer has.
 */
type WithSlug<T> = T & { organizationSlug?: string };

/** An endpoint as listed: its organization's slug, and how its deliveries are going. */
export type ListedEndpoint = WebhookEndpoint & { organizationSlug: string | null; health: EndpointHealth };

export interface WebhookOperations {
  list(organization?: string): Promise<ListedEndpoint[]>;
  /** One endpoint; WebhookNotFoundError when no endpoint has the id. */
  get(id: string): Promise<WebhookEndpoint>;
  add(organization: string, endpoint: { url: string; description?: string | null }): Promise<Warned<EndpointWithSecret & { organizationSlug: string }>>;
  update(id: string, changes: { url?: string; description?: string | null; enabled?: boolean }): Promise<Warned<WithSlug<WebhookEndpoint>>>;
  remove(id: string): Promise<void>;
  rotate(id: string): Promise<WithSlug<EndpointWithSecret>>;
  /** Queues a webhook.test message for the endpoint; its id. */
  test(id: string): Promise<{ messageId: string }>;
  attempts(id: string): Promise<WebhookAttempt[]>;
  redeliver(id: string, messageId: string): Promise<void>;
}

export interface WebhookParts {
  /** Its relations made (migrateMarquee). */
  store: WebhookStore;
  policy: WebhookPolicy;
  organizations: OrganizationDirectory;
  /** Told when a message was queued here (the process's deliverer looks at once); a command has none. */
  onQueued?: () => void;
}

export function webhookOperations({ store, policy, organizations, onQueued = () => {} }: WebhookParts): WebhookOperations {
  const endpoint = async (id: string): Promise<WebhookEndpoint> => {
    const found = await store.get(id);
    if (found === undefined) throw new WebhookNotFoundError(id);
    return found;
  };
  const withSlug = async <T extends WebhookEndpoint>(answer: T): Promise<WithSlug<T>> => {
    const slug = (await organizations.slugs([answer.organizationId])).get(answer.organizationId);
    return slug === undefined ? answer : { ...answer, organizationSlug: slug };
  };
  return {
    list: async (organization) => {
      const endpoints = await store.list(organization === undefined ? undefined : (await organizations.find(organization)).id);
      const ids = endpoints.map((listed) => listed.id);
      const [slugs, health] = await Promise.all([organizations.slugs([...new Set(endpoints.map((listed) => listed.organizationId))]), store.health(ids)]);
      return endpoints.map((listed) => ({
        ...listed,
        organizationSlug: slugs.get(listed.organizationId) ?? null,
        health: health.get(listed.id) ?? { lastAttempt: null, waiting: 0, nextRetryAt: null },
      }));
    },
    get: endpoint,
    add: async (organization, { url, description = null }) => {
      const { id, slug } = await organizations.find(organization);
      const checked = await checkDestination(url, policy);
      const created = await store.create({ organizationId: id, url: checked.href, description: checkedDescription(description) });
      return warned({ ...created.endpoint, organizationSlug: slug, secret: created.secret }, await refusals(checked.href, policy, await store.livePolicies()));
    },
    update: async (id, changes) => {
      await endpoint(id);
      const url = changes.url === undefined ? undefined : (await checkDestination(changes.url, policy)).href;
      const updated = await store.update(id, {
        ...(url !== undefined ? { url } : {}),
        ...(changes.description !== undefined ? { description: checkedDescription(changes.description) } : {}),
        ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
      });
      if (updated === undefined) throw new WebhookNotFoundError(id);
      // Enabled again: the deliveries that waited are due.
      if (changes.enabled) onQueued();
      const answer = await withSlug(updated);
      return url === undefined ? answer : warned(answer, await refusals(url, policy, await store.livePolicies()));
    },
    remove: async (id) => {
      if (!(await store.remove(id))) throw new WebhookNotFoundError(id);
    },
    rotate: async (id) => {
      const rotated = await store.rotate(id, ROTATION_GRACE_MS);
      if (rotated === undefined) throw new WebhookNotFoundError(id);
      return withSlug({ ...rotated.endpoint, secret: rotated.secret });
    },
    test: async (id) => {
      const found = await endpoint(id);
      const slug = (await organizations.slugs([found.organizationId])).get(found.organizationId) ?? found.organizationId;
      const messageId = await store.queueFor(found, testMessage(found.organizationId, slug, found.id, new Date()));
      onQueued();
      return { messageId };
    },
    attempts: async (id) => {
      await endpoint(id);
      return store.attempts(id);
    },
    redeliver: async (id, messageId) => {
      await endpoint(id);
      if (!(await store.redeliver(id, messageId))) throw new WebhookMessageNotFoundError(id, messageId);
      onQueued();
    },
  };
}

/**
 * What the running builders would refuse of a URL these settings accepted: each builder whose
 * WEBHOOK_ALLOW_* differ is asked, by the same check a delivery makes, and a refusal is one line
 * naming the builder and its reason. Builders with the same settings accept what these accepted.
 */
export async function refusals(url: string, policy: DestinationPolicy, builders: readonly BuilderPolicy[]): Promise<string[]> {
  const warnings: string[] = [];
  for (const builder of builders) {
    if (builder.allowPrivate === policy.allowPrivate && builder.allowInsecure === policy.allowInsecure) continue;
    try {
      await checkDestination(url, builder);
    } catch (error) {
      warnings.push(`builder ${builder.builder} is running with other WEBHOOK_ALLOW_* settings and refuses every delivery to this URL: ${describeError(error)}`);
    }
  }
  return warnings;
}

function warned<T extends object>(answer: T, warnings: string[]): Warned<T> {
  return warnings.length === 0 ? answer : { ...answer, warnings };
}

function checkedDescription(description: string | null): string | null {
  if (description === null || description === '') return null;
  if (description.length > WEBHOOK_DESCRIPTION_MAX) throw new OperatorError(`description must be at most ${WEBHOOK_DESCRIPTION_MAX} characters`);
  return description;
}
