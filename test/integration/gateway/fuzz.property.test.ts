// Fuzzing the real server (startGateway on loopback) with two organizations' snapshots and a key
// file: fuzzed requests over every endpoint, header and query parameter (test/support/http-fuzz.ts)
// written as raw bytes, the well-formed ones also through undici and checked against the published
// contract, conflicting key headers, and pipelines mixing both organizations' keys on one
// connection. Every answer is a documented status (docs/api.md §7), errors are problem+json with
// an errorCode, nothing is a 5xx, no body shows another organization's data, and the server still
// answers at the end. `npm run fuzz` does the same at volume against the real `marquee serve`.
import fc from 'fast-check';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryRateLimiter } from '../../../gateway/access/in-memory-rate-limiter.ts';
import { type RunningGateway, startGateway } from '../../../gateway/server.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { publishFixture } from '../../support/gateway-fixtures.ts';
import {
  API,
  belowBase,
  credentialArbitrary,
  discoverWorld,
  type FuzzWorld,
  fuzzOrganizationFixture,
  fuzzRequestArbitrary,
  ifNoneMatchArbitrary,
  overLimit,
  pathArbitrary,
  pipeline,
  pipelineArbitrary,
  pipelineProblems,
  problemsWith,
  sendRaw,
} from '../../support/http-fuzz.ts';
import { issueKey, type TemporaryKeyFile, temporaryKeyFile } from '../../support/keys.ts';
import { contractProblems } from '../../support/openapi-contract.ts';
import { RecordingLog } from '../../support/recording-log.ts';

let gateway: RunningGateway;
let keyFile: TemporaryKeyFile;
let client: Client;
let world: FuzzWorld;
const log = new RecordingLog();

beforeAll(async () => {
  const store = new MemoryStore();
  const fixtures = [fuzzOrganizationFixture('Alpha'), fuzzOrganizationFixture('Bravo')] as const;
  for (const fixture of fixtures) await publishFixture(store, fixture);
  keyFile = await temporaryKeyFile();
  const keys = keyFile.open();
  const keysOf = async (organizationId: string) => [(await issueKey(keys, { organizationId })).secret, (await issueKey(keys, { organizationId })).secret];
  const issued: [string[], string[]] = [await keysOf(fixtures[0].organization.id), await keysOf(fixtures[1].organization.id)];
  gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    snapshots: store,
    keys,
    log,
    // The clock of the fixtures' world; limits out of the way, so requests reach the routes.
    clock: () => Date.parse('2026-03-01T12:00:00Z'),
    rateLimiter: new InMemoryRateLimiter({ limit: 1_000_000 }),
    authFailures: new InMemoryRateLimiter({ limit: 1_000_000 }),
    // Short, so a request cut short is answered 408 in seconds rather than ten.
    timeouts: { headersMs: 1_500, requestMs: 3_000, keepAliveMs: 2_000 },
  });
  client = new Client(gateway.url);
  world = await discoverWorld([fixtures[0], fixtures[1]], issued, async (path, key) => {
    const response = await client.request({ path, method: 'GET', headers: { 'x-api-key': key } });
    const etag = response.headers.etag;
    return { status: response.statusCode, body: await response.body.text(), etag: typeof etag === 'string' ? etag : undefined };
  });
});

afterAll(async () => {
  await client?.close();
  await gateway?.close();
  await keyFile?.remove();
});

