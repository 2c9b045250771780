// The admin API's usage routes (GET /admin/v1/keys/{id}/usage, /organizations/{idOrSlug}/usage) and
// the key list's requests24h, through the real program: `marquee start` on its embedded PGlite
// with USAGE_MOVE_SECONDS=1, a key made through the API and used through the gateway (200s from
// its origin, a 304, a 403 from another origin), credentials made with `marquee admins create`.
// By kind: what they answer, what they refuse, and who may ask. Every answer is checked against
// the admin OpenAPI document (adminContractFetch). The CLI's side: test/integration/cli/key-usage.test.ts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_API_BASE, ADMIN_ROUTES } from '../../../admin/api-routes.ts';
import { ADMIN_ROLES } from '../../../records/actor.ts';
import { HOUR_MS } from '../../../records/usage/usage-batch.ts';
import type { UsageReport } from '../../../records/usage/usage-report.ts';
import { adminContractFetch } from '../../support/admin-contract.ts';
import { adminSecret, marquee, marqueeProcess } from '../../support/cli.ts';
import { until } from '../../support/until.ts';

type Process = Awaited<ReturnType<typeof marqueeProcess>>;

const API = '/api/integration/v1';
const NORDIC_ID = 'a0000000-0000-4000-8000-000000000001';
const SITE = 'https://site.example';
const OTHER = 'https://other.example';
const DAY_MS = 24 * HOUR_MS;
/** What the requests of beforeAll come to, most first. */
const OUTCOMES = [
  { outcome: '200', requests: 2 },
  { outcome: '304', requests: 1 },
  { outcome: '403 API_KEY_ORIGIN_NOT_ALLOWED', requests: 1 },
];

let home: string;
let start: Process;
let admin: string;
let gateway: string;
let token: string;
const credentials: Record<'auditor' | 'operator', string> = { auditor: '', operator: '' };
let key: { id: string; key: string };
let demoKeyId: string;
const env = () => ({ MARQUEE_HOME: home });
const fetch = adminContractFetch(() => admin);

/** A GET of the admin API with `secret` (root's token, a credential), or with none (null). */
function read(path: string, secret: string | null = token): Promise<Response> {
  return fetch(`${admin}${ADMIN_API_BASE}${path}`, { headers: secret === null ? {} : { Authorization: `Bearer ${secret}` } });
}

