// The admin API's OpenAPI document (admin/api-document.ts), as the public one is checked
// (test/unit/openapi/): it passes Redocly's recommended ruleset, it has every route of the table
// (admin/api-routes.ts) and nothing else, and the admin port serves it behind the token. The
// admin app here runs in-process over the console's fake services: each answer is checked against
// the document, and a query or body that breaks a route's schema is a 400 naming the field.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApiDocument } from '../../../admin/api-document.ts';
import { ADMIN_API_BASE, ADMIN_ROUTES } from '../../../admin/api-routes.ts';
import { createAdminApp } from '../../../admin/app.ts';
import { assertAdminContract } from '../../support/admin-contract.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { fakeServices } from './console/fake-services.ts';

const TOKEN = 'the-admin-token-1234';
const document = adminApiDocument() as { paths: Record<string, Record<string, { operationId: string }>> };

describe("the admin API's OpenAPI document", () => {
  it('passes the recommended ruleset with no errors and no warnings', async () => {
    const config = await createConfig({
      extends: ['recommended'],
      rules: {
        // As the public document: the API is not published under a licence.
        'info-license': 'off',
      },
    });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: `${ADMIN_API_BASE}/openapi.json`, config });
    expect(problems.map(explain)).toEqual([]);
  });

  it('has every declared route, under its name, and no operation the table does not declare but itself', () => {
    const declared = ADMIN_ROUTES.map((route) => `${route.method} ${route.path} ${route.name}`);
    const described = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => `${method} ${path} ${operation.operationId}`));
    expect(described.sort()).toEqual([...declared, 'get /openapi.json getAdminApiDocument'].sort());
  });
});

describe('the admin port', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    const app = createAdminApp({ token: TOKEN, registry: new Registry(), readiness: () => ({ status: 'ready', backends: {} }), log: new RecordingLog(), services: fakeServices() });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  /** A request to the admin API, its answer checked against the document. */
  const request = async (method: string, path: string, body?: unknown, token = TOKEN) => {
    const url = `${origin}${ADMIN_API_BASE}${path}`;
    const response = await fetch(url, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    await assertAdminContract(method, url, response);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('serves the document at /admin/v1/openapi.json, with the token only', async () => {
    expect(await request('GET', '/openapi.json')).toEqual({ status: 200, body: JSON.parse(JSON.stringify(document)) });
    expect((await request('GET', '/openapi.json', undefined, 'not-the-token')).status).toBe(401);
  });

  it('answers as the document says', async () => {
    expect((await request('GET', '/organizations')).status).toBe(200);
    const queued = await request('POST', '/builds', { organizations: ['nordic-dev'] });
    expect(queued.status).toBe(202);
    expect((await request('GET', `/builds/${queued.body.id}`)).status).toBe(200);
    expect((await request('GET', '/builds/run-none')).body).toMatchObject({ status: 404, errorCode: 'BUILD_NOT_FOUND' });
    expect((await request('POST', '/builds', { organizations: ['nowhere'] })).body).toMatchObject({ status: 404, errorCode: 'ORGANIZATION_NOT_FOUND' });
  });

  it.each([
    ['POST', '/builds', [], 'the request body must be a JSON object'],
    ['POST', '/builds', { organizations: 'nordic-dev' }, 'organizations must be an array of strings'],
    ['POST', '/builds', { organizations: [1] }, 'organizations must be an array of strings'],
    ['POST', '/keys', {}, 'organization (the organization, by id or slug) is required'],
    ['POST', '/keys', { organization: '' }, 'organization must be a non-empty string'],
    ['POST', '/keys', { organization: 'nordic-dev', label: 7 }, 'label must be a string or null'],
    ['POST', '/keys', { organization: 'nordic-dev', expiresAt: 'tomorrow' }, 'expiresAt must be an ISO 8601 instant with a zone'],
    ['PATCH', '/keys/key_1', { origins: [null] }, 'origins must be an array of strings'],
    ['POST', '/keys/key_1/roll', { graceSeconds: -1 }, 'graceSeconds must be a number, 0 or more'],
    ['POST', '/keys/key_1/roll', { graceSeconds: '60' }, 'graceSeconds must be a number, 0 or more'],
    ['POST', '/organizations/nordic-dev/webhooks', { description: 'x' }, 'url (where messages are POSTed: an https URL with a public address) is required'],
    ['PATCH', '/webhooks/ep_1', { enabled: 'yes' }, 'enabled must be true or false'],
    ['GET', '/organizations/nordic-dev/diff?to=current', undefined, 'the query parameter from is required'],
    ['GET', '/organizations/nordic-dev/diff?from=a&from=b&to=current', undefined, 'the query parameter from must be given once, as text'],
    ['GET', '/keys?organization=', undefined, 'the query parameter organization must be given once, as text'],
    ['GET', '/organizations/nordic-dev/as-of?at=yesterday&path=/team', undefined, 'at must be an ISO 8601 instant with a zone'],
  ])('%s %s %j: 400, "%s"', async (method, path, body, detail) => {
    const answer = await request(method, path, body);
    expect(answer.body).toMatchObject({ status: 400, errorCode: 'BAD_REQUEST' });
    expect(answer.body.detail).toContain(detail);
  });
});

function explain(problem: NormalizedProblem): string {
  const where = problem.location.map((location) => location.pointer ?? '').join(', ');
  return `${problem.severity} ${problem.ruleId} at ${where}: ${problem.message}`;
}
