// The organizations of the platform, with their state and last build.
// One declaration per operation (operation.ts): the admin API's route, its OpenAPI operation
// and its audit action are derived from it.
import { operation } from './operation.ts';
import { listOf } from '../api-schemas.ts';
import { ORGANIZATION_PAGE_MAX } from '../organization-admin.ts';
import { text, query } from './forms.ts';

/** Each operation of the area, in the order the OpenAPI document lists them. */
export const ORGANIZATION_OPERATIONS = [
  operation({
    name: 'listOrganizations',
    method: 'get',
    path: '/organizations',
    role: 'auditor',
    tag: 'Organizations',
    summary:
      'Organizations by slug, each with its platform state, current snapshot and last build (by any process): every one, or with `limit` a page at a time (ask again `after` the last slug of a page until a page is empty or shorter), only those `search` finds',
    query: query({
      search: { ...text('only organizations whose slug or name contains this text, whatever its case'), maxLength: 200 },
      after: text('only organizations whose slug sorts after this one: the last slug of the previous page'),
      before: text('only organizations whose slug sorts before this one, the nearest first (the page before the first slug of a page); not with `after`'),
      limit: { type: 'string', pattern: '^[0-9]+$', description: `at most this many organizations (at most ${ORGANIZATION_PAGE_MAX}); absent: every one` },
    }),
    status: 200,
    response: listOf('OrganizationOverview'),
    errors: [],
    // Without any of them, every organization, as before paging was offered.
    run: async (services, { query }) => {
      const page = await services.organizations.page({
        ...(query.search !== undefined ? { search: query.search } : {}),
        ...(query.after !== undefined ? { after: query.after } : {}),
        ...(query.before !== undefined ? { before: query.before } : {}),
        ...(query.limit !== undefined ? { limit: Number(query.limit) } : {}),
      });
      return page.organizations;
    },
  }),
] as const;
