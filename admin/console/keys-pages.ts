// The keys pages: the table, and the forms that create, edit, roll and revoke a key. A new
// secret travels from the POST to the page that shows it through a one-view ticket
// (shown-once.ts), so it is never in an address, a log line or a page that can be reloaded.
import { DEFAULT_ROLL_GRACE_MS } from '../keys/key-admin.ts';
import type { Request, Response, Router } from 'express';
import { OperatorError } from '../../runtime/errors.ts';
import { AdminError } from '../errors.ts';
import type { AdminServices } from '../services.ts';
import { requires } from './console-routes.ts';
import { type KeyItem, keyRow, originLines } from './keys-view.ts';
import { formField, type Pages } from './pages.ts';
import { ShownOnce } from './shown-once.ts';

/** A key just made, with its secret (shown once). */
type CreatedKey = Awaited<ReturnType<AdminServices['keys']['create']>>;

type ShownKey = CreatedKey & {
  organizationName: string;
  rolled: boolean;
};

/** An old key works this long after a roll unless the operator says otherwise: time to deploy the new one. */
/** The CLI's and the API's default, in the form's unit. */
const DEFAULT_GRACE_MINUTES = DEFAULT_ROLL_GRACE_MS / 60_000;

/** A refusal the operator can correct on the same form (a bad origin, a bad instant), as opposed to a failure. */
function formMistake(error: unknown): string | undefined {
  if (error instanceof AdminError && error.status === 400) return error.detail;
  if (error instanceof OperatorError) return error.message;
  return undefined;
}

