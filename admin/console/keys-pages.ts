// The keys pages: the table (each key's requests of the last day beside its last use, its id
// opening its usage page: usage-pages.ts), and the forms that create, edit, roll and revoke a key,
// each checked as its API route checks its body (console-forms.ts). A new secret travels from the
// POST to the page that shows it through a one-view ticket (shown-once.ts), so it is never in an
// address, a log line or a page that can be reloaded.
import type { Request, Response } from 'express';
import { adminRoute } from '../api-routes.ts';
import { badRequest } from '../errors.ts';
import { DEFAULT_ROLL_GRACE_MS } from '../keys/key-admin.ts';
import type { AdminServices } from '../services.ts';
import { form } from './console-forms.ts';
import { type ConsoleRoute, type PageRequest, page } from './console-routes.ts';
import { type KeyItem, keyRow, originLines } from './keys-view.ts';
import { formField, type Pages } from './pages.ts';
import { ShownOnce } from './shown-once.ts';
import { countText } from './usage-chart.ts';

/** A key just made, with its secret (shown once). */
type CreatedKey = Awaited<ReturnType<AdminServices['keys']['create']>>;

type ShownKey = CreatedKey & {
  organizationName: string;
  rolled: boolean;
};

/** An old key works this long after a roll unless the operator says otherwise: time to deploy the new one. The CLI's and the API's default, in the form's unit. */
const DEFAULT_GRACE_MINUTES = DEFAULT_ROLL_GRACE_MS / 60_000;

/** The create form's fields as typed, kept when it is shown again. */
const newKeyValues = (req: Request) => ({
  organization: formField(req.body, 'organization'),
  label: formField(req.body, 'label').trim(),
  origins: formField(req.body, 'origins'),
  expiresAt: formField(req.body, 'expiresAt').trim(),
});

const editValues = (req: Request) => ({ label: formField(req.body, 'label').trim(), origins: formField(req.body, 'origins') });

