// The admin credentials pages, for owners: the table, the form that creates a credential (its
// secret shown once, through a one-view ticket as a key's is), and revocation.
import type { Request, Response, Router } from 'express';
import { OperatorError } from '../../runtime/errors.ts';
import { credentialExpiry, credentialStanding, type NewAdminCredentialView } from '../credentials/credential-admin.ts';
import type { AdminServices } from '../services.ts';
import { requires } from './console-routes.ts';
import { formField, type Pages } from './pages.ts';
import { showInstant } from './relative-time.ts';
import { ShownOnce } from './shown-once.ts';

const ROLES = ['auditor', 'operator', 'owner'] as const;

export function adminPages(router: Router, { services, pages }: { services: AdminServices; pages: Pages }): void {
  const secrets = new ShownOnce<NewAdminCredentialView>();

  const list = async (req: Request, res: Response, values: Record<string, string> = { role: 'auditor' }, error?: string) => {
    const now = new Date();
    const credentials = (await services.admins.list()).map((credential) => ({
      ...credential,
      standing: credentialStanding(credential, now.getTime()),
      created: showInstant(credential.createdAt, now),
      expires: showInstant(credential.expiresAt, now),
      revoked: showInstant(credential.revokedAt, now),
      lastUsed: showInstant(credential.lastUsedAt, now),
    }));
    pages.show(req, res, 'admins.njk', 'Admin credentials', { credentials, roles: ROLES, values, error }, { section: 'admins', status: error ? 400 : 200 });
  };

  router.get('/admins', requires('owner'), (req, res) => list(req, res));

  router.post('/admins', requires('owner'), async (req, res) => {
    const values = { name: formField(req.body, 'name').trim(), role: formField(req.body, 'role'), expires: formField(req.body, 'expires').trim() };
    let created: NewAdminCredentialView;
    try {
      const expiresAt = values.expires === '' ? null : credentialExpiry(values.expires, new Date());
      created = await services.admins.create({ name: values.name, role: values.role, expiresAt });
    } catch (error) {
      // A bad name, a name taken, a bad expiry: said on the same form.
      if (!(error instanceof OperatorError)) throw error;
      return list(req, res, values, error.message);
    }
    res.redirect(303, `${req.baseUrl}/admins/shown/${secrets.put(created)}`);
  });

  router.get('/admins/shown/:ticket', requires('owner'), (req, res) => {
    const created = secrets.take(req.params.ticket);
    pages.show(req, res, 'admin-secret.njk', created ? 'Admin credential created' : 'Secret no longer shown', { created }, { section: 'admins', status: created ? 200 : 410 });
  });

  router.get('/admins/:name/revoke', requires('owner'), async (req, res) => {
    const credential = (await services.admins.list()).find((candidate) => candidate.name === req.params.name);
    if (credential === undefined) return pages.error(req, res, 404, 'Admin credential not found', `No admin credential is named ${req.params.name}.`);
    pages.show(req, res, 'admin-revoke.njk', `Revoke ${credential.name}?`, { credential }, { section: 'admins' });
  });

  router.post('/admins/:name/revoke', requires('owner'), async (req, res) => {
    await services.admins.revoke(req.params.name);
    res.redirect(303, `${req.baseUrl}/admins`);
  });
}
