// The contract check of test/support/openapi-contract.ts, which every gateway integration test
// runs each response through: it accepts what schemas/openapi.json describes (its own examples
// among them) and names what it does not.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assertContract, assertFetchContract, ContractViolation, contractProblems, type Exchange } from '../../support/openapi-contract.ts';

const API = '/api/integration/v1';
const TAG = `"${'a'.repeat(64)}"`;
const SERVED = {
  'content-type': 'application/json; charset=utf-8',
  etag: TAG,
  'cache-control': 'private, max-age=60',
  ratelimit: '"default";r=599;t=60',
  'ratelimit-policy': '"default";q=600;w=60',
  'access-control-allow-origin': '*',
  vary: 'Authorization, X-Api-Key, Origin, Accept-Encoding, Marquee-Snapshot-Id',
  'x-content-type-options': 'nosniff',
  'x-request-id': '5f0c6d52-5b6e-4d3a-9b54-0a1c2e3f4a5b',
  'marquee-snapshot-id': '20260501T120000000Z-0123456789ab',
};
const REFUSED = {
  'content-type': 'application/problem+json; charset=utf-8',
  'cache-control': 'no-store',
  'access-control-allow-origin': '*',
  vary: SERVED.vary,
  'x-content-type-options': 'nosniff',
  'x-request-id': '5f0c6d52-5b6e-4d3a-9b54-0a1c2e3f4a5b',
};
/** The rate-limit headers of a request counted against its key. */
const COUNTED = { ratelimit: SERVED.ratelimit, 'ratelimit-policy': SERVED['ratelimit-policy'] };

interface Document {
  paths: Record<string, { get: { responses: Record<string, { content?: Record<string, { examples: Record<string, { value: unknown }> }> }> } }>;
  components: { responses: Record<string, { content: Record<string, { examples: Record<string, { summary: string; value: unknown }> }> }> };
}
const document = JSON.parse(readFileSync(new URL('../../../schemas/openapi.json', import.meta.url), 'utf8')) as Document;

const organization = document.paths['/organization']!.get.responses['200']!.content!['application/json']!.examples.organization!.value as Record<string, unknown>;
const exchange = (overrides: Partial<Exchange>): Exchange => ({
  method: 'GET',
  path: `${API}/organization`,
  status: 200,
  headers: SERVED,
  body: JSON.stringify(organization),
  ...overrides,
});
const problem = (errorCode: string, status: number) =>
  JSON.stringify({
    type: 'https://marquee.example/problems/x',
    title: 'x',
    status,
    detail: 'x',
    instance: '/x',
    errorCode,
  });

describe('accepts what the document describes', () => {
  it('every 200 example of every operation, under its path', () => {
    for (const [template, item] of Object.entries(document.paths)) {
      const path = API + template.replace('{idOrSlug}', 'summit-2027');
      for (const media of Object.values(item.get.responses['200']!.content!)) {
        for (const example of Object.values(media.examples)) {
          expect(contractProblems(exchange({ path, body: JSON.stringify(example.value) })), template).toEqual([]);
        }
      }
    }
  });

  it('every error example, as an answer to the request it was taken from', () => {
    const extra: Record<string, Record<string, string>> = {
      401: { 'www-authenticate': 'Bearer' },
      405: { allow: 'GET, HEAD, OPTIONS' },
      409: { 'marquee-snapshot-id': SERVED['marquee-snapshot-id'] },
      429: { 'retry-after': '15' },
      503: { 'retry-after': '5' },
    };
    let seen = 0;
    for (const response of Object.values(document.components.responses)) {
      for (const media of Object.values(response.content ?? {})) {
        for (const example of Object.values(media.examples)) {
          const [method, path] = example.summary.split(' ') as [string, string];
          const status = (example.value as { status: number }).status;
          const headers = { ...REFUSED, ...COUNTED, ...extra[status] };
          expect(contractProblems({ method, path, status, headers, body: JSON.stringify(example.value) }), example.summary).toEqual([]);
          seen += 1;
        }
      }
    }
    expect(seen).toBeGreaterThanOrEqual(10);
  });

  it('fields the document does not name yet: later versions may add them', () => {
    expect(contractProblems(exchange({ body: JSON.stringify({ ...organization, foundedIn: 2014 }) }))).toEqual([]);
  });

  it('a 304 without a body, HEAD without a body, a trailing slash, and a percent-encoded idOrSlug', () => {
    expect(contractProblems(exchange({ status: 304, headers: { ...SERVED, 'content-type': undefined }, body: '' }))).toEqual([]);
    expect(contractProblems(exchange({ method: 'HEAD', body: '' }))).toEqual([]);
    expect(contractProblems(exchange({ path: `${API}/organization/` }))).toEqual([]);
    expect(contractProblems(exchange({ path: `${API}/events/a%2Fb/sponsors`, body: '[]' }))).toEqual([]);
  });

  it('404 NOT_FOUND for a path no operation names, after the key check', () => {
    expect(contractProblems({ method: 'GET', path: `${API}/venues`, status: 404, headers: { ...REFUSED, ...COUNTED }, body: problem('NOT_FOUND', 404) })).toEqual([]);
  });

  it('passes by what the document does not describe: other paths, and OPTIONS', () => {
    expect(contractProblems({ method: 'GET', path: '/healthz', status: 200, headers: {}, body: '{}' })).toBeUndefined();
    expect(contractProblems({ method: 'OPTIONS', path: `${API}/events`, status: 204, headers: {}, body: '' })).toBeUndefined();
  });
});