export function keyPages(router: Router, { services, pages, now }: { services: AdminServices; pages: Pages; now: () => Date }): void {
  const secrets = new ShownOnce<ShownKey>();
  const names = async () => new Map((await services.organizations.list()).map((org) => [org.id, org.name]));
  const findKey = async (keyId: string) => {
    const key = (await services.keys.get(keyId)) as KeyItem;
    return keyRow(key, await names(), now());
  };
  const showSecret = async (res: Response, req: Request, created: CreatedKey, rolled: boolean) => {
    const organizationName = (await names()).get(created.organizationId) ?? created.organizationId;
    const ticket = secrets.put({ ...created, organizationName, rolled });
    res.redirect(303, `${req.baseUrl}/keys/shown/${ticket}`);
  };

  router.get('/keys', requires('auditor'), async (req, res) => {
    const selected = typeof req.query.organization === 'string' && req.query.organization !== '' ? req.query.organization : undefined;
    const organizations = await services.organizations.list();
    const organization = selected === undefined ? undefined : await services.organizations.find(selected);
    const keys = (await services.keys.list(organization?.id)) as KeyItem[];
    const organizationNames = new Map(organizations.map((org) => [org.id, org.name]));
    const at = now();
    pages.show(
      req,
      res,
      'keys.njk',
      organization ? `Keys of ${organizationNames.get(organization.id)}` : 'Keys',
      { keys: keys.map((key) => keyRow(key, organizationNames, at)), organizations, organization: organizations.find((org) => org.id === organization?.id) },
      { section: 'keys' },
    );
  });

  const showNew = async (req: Request, res: Response, values: Record<string, string>, error?: string) =>
    pages.show(req, res, 'key-new.njk', 'Create a key', { organizations: await services.organizations.list(), values, error }, { section: 'keys', status: error ? 400 : 200 });

  router.get('/keys/new', requires('operator'), (req, res) => showNew(req, res, { organization: typeof req.query.organization === 'string' ? req.query.organization : '' }));

  router.post('/keys', requires('operator'), async (req, res) => {
    const values = {
      organization: formField(req.body, 'organization'),
      label: formField(req.body, 'label').trim(),
      origins: formField(req.body, 'origins'),
      expiresAt: formField(req.body, 'expiresAt').trim(),
    };
    if (values.organization === '') return showNew(req, res, values, 'choose the organization the key is for');
    if (values.expiresAt !== '' && Number.isNaN(Date.parse(values.expiresAt))) return showNew(req, res, values, `${values.expiresAt} is not an ISO 8601 instant`);
    const expiresAt = values.expiresAt === '' ? null : new Date(values.expiresAt);
    let created: CreatedKey;
    try {
      created = await services.keys.create({
        organization: values.organization,
        origins: originLines(values.origins),
        label: values.label || null,
        ...(expiresAt ? { expiresAt } : {}),
      });
    } catch (error) {
      const mistake = formMistake(error);
      if (mistake === undefined) throw error;
      return showNew(req, res, values, mistake);
    }
    await showSecret(res, req, created, false);
  });

  router.get('/keys/shown/:ticket', requires('operator'), (req, res) => {
    const created = secrets.take(req.params.ticket);
    pages.show(
      req,
      res,
      'key-secret.njk',
      created ? (created.rolled ? 'Key rolled' : 'Key created') : 'Secret no longer shown',
      { created, rolled: created?.rolled },
      { section: 'keys', status: created ? 200 : 410 },
    );
  });

  const showEdit = async (req: Request, res: Response, values?: Record<string, string>, error?: string) => {
    const key = await findKey(req.params.keyId as string);
    const shown = values ?? { label: key.label ?? '', origins: key.origins.join('\n') };
    pages.show(req, res, 'key-edit.njk', `Edit key ${key.id}`, { key, values: shown, error }, { section: 'keys', status: error ? 400 : 200 });
  };

  router.get('/keys/:keyId/edit', requires('operator'), (req, res) => showEdit(req, res));

  router.post('/keys/:keyId', requires('operator'), async (req, res) => {
    const values = { label: formField(req.body, 'label').trim(), origins: formField(req.body, 'origins') };
    let updated: KeyItem;
    try {
      updated = await services.keys.update(req.params.keyId, { label: values.label || null, origins: originLines(values.origins) });
    } catch (error) {
      const mistake = formMistake(error);
      if (mistake === undefined) throw error;
      return showEdit(req, res, values, mistake);
    }
    res.redirect(303, `${req.baseUrl}/keys?organization=${encodeURIComponent(updated.organizationId)}`);
  });

  router.get('/keys/:keyId/roll', requires('operator'), async (req, res) => {
    const key = await findKey(req.params.keyId);
    pages.show(req, res, 'key-roll.njk', `Roll key ${key.id}`, { key, values: { graceMinutes: String(DEFAULT_GRACE_MINUTES) } }, { section: 'keys' });
  });

  router.post('/keys/:keyId/roll', requires('operator'), async (req, res) => {
    const minutes = Number(formField(req.body, 'graceMinutes'));
    if (!Number.isInteger(minutes) || minutes < 0) {
      const key = await findKey(req.params.keyId);
      const error = 'the grace period is a whole number of minutes, 0 or more';
      return pages.show(
        req,
        res,
        'key-roll.njk',
        `Roll key ${key.id}`,
        { key, values: { graceMinutes: formField(req.body, 'graceMinutes') }, error },
        { section: 'keys', status: 400 },
      );
    }
    const { replacement: created } = await services.keys.roll(req.params.keyId, { graceSeconds: minutes * 60 });
    await showSecret(res, req, created, true);
  });

  router.get('/keys/:keyId/revoke', requires('operator'), async (req, res) => {
    const key = await findKey(req.params.keyId);
    pages.show(req, res, 'key-revoke.njk', `Revoke key ${key.id}?`, { key }, { section: 'keys' });
  });

  router.post('/keys/:keyId/revoke', requires('operator'), async (req, res) => {
    const revoked = await services.keys.revoke(req.params.keyId);
    res.redirect(303, `${req.baseUrl}/keys?organization=${encodeURIComponent(revoked.organizationId)}`);
  });
}