async function readJson<T>(path: string, secret?: string): Promise<T> {
  const answer = await read(path, secret);
  expect(answer.status, `${path}: ${await answer.clone().text()}`).toBe(200);
  return (await answer.json()) as T;
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-key-usage-routes-'));
  start = await marqueeProcess(
    ['start'],
    { ...env(), PORT: '0', ADMIN_PORT: '0', USAGE_MOVE_SECONDS: '1', BUILD_SCHEDULE: '0 0 1 1 *', DATABASE_URL: '', REDIS_URL: '' },
    /console: (http:\/\/\S+)\/ \(/,
  );
  admin = start.match[1]!;
  gateway = /gateway listening on (http:\/\/\S+)/.exec(start.output())![1]!;
  token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
  credentials.auditor = await adminSecret(env(), 'ada', 'auditor');
  credentials.operator = await adminSecret(env(), 'otto', 'operator');
  const created = await fetch(`${admin}${ADMIN_API_BASE}/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ organization: 'nordic-dev', origins: [SITE], label: 'site' }),
  });
  expect(created.status).toBe(201);
  key = (await created.json()) as { id: string; key: string };
  demoKeyId = (await readJson<Array<{ id: string; label: string | null }>>('/keys')).find((listed) => listed.label === 'demo (npm start)')!.id;

  const use = (headers: Record<string, string>) => globalThis.fetch(`${gateway}${API}/organization`, { headers: { 'X-Api-Key': key.key, ...headers } });
  const first = await use({ Origin: SITE });
  expect(first.status).toBe(200);
  expect((await use({ Origin: SITE })).status).toBe(200);
  expect((await use({ 'If-None-Match': first.headers.get('etag')! })).status).toBe(304);
  expect((await use({ Origin: OTHER })).status).toBe(403);
  // Moved by the gateway every second, counted by the builder's intake every two.
  await until('the four requests counted', async () => (await readJson<UsageReport>(`/keys/${key.id}/usage`)).requests >= 4, { timeoutMs: 30_000, intervalMs: 250 });
}, 180_000);

afterAll(async () => {
  await start?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('happy', () => {
  it("answers a key's usage of the last week by hour when asked nothing", async () => {
    const asked = Date.now();
    const report = await readJson<UsageReport>(`/keys/${key.id}/usage`);
    // The end of the hour the request was answered in.
    const until = Date.parse(report.until);
    expect(until % HOUR_MS).toBe(0);
    expect(until).toBeGreaterThan(asked);
    expect(until).toBeLessThanOrEqual(Date.now() + HOUR_MS);
    expect(Date.parse(report.since)).toBe(until - 7 * DAY_MS);
    expect(report).toMatchObject({
      subject: { keyId: key.id },
      by: 'hour',
      requests: 4,
      outcomes: OUTCOMES,
      routes: [{ route: `${API}/organization`, requests: 4 }],
      keys: [{ keyId: key.id, requests: 4 }],
      refusedOrigins: [{ origin: OTHER, requests: 1 }],
    });
    expect(report.series).toHaveLength(7 * 24);
    expect(report.series.filter((bucket) => bucket.requests > 0).reduce((sum, bucket) => sum + bucket.requests, 0)).toBe(4);
  });

  it('by day: the same counts in UTC days, the range widened to whole days', async () => {
    const since = new Date(Date.now() - 2 * DAY_MS).toISOString();
    const report = await readJson<UsageReport>(`/keys/${key.id}/usage?by=day&since=${since}`);
    expect(report).toMatchObject({ by: 'day', requests: 4, outcomes: OUTCOMES });
    expect(Date.parse(report.since) % DAY_MS).toBe(0);
    expect(Date.parse(report.since)).toBeLessThanOrEqual(Date.parse(since));
    expect(Date.parse(report.until) % DAY_MS).toBe(0);
    for (const bucket of report.series) expect(Date.parse(bucket.start) % DAY_MS).toBe(0);
    expect(report.series.reduce((sum, bucket) => sum + bucket.requests, 0)).toBe(4);
  });

  it("answers an organization's usage, together and by key, named by slug or id alike", async () => {
    const bySlug = await readJson<UsageReport>('/organizations/nordic-dev/usage');
    expect(bySlug).toMatchObject({ subject: { organizationId: NORDIC_ID }, requests: 4, outcomes: OUTCOMES, keys: [{ keyId: key.id, requests: 4 }] });
    const byId = await readJson<UsageReport>(`/organizations/${NORDIC_ID}/usage?since=${bySlug.since}&until=${bySlug.until}`);
    expect(byId).toEqual(bySlug);
  });

  it('lists keys with their requests of the last 24 hours, 0 for one unused', async () => {
    const listed = await readJson<Array<{ id: string; requests24h: number }>>('/keys?organization=nordic-dev');
    expect(listed.map(({ id, requests24h }) => ({ id, requests24h }))).toEqual([
      { id: demoKeyId, requests24h: 0 },
      { id: key.id, requests24h: 4 },
    ]);
  });

  it('are described in the OpenAPI document: for auditors, `by` as its two values, the answer as UsageReport', async () => {
    const document = await readJson<{
      paths: Record<
        string,
        { get: { 'x-marquee-role': string; parameters: Array<{ name: string; schema: unknown }>; responses: Record<string, { content?: Record<string, { schema: unknown }> }> } }
      >;
      components: { schemas: Record<string, unknown> };
    }>('/openapi.json');
    for (const path of ['/keys/{id}/usage', '/organizations/{idOrSlug}/usage']) {
      const operation = document.paths[path]!.get;
      expect(operation['x-marquee-role']).toBe('auditor');
      expect(operation.parameters.map((parameter) => parameter.name)).toEqual([path.includes('{id}') ? 'id' : 'idOrSlug', 'since', 'until', 'by']);
      expect(operation.parameters.find((parameter) => parameter.name === 'by')!.schema).toEqual({ type: 'string', enum: ['hour', 'day'] });
      expect(operation.responses['200']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/UsageReport' });
    }
    expect(document.paths['/keys']!.get.responses['200']!.content!['application/json']!.schema).toEqual({ type: 'array', items: { $ref: '#/components/schemas/ListedKey' } });
  });
});

describe('errors', () => {
  it.each([
    [`/keys/key_nope/usage`, 404, 'KEY_NOT_FOUND', 'key_nope'],
    [`/organizations/nowhere/usage`, 404, 'ORGANIZATION_NOT_FOUND', 'nowhere'],
  ])('%s: %i %s', async (path, status, errorCode, named) => {
    const answer = await read(path);
    expect(answer.status).toBe(status);
    expect(await answer.json()).toMatchObject({ status, errorCode, detail: expect.stringContaining(named) });
  });

  it.each([
    ['since=1h&until=2h', 'until "2h"'],
    ['since=yesterday', 'since "yesterday" is neither a duration'],
    ['since=2999-01-01T00:00:00Z', 'must be before until'],
    ['since=400d&by=hour', 'holds at most 2400 hours'],
    ['by=week', 'by'],
    ['by=hour&by=day', 'by'],
    ['since=1h&since=2h', 'the query parameter since must be given once'],
  ])('?%s: 400 BAD_REQUEST, "%s"', async (query, said) => {
    for (const path of [`/keys/${key.id}/usage`, '/organizations/nordic-dev/usage']) {
      const answer = await read(`${path}?${query}`);
      expect(answer.status, path).toBe(400);
      expect(await answer.json()).toMatchObject({ errorCode: 'BAD_REQUEST', detail: expect.stringContaining(said) });
    }
  });
});

describe('security', () => {
  it('needs a credential: none, or a wrong one, is 401 with both challenges', async () => {
    for (const path of [`/keys/${key.id}/usage`, '/organizations/nordic-dev/usage']) {
      for (const secret of [null, `${credentials.auditor}x`]) {
        const answer = await read(path, secret);
        expect(answer.status, path).toBe(401);
        expect(answer.headers.get('www-authenticate')).toBe('Basic realm="marquee admin", Bearer');
        expect(await answer.json()).toMatchObject({ errorCode: 'UNAUTHORIZED' });
      }
    }
  });

  it('is for auditors and up; no role is below auditor, so every credential may read it', async () => {
    expect(ADMIN_ROLES[0]).toBe('auditor');
    expect(ADMIN_ROUTES.filter((route) => route.path.endsWith('/usage')).map((route) => [route.name, route.role])).toEqual([
      ['getKeyUsage', 'auditor'],
      ['getOrganizationUsage', 'auditor'],
    ]);
    for (const secret of [credentials.auditor, credentials.operator, token]) {
      expect((await read(`/keys/${key.id}/usage`, secret)).status).toBe(200);
      expect((await read('/organizations/nordic-dev/usage', secret)).status).toBe(200);
    }
  });

  it('refuses a revoked credential from the next request on', async () => {
    const brief = await adminSecret(env(), 'brief', 'auditor');
    expect((await read(`/keys/${key.id}/usage`, brief)).status).toBe(200);
    expect((await marquee(['admins', 'revoke', 'brief'], env())).code).toBe(0);
    expect((await read(`/keys/${key.id}/usage`, brief)).status).toBe(401);
  });

  it("shows an organization only its own keys' usage, and never a secret", async () => {
    const other = await readJson<UsageReport>('/organizations/pacific-oss/usage');
    expect(other).toMatchObject({ requests: 0, outcomes: [], keys: [], refusedOrigins: [] });
    const text = JSON.stringify([await readJson(`/keys/${key.id}/usage`), await readJson('/organizations/nordic-dev/usage'), await readJson('/keys')]);
    expect(text).not.toContain(key.key);
    expect(text).not.toMatch(/mqk_[A-Za-z0-9]{30}/);
  });
});