describe('fuzzed requests', () => {
  it('raw bytes over every endpoint, header and parameter: documented statuses, problem+json errors, no 5xx, no other organization', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fuzzRequestArbitrary(world), async (request) => {
        const response = await sendRaw(gateway.port, request.bytes, { halfClose: request.mangled });
        expect(problemsWith(world, request, response), request.summary).toEqual([]);
        if (response !== undefined) seen.add(response.status);
      }),
      { numRuns: 1_500 },
    );
    // The generators reach every check, not just the first ones.
    expect([...seen].sort()).toEqual(expect.arrayContaining([200, 204, 304, 400, 401, 403, 404, 405, 417, 431]));
  });

  it('repeated or conflicting Authorization / X-Api-Key values: always 401 API_KEY_INVALID', async () => {
    await fc.assert(
      fc.asyncProperty(fuzzRequestArbitrary(world, { mangle: false, conflicting: true }), async (request) => {
        const response = await sendRaw(gateway.port, request.bytes, { halfClose: request.mangled });
        expect(problemsWith(world, request, response), request.summary).toEqual([]);
        if (!request.preempted) {
          expect(response?.status, request.summary).toBe(401);
          expect(response?.headers['www-authenticate'], request.summary).toBe('Bearer');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('well-formed requests through undici: the same oracle, and every answer fits schemas/openapi.json', async () => {
    const methods = fc.oneof(
      { weight: 6, arbitrary: fc.constant('GET') },
      { weight: 2, arbitrary: fc.constant('HEAD') },
      fc.constantFrom('OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH'),
    );
    await fc.assert(
      fc.asyncProperty(methods, pathArbitrary(world), credentialArbitrary(world), fc.option(ifNoneMatchArbitrary(world)), async (method, path, credential, tag) => {
        const headers: Record<string, string[]> = {};
        for (const [name, value] of credential.lines) (headers[name.toLowerCase()] ??= []).push(value);
        if (tag !== null) headers['if-none-match'] = [tag];
        let response: Awaited<ReturnType<Client['request']>>;
        try {
          response = await client.request({ path, method: method as 'GET', headers });
        } catch (error) {
          // A header value undici refuses to send (control characters): the raw-socket property sends those.
          if ((error as { code?: string }).code === 'UND_ERR_INVALID_ARG') return;
          throw error;
        }
        const body = await response.body.text();
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
        const what = `${method} ${path.slice(0, 200)} [${credential.credential.kind}] If-None-Match=${tag?.slice(0, 80)}`;
        const preempted = method === 'OPTIONS' || !belowBase(path) || overLimit(path.length + JSON.stringify(headers).length);
        expect(problemsWith(world, { method, credential: credential.credential, mangled: false, preempted }, { status: response.statusCode, headers: flat, body }), what).toEqual(
          [],
        );
        // The parser's 431 for an over-limit head is below the API and outside the document (§7).
        if (!overLimit(path.length + JSON.stringify(headers).length)) {
          expect(contractProblems({ method, path, status: response.statusCode, headers: flat, body }) ?? [], what).toEqual([]);
        }
      }),
      { numRuns: 600 },
    );
  });
});

describe('what Node would answer on its own', () => {
  it("an HTTP/1.1 request without Host: 400 BAD_REQUEST as problem+json, not Node's bare 400", async () => {
    const response = await sendRaw(gateway.port, Buffer.from(`GET ${API}/organization HTTP/1.1\r\nX-Api-Key: ${world.organizations[0].keys[0]}\r\n\r\n`));
    expect(response?.status).toBe(400);
    expect(response?.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response?.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(response?.body ?? '')).toMatchObject({ status: 400, errorCode: 'BAD_REQUEST' });
  });

  it.each([`CONNECT ${API}/organization`, 'CONNECT 127.0.0.1:443'])('%s: 405 METHOD_NOT_ALLOWED as problem+json, not a connection closed unanswered', async (line) => {
    const response = await sendRaw(gateway.port, Buffer.from(`${line} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${world.organizations[0].keys[0]}\r\n\r\n`));
    expect(response?.status).toBe(405);
    expect(response?.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(response?.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(JSON.parse(response?.body ?? '')).toMatchObject({ status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
  });
});

describe('pipelined requests', () => {
  it('mixing both organizations’ keys on one connection: each answer is its own key’s organization’s, in order', async () => {
    await fc.assert(
      fc.asyncProperty(pipelineArbitrary(world), async ({ requests, splits }) => {
        const responses = await pipeline(gateway.port, requests, splits);
        expect(pipelineProblems(world, requests, responses)).toEqual([]);
      }),
      { numRuns: 250 },
    );
  });
});

describe('after the fuzzing', () => {
  it('the server is alive, answers a normal request with its own data, and logged no fault', async () => {
    const health = await client.request({ path: '/healthz', method: 'GET' });
    await health.body.text();
    expect(health.statusCode).toBe(200);
    for (const organization of world.organizations) {
      const response = await client.request({ path: `${API}/organization`, method: 'GET', headers: { authorization: `Bearer ${organization.keys[1]}` } });
      expect(response.statusCode).toBe(200);
      expect(((await response.body.json()) as { id: string }).id).toBe(organization.id);
    }
    expect(log.lines.filter((entry) => entry.level === 'error')).toEqual([]);
  });
});
