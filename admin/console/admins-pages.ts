// The admin credentials pages, for owners: the table, the form that creates a credential (its
// secret shown once, through a one-view ticket as a key's is), and revocation; each form checked as
// its API route checks its body (console-forms.ts).
import type { Request, Response } from 'express';
import { ADMIN_ROLES } from '../../records/actor.ts';
import { adminRoute } from '../api-routes.ts';
import { credentialExpiry, credentialStanding, type NewAdminCredentialView } from '../credentials/credential-admin.ts';
import type { AdminServices } from '../services.ts';
import { form } from './console-forms.ts';
import { type ConsoleRoute, page } from './console-routes.ts';
import { formField, type Pages } from './pages.ts';
import { showInstant } from './relative-time.ts';
import { ShownOnce } from './shown-once.ts';

/** The create form's fields as typed, kept when it is shown again. */
const newCredentialValues = (req: Request) => ({
  name: formField(req.body, 'name').trim(),
  role: formField(req.body, 'role'),
  expires: formField(req.body, 'expires').trim(),
});

export function adminPages({ services, pages }: { services: AdminServices; pages: Pages }): ConsoleRoute[] {
  const secrets = new ShownOnce<NewAdminCredentialView>();

  // The role offered first is the weakest: a credential gets more only when its creator says so.
  const list = async (req: Request, res: Response, values: Record<string, string> = { role: ADMIN_ROLES[0] }, error?: string) => {
    const now = new Date();
    const credentials = (await services.admins.list()).map((credential) => ({
      ...credential,
      standing: credentialStanding(credential, now.getTime()),
      created: showInstant(credential.createdAt, now),
      expires: showInstant(credential.expiresAt, now),
      revoked: showInstant(credential.revokedAt, now),
      lastUsed: showInstant(credential.lastUsedAt, now),
    }));
    pages.show(req, res, 'admins.njk', 'Admin credentials', { credentials, roles: ADMIN_ROLES, values, error }, { section: 'admins', status: error ? 400 : 200 });
  };

  return [
    page('/admins', 'owner', (req, res) => list(req, res)),

    form(adminRoute('createAdmin'), {
      path: '/admins',
      // The form's expiry may be a duration (90d) as well as an instant: it is read when the credential is made.
      body: (req) => {
        const { name, role } = newCredentialValues(req);
        return { name, role };
      },
      answer: async (req, res, { name, role }) => {
        const { expires } = newCredentialValues(req);
        const expiresAt = expires === '' ? null : credentialExpiry(expires, new Date());
        const created = await services.admins.create({ name, role, expiresAt });
        res.redirect(303, `${req.baseUrl}/admins/shown/${secrets.put(created)}`);
      },
      mistake: (req, res, message) => list(req, res, newCredentialValues(req), message),
    }),

    page('/admins/shown/:ticket', 'owner', (req, res) => {
      const created = secrets.take(req.params.ticket);
      pages.show(req, res, 'admin-secret.njk', created ? 'Admin credential created' : 'Secret no longer shown', { created }, { section: 'admins', status: created ? 200 : 410 });
    }),

    page('/admins/:name/revoke', 'owner', async (req, res) => {
      const credential = (await services.admins.list()).find((candidate) => candidate.name === req.params.name);
      if (credential === undefined) return pages.error(req, res, 404, 'Admin credential not found', `No admin credential is named ${req.params.name}.`);
      pages.show(req, res, 'admin-revoke.njk', `Revoke ${credential.name}?`, { credential }, { section: 'admins' });
    }),

    form(adminRoute('revokeAdmin'), {
      path: '/admins/:name/revoke',
      answer: async (req, res) => {
        await services.admins.revoke(req.params.name);
        res.redirect(303, `${req.baseUrl}/admins`);
      },
    }),
  ];
}
