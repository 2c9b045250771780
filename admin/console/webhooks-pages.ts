// The webhooks pages: an organization's endpoints with their state, the form that adds one, each
// endpoint's attempts with redelivery, and the actions test, rotate, enable/disable and remove,
// each form checked as its API route checks its body (console-forms.ts). A new signing secret
// travels to the page that shows it through a one-view ticket (shown-once.ts), as a key's does.
import type { Request, Response } from 'express';
import type { WebhookEndpoint } from '../../builder/webhooks/webhook-store.ts';
import { adminRoute } from '../api-routes.ts';
import { badRequest } from '../errors.ts';
import type { AdminServices } from '../services.ts';
import type { ListedEndpoint } from '../webhook-admin.ts';
import { form } from './console-forms.ts';
import { type ConsoleRoute, page } from './console-routes.ts';
import { formField, type Pages } from './pages.ts';
import { showInstant } from './relative-time.ts';
import { ShownOnce } from './shown-once.ts';

/** An endpoint as listed has its health; one just added, changed or removed does not. */
type Endpoint = WebhookEndpoint & Partial<Pick<ListedEndpoint, 'health'>>;
type ShownSecret = Endpoint & { secret: string; organizationName: string; rotated: boolean; warnings?: string[] };

export function webhookPages({ services, pages, now }: { services: AdminServices; pages: Pages; now: () => Date }): ConsoleRoute[] {
  const secrets = new ShownOnce<ShownSecret>();
  const names = async () => new Map((await services.organizations.list()).map((org) => [org.id, org.name]));
  const row = (endpoint: Endpoint, organizationNames: ReadonlyMap<string, string>) => ({
    ...endpoint,
    organizationName: organizationNames.get(endpoint.organizationId) ?? endpoint.organizationId,
    created: showInstant(endpoint.createdAt, now()),
    ...(endpoint.health
      ? {
          lastAttemptAt: showInstant(endpoint.health.lastAttempt?.at, now()),
          nextRetry: showInstant(endpoint.health.nextRetryAt, now()),
        }
      : {}),
  });
  const showSecret = async (req: Request, res: Response, endpoint: Endpoint & { secret: string; warnings?: string[] }, rotated: boolean) => {
    const organizationName = (await names()).get(endpoint.organizationId) ?? endpoint.organizationId;
    res.redirect(303, `${req.baseUrl}/webhooks/shown/${secrets.put({ ...endpoint, organizationName, rotated })}`);
  };
  const list = async (req: Request, res: Response, values: Record<string, string> = {}, error?: string) => {
    const chosen = typeof req.query.organization === 'string' && req.query.organization !== '' ? req.query.organization : values.organization || undefined;
    const organizations = await services.organizations.list();
    const organization = chosen === undefined ? undefined : await services.organizations.find(chosen);
    const organizationNames = new Map(organizations.map((org) => [org.id, org.name]));
    const endpoints = (await services.webhooks.list(organization?.id)).map((endpoint) => row(endpoint, organizationNames));
    const shown = organizations.find((org) => org.id === organization?.id);
    pages.show(
      req,
      res,
      'webhooks.njk',
      shown ? `Webhooks of ${shown.name}` : 'Webhooks',
      { endpoints, organizations, organization: shown, values: { organization: organization?.id ?? '', ...values }, error },
      { section: 'webhooks', status: error ? 400 : 200 },
    );
  };
  const back = (req: Request, res: Response, endpoint: Endpoint) => res.redirect(303, `${req.baseUrl}/webhooks?organization=${encodeURIComponent(endpoint.organizationId)}`);

  const addValues = (req: Request) => ({
    organization: formField(req.body, 'organization'),
    url: formField(req.body, 'url').trim(),
    description: formField(req.body, 'description').trim(),
  });

  return [
    page('/webhooks', 'auditor', (req, res) => list(req, res)),

    form(adminRoute('addWebhook'), {
      path: '/webhooks',
      // The organization is in the API's path; on the form, a field of its own.
      body: (req) => {
        const { organization, url, description } = addValues(req);
        if (organization === '') throw badRequest('choose the organization the endpoint is for');
        return { url, description: description || null };
      },
      answer: async (req, res, endpoint) => {
        await showSecret(req, res, await services.webhooks.add(addValues(req).organization, endpoint), false);
      },
      mistake: (req, res, message) => list(req, res, addValues(req), message),
    }),

    page('/webhooks/shown/:ticket', 'operator', (req, res) => {
      const shown = secrets.take(req.params.ticket);
      const title = shown ? (shown.rotated ? 'Signing secret rotated' : 'Endpoint added') : 'Secret no longer shown';
      pages.show(req, res, 'webhook-secret.njk', title, { shown }, { section: 'webhooks', status: shown ? 200 : 410 });
    }),

    page('/webhooks/:id/attempts', 'auditor', async (req, res) => {
      const endpoint = await services.webhooks.get(req.params.id);
      const attempts = await services.webhooks.attempts(endpoint.id);
      const at = now();
      pages.show(
        req,
        res,
        'webhook-attempts.njk',
        `Attempts of ${endpoint.id}`,
        { endpoint: row(endpoint, await names()), attempts: attempts.map((attempt) => ({ ...attempt, when: showInstant(attempt.at, at) })), notice: req.query.notice },
        { section: 'webhooks' },
      );
    }),

    form(adminRoute('testWebhook'), {
      path: '/webhooks/:id/test',
      answer: async (req, res) => {
        await services.webhooks.test(req.params.id);
        res.redirect(303, `${req.baseUrl}/webhooks/${encodeURIComponent(req.params.id)}/attempts?notice=test`);
      },
    }),

    form(adminRoute('redeliverWebhookMessage'), {
      path: '/webhooks/:id/messages/:messageId/redeliver',
      answer: async (req, res) => {
        await services.webhooks.redeliver(req.params.id, req.params.messageId);
        res.redirect(303, `${req.baseUrl}/webhooks/${encodeURIComponent(req.params.id)}/attempts?notice=redeliver`);
      },
    }),

    form(adminRoute('rotateWebhookSecret'), {
      path: '/webhooks/:id/rotate',
      answer: async (req, res) => {
        await showSecret(req, res, await services.webhooks.rotate(req.params.id), true);
      },
    }),

    form(adminRoute('updateWebhook'), {
      path: '/webhooks/:id/enabled',
      // The trail names the change: enabled or disabled, as the operation records it.
      action: (req) => (formField(req.body, 'enabled') === 'true' ? 'webhook.enabled' : 'webhook.disabled'),
      body: (req) => ({ enabled: formField(req.body, 'enabled') === 'true' }),
      answer: async (req, res, { enabled }) => {
        back(req, res, await services.webhooks.update(req.params.id, { enabled }));
      },
    }),

    page('/webhooks/:id/remove', 'operator', async (req, res) => {
      const endpoint = await services.webhooks.get(req.params.id);
      pages.show(req, res, 'webhook-remove.njk', `Remove endpoint ${endpoint.id}?`, { endpoint: row(endpoint, await names()) }, { section: 'webhooks' });
    }),

    form(adminRoute('removeWebhook'), {
      path: '/webhooks/:id/remove',
      answer: async (req, res) => {
        const endpoint = await services.webhooks.get(req.params.id);
        await services.webhooks.remove(endpoint.id);
        back(req, res, endpoint);
      },
    }),
  ];
}