describe('names what the document does not describe', () => {
  it('a status the operation does not declare', () => {
    expect(contractProblems(exchange({ status: 410, headers: REFUSED, body: problem('GONE', 410) }))).toEqual(['status 410 is not declared for GET /organization']);
  });

  it('a 409 SNAPSHOT_NOT_CURRENT without the current snapshot in its header', () => {
    const answer = { method: 'GET', path: `${API}/organization`, status: 409, body: problem('SNAPSHOT_NOT_CURRENT', 409) };
    expect(contractProblems({ ...answer, headers: { ...REFUSED, ...COUNTED, 'marquee-snapshot-id': SERVED['marquee-snapshot-id'] } })).toEqual([]);
    expect(contractProblems({ ...answer, headers: { ...REFUSED, ...COUNTED } })).toEqual(['required header Marquee-Snapshot-Id is missing']);
  });

  it('a required header that is missing, and a header value its schema refuses', () => {
    expect(contractProblems(exchange({ headers: { ...SERVED, etag: undefined } }))).toEqual(['required header ETag is missing']);
    // Vary without Accept-Encoding would let a cache hand a coded body to a client that cannot decode it.
    expect(contractProblems(exchange({ headers: { ...SERVED, vary: 'Authorization, X-Api-Key, Origin' } }))![0]).toMatch(/^header Vary: /);
    expect(contractProblems(exchange({ headers: { ...SERVED, 'content-encoding': 'br' } }))).toEqual([]);
    expect(contractProblems(exchange({ headers: { ...SERVED, 'content-encoding': 'deflate' } }))![0]).toMatch(/^header Content-Encoding: "deflate" /);
    expect(contractProblems(exchange({ headers: { ...SERVED, 'cache-control': 'no-cache' } }))![0]).toMatch(/^header Cache-Control: "no-cache" /);
    expect(
      contractProblems({
        method: 'GET',
        path: `${API}/team`,
        status: 429,
        headers: { ...REFUSED, 'retry-after': 'soon' },
        body: problem('RATE_LIMITED', 429),
      })![0],
    ).toMatch(/^header Retry-After/);
  });

  it('a body that breaks its schema', () => {
    const problems = contractProblems(exchange({ body: JSON.stringify({ ...organization, latitude: 'north', name: undefined }) }))!;
    expect(problems.join('\n')).toMatch(/name/);
    expect(problems.join('\n')).toMatch(/body\/latitude/);
  });

  it('an errorCode the response does not list', () => {
    const problems = contractProblems(exchange({ status: 404, headers: { ...REFUSED, ...COUNTED }, body: problem('EVENT_NOT_FOUND', 404) }))!;
    expect(problems.join('\n')).toMatch(/errorCode/);
  });

  it('the wrong media type, a body on HEAD or a 304, and a 200 to a method the API refuses', () => {
    expect(contractProblems(exchange({ headers: { ...SERVED, 'content-type': 'text/html' } }))![0]).toMatch(/Content-Type text\/html/);
    expect(contractProblems(exchange({ method: 'HEAD' }))).toEqual(['a body was sent where HEAD has none']);
    expect(contractProblems(exchange({ status: 304 }))).toEqual(['a body was sent where a 304 has none']);
    expect(contractProblems(exchange({ method: 'POST' }))).toEqual(['status 200 is not declared for GET /organization (as an answer to POST)']);
  });

  it('a 200 for a path no operation names', () => {
    expect(contractProblems(exchange({ path: `${API}/Organization` }))).toEqual(['status 200 is not declared for x-unknown-paths']);
  });

  it('assertFetchContract checks a fetch() Response and leaves its body readable', async () => {
    const url = `http://127.0.0.1:8080${API}/organization`;
    const good = new Response(JSON.stringify(organization), { status: 200, headers: SERVED });
    await assertFetchContract('GET', url, good);
    expect(await good.json()).toEqual(organization);
    const bad = new Response(JSON.stringify({ ...organization, id: 7 }), { status: 200, headers: SERVED });
    await expect(assertFetchContract('GET', url, bad)).rejects.toThrow(/body\/id must be string/);
  });

  it('assertContract throws one error naming the request and every problem', () => {
    expect(() => assertContract(exchange({ status: 418 }))).toThrow(ContractViolation);
    expect(() => assertContract(exchange({ status: 418 }))).toThrow(`GET ${API}/organization → 418 breaks schemas/openapi.json`);
  });
});
