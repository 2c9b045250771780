// Named admin credentials (credentials/credential-admin.ts).
// One declaration per operation (operation.ts): the admin API's route, its OpenAPI operation
// and its audit action are derived from it.
import { operation } from './operation.ts';
import { listOf, schemaRef } from '../api-schemas.ts';
import { ADMIN_ROLES } from '../../records/actor.ts';
import { requestInstant } from '../request-instant.ts';
import { ADMIN_API_BASE, text, optionalText, body, params, CREDENTIAL_NAME_FORM } from './forms.ts';

/** Each operation of the area, in the order the OpenAPI document lists them. */
export const ADMIN_CREDENTIAL_OPERATIONS = [
  operation({
    name: 'listAdmins',
    method: 'get',
    path: '/admins',
    role: 'owner',
    tag: 'Admins',
    summary: 'Every named admin credential, revoked ones too, never a secret, as `admins list --json`',
    status: 200,
    response: listOf('AdminCredential'),
    errors: [],
    run: (services) => services.admins.list(),
  }),
  operation({
    name: 'createAdmin',
    audit: { action: 'admin.created' },
    method: 'post',
    path: '/admins',
    role: 'owner',
    tag: 'Admins',
    summary: 'Create a named admin credential with a role, as `admins create --json`: the secret is in this answer only',
    body: body(
      {
        name: text('unique, never reused: lower-case letters, digits, `.`, `_`, `@`, `-`; not `root`'),
        role: { enum: [...ADMIN_ROLES], description: 'auditor reads everything; operator also changes keys, webhooks and builds; owner also admin credentials' },
        expiresAt: optionalText('an ISO 8601 instant with a zone, in the future; absent or null: never'),
      },
      ['name', 'role'],
    ),
    status: 201,
    response: schemaRef('NewAdminCredential'),
    location: (credential) => `${ADMIN_API_BASE}/admins/${encodeURIComponent(credential.name)}`,
    errors: ['ADMIN_NAME_TAKEN'],
    run: (services, { body }) =>
      services.admins.create({
        name: body.name,
        role: body.role,
        ...(body.expiresAt !== undefined && body.expiresAt !== null ? { expiresAt: requestInstant('expiresAt', body.expiresAt) } : {}),
      }),
  }),
  operation({
    name: 'revokeAdmin',
    audit: { action: 'admin.revoked' },
    method: 'post',
    path: '/admins/{name}/revoke',
    params: params({ name: CREDENTIAL_NAME_FORM }),
    role: 'owner',
    tag: 'Admins',
    summary: 'Revoke a named admin credential: refused from the next request on, as `admins revoke --json`',
    status: 200,
    response: schemaRef('AdminCredential'),
    errors: ['ADMIN_NOT_FOUND'],
    run: (services, { params }) => services.admins.revoke(params.name),
  }),
] as const;
