// Every error of docs/api.md §7 and the docs/design.md decisions table, as one problem+json shape from one place.
import { describe, expect, it } from 'vitest';
import { SnapshotIntegrityError } from '../../../snapshot/reader.ts';
import type { ProblemDetails } from '../../../snapshot/schema-types.ts';
import { SchemaSet } from '../../../snapshot/schemas.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { acmeFixture, API, publishFixture, type Reply, startHarness } from '../../support/gateway-fixtures.ts';
import { useAcmeWorld } from '../../support/gateway-world.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';

const schemas = new SchemaSet();
const acme = useAcmeWorld();

/** The shape every error shares (docs/design.md "caching headers", "CORS"; "Gateway": nosniff). */
function expectProblem(reply: Reply, status: number, errorCode: string, instance: string): ProblemDetails {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(reply.headers['cache-control']).toBe('no-store');
  expect(reply.headers.etag).toBeUndefined();
  expect(reply.headers['access-control-allow-origin']).toBe('*');
  expect(reply.headers['x-content-type-options']).toBe('nosniff');
  const problem = reply.json<ProblemDetails>();
  expect(schemas.validate('problem-details', problem)).toEqual({ valid: true });
  // `instance`: the path, then the request id the response carries (gateway/problem.ts).
  expect(problem).toMatchObject({ status, errorCode, instance: `${instance}#request=${reply.headers['x-request-id']}` });
  expect(problem.type).toMatch(/^https:\/\//);
  expect(problem.title).toBeTruthy();
  expect(problem.detail).toBeTruthy();
  return problem;
}

describe('400 BAD_REQUEST', () => {
  it.each([
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['pageSize=101', 'pageSize'],
    ['pageSize=0', 'pageSize'],
    ['timing=soon', 'timing'],
    ['page=1&page=2', 'page'],
  ])('GET /events?%s names %s', async (query, parameter) => {
    const problem = expectProblem(await acme.call(`/events?${query}`), 400, 'BAD_REQUEST', `${API}/events`);
    expect(problem.detail).toMatch(new RegExp(`^${parameter} `));
  });

  it('comes after the key check: no key is 401 whatever the parameters', async () => {
    expectProblem(await acme.harness.call(`${API}/events?page=0`), 401, 'API_KEY_INVALID', `${API}/events`);
  });

  it('a path parameter that is not valid percent-encoding', async () => {
    expectProblem(await acme.call('/events/%E0%A4%A'), 400, 'BAD_REQUEST', `${API}/events/%E0%A4%A`);
  });
});

describe('401 API_KEY_INVALID', () => {
  it.each(['/organization', '/events', '/events/acme-conf', '/events/acme-conf/sessions', '/no-such-path'])('%s without a key', async (path) => {
    expectProblem(await acme.harness.call(`${API}${path}`), 401, 'API_KEY_INVALID', `${API}${path}`);
  });

  it('with a malformed or revoked key', async () => {
    expectProblem(await acme.harness.call(`${API}/organization`, { key: 'mqk_nope' }), 401, 'API_KEY_INVALID', `${API}/organization`);
    const { record, secret } = await acme.harness.keys.create({ organizationId: acme.fixture.organization.id, label: null, origins: [] });
    await acme.harness.keys.revoke(record.id, new Date());
    expectProblem(await acme.harness.call(`${API}/organization`, { key: secret }), 401, 'API_KEY_INVALID', `${API}/organization`);
  });
});

describe('403', () => {
  it('ORGANIZATION_SUSPENDED for a suspended or closed organization, from the next request after the pointer changes', async () => {
    const local = await startHarness();
    try {
      const org = new PlatformFixture();
      acmeFixture(org);
      await publishFixture(local.store, org);
      const orgKey = await local.keyFor(org.organization.id);
      expect((await local.call(`${API}/organization`, { key: orgKey })).status).toBe(200);
      for (const state of ['suspended', 'closed'] as const) {
        await publishFixture(local.store, org, { state });
        await local.channel.announce(org.organization.id);
        for (const path of ['/organization', '/events', '/events/acme-conf']) {
          expectProblem(await local.call(`${API}${path}`, { key: orgKey }), 403, 'ORGANIZATION_SUSPENDED', `${API}${path}`);
        }
      }
      await publishFixture(local.store, org);
      await local.channel.announce(org.organization.id);
      expect((await local.call(`${API}/organization`, { key: orgKey })).status).toBe(200);
    } finally {
      await local.close();
    }
  });

  it("API_KEY_ORIGIN_NOT_ALLOWED for a browser origin not on the key's list", async () => {
    const browserKey = await acme.harness.keyFor(acme.fixture.organization.id, ['https://acme.example']);
    const headers = { origin: 'https://evil.example' };
    expectProblem(await acme.harness.call(`${API}/events`, { key: browserKey, headers }), 403, 'API_KEY_ORIGIN_NOT_ALLOWED', `${API}/events`);
    const allowed = await acme.harness.call(`${API}/events`, { key: browserKey, headers: { origin: 'https://acme.example' } });
    expect(allowed.status).toBe(200);
  });
});

describe('404', () => {
  it.each([
    ['an unknown id', '0a0a0a0a-0000-4000-8000-000000000000'],
    ['an unknown slug', 'no-such-event'],
    ['a draft by slug', 'secret'],
    ['a cancelled event by slug', 'cancelled'],
    ['a sub-resource path smuggled in with %2F', `${'ID'}%2Fsessions`],
  ])('EVENT_NOT_FOUND for %s', async (_what, idOrSlug) => {
    const segment = idOrSlug.replace('ID', acme.events.conference.id);
    expectProblem(await acme.call(`/events/${segment}`), 404, 'EVENT_NOT_FOUND', `${API}/events/${segment}`);
    expectProblem(await acme.call(`/events/${segment}/sponsors`), 404, 'EVENT_NOT_FOUND', `${API}/events/${segment}/sponsors`);
  });

  it('EVENT_NOT_FOUND for a draft by id', async () => {
    expectProblem(await acme.call(`/events/${acme.events.draft.id}`), 404, 'EVENT_NOT_FOUND', `${API}/events/${acme.events.draft.id}`);
  });

  it.each(['/nothing', '/events/acme-conf/tickets', '/Organization', '/organization/extra', '/events/acme-conf/sessions/x'])(
    'NOT_FOUND for the unknown API path %s',
    async (path) => {
      expectProblem(await acme.call(path), 404, 'NOT_FOUND', `${API}${path}`);
    },
  );

  it.each(['/', '/api', '/api/integration/v2/organization', '/favicon.ico'])('NOT_FOUND outside the API (%s), without a key', async (path) => {
    expectProblem(await acme.harness.call(path), 404, 'NOT_FOUND', path);
  });

  it('NOT_FOUND while the organization has published nothing yet (decision: its key is valid, there is just nothing there)', async () => {
    const unpublishedKey = await acme.harness.keyFor('00000000-0000-4000-8000-0000000fffff');
    const problem = expectProblem(await acme.harness.call(`${API}/events`, { key: unpublishedKey }), 404, 'NOT_FOUND', `${API}/events`);
    expect(problem.detail).toMatch(/published/);
  });
});

describe('405 METHOD_NOT_ALLOWED', () => {
  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('%s on an API resource, with Allow', async (method) => {
    for (const path of ['/organization', '/events', '/events/acme-conf', '/events/acme-conf/sessions']) {
      const reply = await acme.call(path, { method });
      expectProblem(reply, 405, 'METHOD_NOT_ALLOWED', `${API}${path}`);
      expect(reply.headers.allow).toBe('GET, HEAD, OPTIONS');
    }
  });
});

describe('conditional headers never turn an error into a 304', () => {
  it('If-None-Match: * on a missing event is still 404', async () => {
    const reply = await acme.call('/events/nope', { headers: { 'if-none-match': '*' } });
    expectProblem(reply, 404, 'EVENT_NOT_FOUND', `${API}/events/nope`);
  });
});

describe('500 INTERNAL_ERROR', () => {
  it('answers a bare problem and logs the stack, never showing the internal message', async () => {
    const store = new MemoryStore();
    const local = await startHarness({ store });
    try {
      const org = new PlatformFixture();
      acmeFixture(org);
      await publishFixture(store, org);
      const orgKey = await local.keyFor(org.organization.id);
      // Corrupt the organization object: the gateway detects it by its hash.
      for (const entry of await store.list(`orgs/${org.organization.id}/objects/`)) {
        const bytes = (await store.get(entry))!;
        if (bytes.toString('utf8').includes('"publicUrl":"https://events.example.com/acme"')) await store.put(entry, Buffer.from('{"secret":"internal"}'));
      }
      const reply = await local.call(`${API}/organization`, { key: orgKey });
      const problem = expectProblem(reply, 500, 'INTERNAL_ERROR', `${API}/organization`);
      expect(reply.body).not.toMatch(/corrupt|objects\/|internal"|at .*\.ts/);
      expect(problem.detail).not.toContain(org.organization.id);
      const errors = local.log.lines.filter((line) => line.level === 'error');
      expect(errors).toHaveLength(1);
      // The error itself, for the log to write with its causes and stack (bin/log.ts).
      expect(errors[0]!.fields.err).toBeInstanceOf(SnapshotIntegrityError);
      expect(errors[0]!.fields.path).toBe(`${API}/organization`);
      // The other resources still answer.
      expect((await local.call(`${API}/events`, { key: orgKey })).status).toBe(200);
    } finally {
      await local.close();
    }
  });
});