export function keyPages({ services, pages, now }: { services: AdminServices; pages: Pages; now: () => Date }): ConsoleRoute[] {
  const secrets = new ShownOnce<ShownKey>();
  const names = async () => new Map((await services.organizations.list()).map((org) => [org.id, org.name]));
  const findKey = async (keyId: string) => {
    const key: KeyItem = await services.keys.get(keyId);
    return keyRow(key, await names(), now());
  };
  const showSecret = async (res: Response, req: Request, created: CreatedKey, rolled: boolean) => {
    const organizationName = (await names()).get(created.organizationId) ?? created.organizationId;
    const ticket = secrets.put({ ...created, organizationName, rolled });
    res.redirect(303, `${req.baseUrl}/keys/shown/${ticket}`);
  };
  const showNew = async (req: Request, res: Response, values: Record<string, string>, error?: string) =>
    pages.show(req, res, 'key-new.njk', 'Create a key', { organizations: await services.organizations.list(), values, error }, { section: 'keys', status: error ? 400 : 200 });
  const showEdit = async (req: PageRequest<'/keys/:keyId'>, res: Response, values?: Record<string, string>, error?: string) => {
    const key = await findKey(req.params.keyId);
    const shown = values ?? { label: key.label ?? '', origins: key.origins.join('\n') };
    pages.show(req, res, 'key-edit.njk', `Edit key ${key.id}`, { key, values: shown, error }, { section: 'keys', status: error ? 400 : 200 });
  };
  const showRoll = async (req: PageRequest<'/keys/:keyId/roll'>, res: Response, graceMinutes: string, error?: string) => {
    const key = await findKey(req.params.keyId);
    pages.show(req, res, 'key-roll.njk', `Roll key ${key.id}`, { key, values: { graceMinutes }, error }, { section: 'keys', status: error ? 400 : 200 });
  };

  return [
    page('/keys', 'auditor', async (req, res) => {
      const selected = typeof req.query.organization === 'string' && req.query.organization !== '' ? req.query.organization : undefined;
      const organizations = await services.organizations.list();
      const organization = selected === undefined ? undefined : await services.organizations.find(selected);
      // Each key with its last day's requests, as `keys list` and GET /admin/v1/keys have them: one grouped query, not one per row.
      const keys = await services.usage.keyList(organization?.id);
      const organizationNames = new Map(organizations.map((org) => [org.id, org.name]));
      const at = now();
      const rows = keys.map((key) => ({ ...keyRow(key, organizationNames, at), requestsLastDay: countText(key.requests24h) }));
      pages.show(
        req,
        res,
        'keys.njk',
        organization ? `Keys of ${organizationNames.get(organization.id)}` : 'Keys',
        { keys: rows, organizations, organization: organizations.find((org) => org.id === organization?.id) },
        { section: 'keys' },
      );
    }),

    page('/keys/new', 'operator', (req, res) => showNew(req, res, { organization: typeof req.query.organization === 'string' ? req.query.organization : '' })),

    form(adminRoute('createKey'), {
      path: '/keys',
      body: (req) => {
        const values = newKeyValues(req);
        if (values.organization === '') throw badRequest('choose the organization the key is for');
        if (values.expiresAt !== '' && Number.isNaN(Date.parse(values.expiresAt))) throw badRequest(`${values.expiresAt} is not an ISO 8601 instant`);
        return {
          organization: values.organization,
          origins: originLines(values.origins),
          label: values.label || null,
          ...(values.expiresAt === '' ? {} : { expiresAt: values.expiresAt }),
        };
      },
      answer: async (req, res, { organization, origins, label, expiresAt }) => {
        const created = await services.keys.create({ organization, origins, label, ...(expiresAt ? { expiresAt: new Date(expiresAt) } : {}) });
        await showSecret(res, req, created, false);
      },
      mistake: (req, res, message) => showNew(req, res, newKeyValues(req), message),
    }),

    page('/keys/shown/:ticket', 'operator', (req, res) => {
      const created = secrets.take(req.params.ticket);
      pages.show(
        req,
        res,
        'key-secret.njk',
        created ? (created.rolled ? 'Key rolled' : 'Key created') : 'Secret no longer shown',
        { created, rolled: created?.rolled },
        { section: 'keys', status: created ? 200 : 410 },
      );
    }),

    page('/keys/:keyId/edit', 'operator', (req, res) => showEdit(req, res)),

    form(adminRoute('updateKey'), {
      path: '/keys/:keyId',
      body: (req) => {
        const values = editValues(req);
        return { label: values.label || null, origins: originLines(values.origins) };
      },
      answer: async (req, res, changes) => {
        const updated = await services.keys.update(req.params.keyId, changes);
        res.redirect(303, `${req.baseUrl}/keys?organization=${encodeURIComponent(updated.organizationId)}`);
      },
      mistake: (req, res, message) => showEdit(req, res, editValues(req), message),
    }),

    page('/keys/:keyId/roll', 'operator', (req, res) => showRoll(req, res, String(DEFAULT_GRACE_MINUTES))),

    form(adminRoute('rollKey'), {
      path: '/keys/:keyId/roll',
      // Minutes on the form, seconds in the API.
      body: (req) => {
        const minutes = Number(formField(req.body, 'graceMinutes'));
        if (!Number.isInteger(minutes) || minutes < 0) throw badRequest('the grace period is a whole number of minutes, 0 or more');
        return { graceSeconds: minutes * 60 };
      },
      answer: async (req, res, { graceSeconds }) => {
        const { replacement: created } = await services.keys.roll(req.params.keyId, { graceSeconds });
        await showSecret(res, req, created, true);
      },
      mistake: (req, res, message) => showRoll(req, res, formField(req.body, 'graceMinutes'), message),
    }),

    page('/keys/:keyId/revoke', 'operator', async (req, res) => {
      const key = await findKey(req.params.keyId);
      pages.show(req, res, 'key-revoke.njk', `Revoke key ${key.id}?`, { key }, { section: 'keys' });
    }),

    form(adminRoute('revokeKey'), {
      path: '/keys/:keyId/revoke',
      answer: async (req, res) => {
        const revoked = await services.keys.revoke(req.params.keyId);
        res.redirect(303, `${req.baseUrl}/keys?organization=${encodeURIComponent(revoked.organizationId)}`);
      },
    }),
  ];
}
