// The webhooks pages: an organization's endpoints with their state, the form that adds one, each
// endpoint's attempts with redelivery, and the actions test, rotate, enable/disable and remove. A
// new signing secret travels to the page that shows it through a one-view ticket (shown-once.ts),
// as a key's does.
import type { Request, Response, Router } from 'express';
import type { WebhookEndpoint } from '../../builder/webhooks/webhook-store.ts';
import { OperatorError } from '../../runtime/errors.ts';
import type { AdminServices } from '../services.ts';
import { requires } from './console-routes.ts';
import type { ListedEndpoint } from '../webhook-admin.ts';
import { formField, type Pages } from './pages.ts';
import { showInstant } from './relative-time.ts';
import { ShownOnce } from './shown-once.ts';

/** An endpoint as listed has its health; one just added, changed or removed does not. */
type Endpoint = WebhookEndpoint & Partial<Pick<ListedEndpoint, 'health'>>;
type ShownSecret = Endpoint & { secret: string; organizationName: string; rotated: boolean; warnings?: string[] };

export function webhookPages(router: Router, { services, pages, now }: { services: AdminServices; pages: Pages; now: () => Date }): void {
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

  router.get('/webhooks', requires('auditor'), (req, res) => list(req, res));

  router.post('/webhooks', requires('operator'), async (req, res) => {
    const values = { organization: formField(req.body, 'organization'), url: formField(req.body, 'url').trim(), description: formField(req.body, 'description').trim() };
    if (values.organization === '') return list(req, res, values, 'choose the organization the endpoint is for');
    let created: Endpoint & { secret: string };
    try {
      created = await services.webhooks.add(values.organization, { url: values.url, description: values.description || null });
    } catch (error) {
      // A refused destination is the operator's to correct on the same form.
      if (error instanceof OperatorError) return list(req, res, values, error.message);
      throw error;
    }
    await showSecret(req, res, created, false);
  });

  router.get('/webhooks/shown/:ticket', requires('operator'), (req, res) => {
    const shown = secrets.take(req.params.ticket);
    const title = shown ? (shown.rotated ? 'Signing secret rotated' : 'Endpoint added') : 'Secret no longer shown';
    pages.show(req, res, 'webhook-secret.njk', title, { shown }, { section: 'webhooks', status: shown ? 200 : 410 });
  });

  router.get('/webhooks/:id/attempts', requires('auditor'), async (req, res) => {
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
  });

  router.post('/webhooks/:id/test', requires('operator'), async (req, res) => {
    await services.webhooks.test(req.params.id);
    res.redirect(303, `${req.baseUrl}/webhooks/${encodeURIComponent(req.params.id)}/attempts?notice=test`);
  });

  router.post('/webhooks/:id/messages/:messageId/redeliver', requires('operator'), async (req, res) => {
    await services.webhooks.redeliver(req.params.id, req.params.messageId);
    res.redirect(303, `${req.baseUrl}/webhooks/${encodeURIComponent(req.params.id)}/attempts?notice=redeliver`);
  });

  router.post('/webhooks/:id/rotate', requires('operator'), async (req, res) => {
    await showSecret(req, res, await services.webhooks.rotate(req.params.id), true);
  });

  router.post('/webhooks/:id/enabled', requires('operator'), async (req, res) => {
    back(req, res, await services.webhooks.update(req.params.id, { enabled: formField(req.body, 'enabled') === 'true' }));
  });

  router.get('/webhooks/:id/remove', requires('operator'), async (req, res) => {
    const endpoint = await services.webhooks.get(req.params.id);
    pages.show(req, res, 'webhook-remove.njk', `Remove endpoint ${endpoint.id}?`, { endpoint: row(endpoint, await names()) }, { section: 'webhooks' });
  });

  router.post('/webhooks/:id/remove', requires('operator'), async (req, res) => {
    const endpoint = await services.webhooks.get(req.params.id);
    await services.webhooks.remove(endpoint.id);
    back(req, res, endpoint);
  });
}
