// The key operations speak in their input's field names (admin/operations/keys.ts): an HTTP client
// reads `origins[0]:` and `expiresAt:`, never the CLI's --origin and --expires (bin/flag-words.ts).
import { describe, expect, it } from 'vitest';
import { keyOperations } from '../../../../admin/keys/key-admin.ts';
import { call } from '../../../../admin/operations/operation.ts';
import { adminRoute } from '../../../../admin/api-routes.ts';
import type { OrganizationDirectory } from '../../../../admin/organization-admin.ts';
import { adminProblemOf } from '../../../../admin/problem.ts';
import type { AdminServices } from '../../../../admin/services.ts';
import { type Attribution, ROOT_ACTOR } from '../../../../records/actor.ts';
import { InMemoryKeyStore } from '../../../../records/keys/memory-store.ts';

const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
const organizations: OrganizationDirectory = {
  find: async () => ({ id: ORG, slug: 'nordic-dev' }) as Awaited<ReturnType<OrganizationDirectory['find']>>,
  slugs: async (ids) => new Map(ids.map((id) => [id, 'nordic-dev'])),
};
const services = { keys: keyOperations(new InMemoryKeyStore(), organizations) } as AdminServices;
const root: Attribution = { actor: ROOT_ACTOR, door: 'api' };

/** The detail of the admin API's answer to a createKey body. */
async function refusal(body: Record<string, unknown>) {
  const error = await call(adminRoute('createKey'), services, { params: {}, query: {}, body: { organization: 'nordic-dev', ...body } }, root).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  const problem = adminProblemOf(error);
  return { status: problem?.status, detail: problem?.detail };
}

describe('POST /admin/v1/keys refused for its input', () => {
  it('names the origin at fault by its place in origins, not by a flag', async () => {
    expect(await refusal({ origins: ['https://ok.example', 'not a url'] })).toEqual({
      status: 400,
      detail: 'origins[1]: "not a url" is not an origin: expected http://host[:port] or https://host[:port]',
    });
  });

  it('names a past expiry by expiresAt, not by --expires', async () => {
    expect(await refusal({ expiresAt: '2020-01-01T00:00:00.000Z' })).toEqual({ status: 400, detail: 'expiresAt: 2020-01-01T00:00:00.000Z is not in the future' });
  });
});
