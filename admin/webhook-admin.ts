// Webhook operations, the same through the CLI's `webhooks` commands and the admin API and console
// (docs/design.md "Webhooks"): endpoints registered per organization (by id or slug), their
// secrets shown once at creation and rotation, test messages, attempts, redelivery. A destination
// is checked (builder/webhooks/destinations.ts) when registered and when its URL changes. The
// builder keeps the store and delivers; this is what operators do with it.
import { checkDestination } from '../builder/webhooks/destinations.ts';
import { testMessage } from '../builder/webhooks/messages.ts';
import type { WebhookPolicy } from '../builder/webhooks/webhook-policy.ts';
import type { WebhookAttempt, WebhookEndpoint, WebhookStore } from '../builder/webhooks/webhook-store.ts';
import { OperatorError } from '../runtime/errors.ts';
import type { OrganizationDirectory } from './organization-admin.ts';

/** How long a rotated secret keeps signing beside the new one. */
const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** The description an endpoint may carry. */
const DESCRIPTION_MAX = 500;

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

export interface WebhookOperations {
  list(organization?: string): Promise<WebhookEndpoint[]>;
  /** One endpoint; WebhookNotFoundError when no endpoint has the id. */
  get(id: string): Promise<WebhookEndpoint>;
  add(organization: string, endpoint: { url: string; description?: string | null }): Promise<EndpointWithSecret>;
  update(id: string, changes: { url?: string; description?: string | null; enabled?: boolean }): Promise<WebhookEndpoint>;
  remove(id: string): Promise<void>;
  rotate(id: string): Promise<EndpointWithSecret>;
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
  return {
    list: async (organization) => store.list(organization === undefined ? undefined : (await organizations.find(organization)).id),
    get: endpoint,
    add: async (organization, { url, description = null }) => {
      const { id } = await organizations.find(organization);
      const checked = await checkDestination(url, policy);
      const created = await store.create({ organizationId: id, url: checked.href, description: checkedDescription(description) });
      return { ...created.endpoint, secret: created.secret };
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
      return updated;
    },
    remove: async (id) => {
      if (!(await store.remove(id))) throw new WebhookNotFoundError(id);
    },
    rotate: async (id) => {
      const rotated = await store.rotate(id, ROTATION_GRACE_MS);
      if (rotated === undefined) throw new WebhookNotFoundError(id);
      return { ...rotated.endpoint, secret: rotated.secret };
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

function checkedDescription(description: string | null): string | null {
  if (description === null || description === '') return null;
  if (description.length > DESCRIPTION_MAX) throw new OperatorError(`description must be at most ${DESCRIPTION_MAX} characters`);
  return description;
}
