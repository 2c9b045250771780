// Histories verified, one organization's at once or every one's as a background job (verification-admin.ts).
// One declaration per operation (operation.ts): the admin API's route, its OpenAPI operation
// and its audit action are derived from it.
import { operation } from './operation.ts';
import { listOf, schemaRef } from '../api-schemas.ts';
import { ADMIN_API_BASE, ORGANIZATION_PARAMS, ID_PARAMS } from './forms.ts';

/** Each operation of the area, in the order the OpenAPI document lists them. */
export const VERIFICATION_OPERATIONS = [
  operation({
    name: 'verifyOrganization',
    method: 'get',
    path: '/organizations/{idOrSlug}/verify',
    params: ORGANIZATION_PARAMS,
    role: 'auditor',
    tag: 'Verifications',
    summary:
      "The organization's history verified against the platform database, as `verify --org ID --json`: `ok` false with the first break when it does not hold (answered 200 all the same: the break is the finding). An id the platform no longer knows is verified from the store",
    status: 200,
    response: schemaRef('HistoryVerification'),
    errors: ['ORGANIZATION_NOT_FOUND'],
    run: (services, { params }) => services.verifications.organization(params.idOrSlug),
  }),
  operation({
    name: 'startVerification',
    audit: { action: 'verification.requested' },
    method: 'post',
    path: '/verifications',
    role: 'auditor',
    tag: 'Verifications',
    summary:
      'Start verifying every organization in the background, as `verify --all --json`; answered at once with the job. While one runs, a second request is answered with the running one (its startedAt says when it began)',
    status: 202,
    response: schemaRef('VerificationJob'),
    location: (job) => `${ADMIN_API_BASE}/verifications/${job.id}`,
    errors: [],
    run: (services) => services.verifications.start(),
  }),
  operation({
    name: 'listVerifications',
    method: 'get',
    path: '/verifications',
    role: 'auditor',
    tag: 'Verifications',
    summary: 'The verifications this process keeps, newest first: the running one and the last 20 finished (a restart forgets them)',
    status: 200,
    response: listOf('VerificationJob'),
    errors: [],
    run: (services) => services.verifications.list(),
  }),
  operation({
    name: 'getVerification',
    method: 'get',
    path: '/verifications/{id}',
    params: ID_PARAMS,
    role: 'auditor',
    tag: 'Verifications',
    summary: 'One verification: while running, how many organizations are done of how many; once finished, the summary and each broken organization with its break',
    status: 200,
    response: schemaRef('VerificationJob'),
    errors: ['VERIFICATION_NOT_FOUND'],
    run: (services, { params }) => services.verifications.get(params.id),
  }),
] as const;
