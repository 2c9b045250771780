// Build runs: queued, listed, looked at.
// One declaration per operation (operation.ts): the admin API's route, its OpenAPI operation
// and its audit action are derived from it.
import { operation } from './operation.ts';
import { listOf, schemaRef } from '../api-schemas.ts';
import { buildNotFound } from '../errors.ts';
import { ADMIN_API_BASE, texts, body, ID_PARAMS } from './forms.ts';

/** Each operation of the area, in the order the OpenAPI document lists them. */
export const BUILD_OPERATIONS = [
  operation({
    name: 'startBuild',
    audit: { action: 'build.requested' },
    method: 'post',
    path: '/builds',
    role: 'operator',
    tag: 'Builds',
    summary: 'Queue a build of the organizations named (absent or empty: every one); answered at once with the queued run',
    body: body({ organizations: texts('ids or slugs') }),
    status: 202,
    response: schemaRef('BuildRun'),
    location: (run) => `${ADMIN_API_BASE}/builds/${run.id}`,
    errors: ['ORGANIZATION_NOT_FOUND'],
    run: (services, { body }) => services.builds.start(body.organizations ?? []),
  }),
  operation({
    name: 'listBuilds',
    method: 'get',
    path: '/builds',
    role: 'auditor',
    tag: 'Builds',
    summary: 'The last 100 runs of every builder and of `marquee build`, newest first, each with its trigger and who asked for it (`requestedBy`)',
    status: 200,
    response: listOf('BuildRun'),
    errors: [],
    run: (services) => services.builds.list(),
  }),
  operation({
    name: 'getBuild',
    method: 'get',
    path: '/builds/{id}',
    params: ID_PARAMS,
    role: 'auditor',
    tag: 'Builds',
    summary: 'One run',
    status: 200,
    response: schemaRef('BuildRun'),
    errors: ['BUILD_NOT_FOUND'],
    run: async (services, { params }) => {
      const run = await services.builds.get(params.id);
      if (!run) throw buildNotFound(params.id);
      return run;
    },
  }),
] as const;
