// Usage per key end to end (issue 37 item 3), through the real program: `marquee start` on its
// embedded PGlite with USAGE_MOVE_SECONDS=1, requests with the demo key through fetch (200s on two
// routes, a 404, a 403 from a browser origin the key does not allow, and, after `keys revoke`, the
// revoked key's 401s), then `keys usage KEY --json` polled until it shows exactly those counts; the
// admin API agrees for an auditor credential, for the key and for its organization; `keys list`
// shows the last day's requests beside the last use, as GET /admin/v1/keys does; the table and the
// CSV; an unknown key, an unknown organization and a wrong range refused as the other commands
// refuse them; the same report once `start` has stopped (the CLI on the PGlite directly); and
// `keys usage` and `keys list` with DATABASE_URL on a real PostgreSQL.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_API_BASE } from '../../../admin/api-routes.ts';
import { openPlatformDatabase } from '../../../records/database/database-backends.ts';
import { HOUR_MS } from '../../../records/usage/usage-batch.ts';
import type { UsageReport } from '../../../records/usage/usage-report.ts';
import { countBatches } from '../../../records/usage/usage-store.ts';
import { adminContractFetch } from '../../support/admin-contract.ts';
import { adminSecret, type CliRun, marquee, marqueeProcess } from '../../support/cli.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';

type Process = Awaited<ReturnType<typeof marqueeProcess>>;
interface ListedKey {
  id: string;
  label: string | null;
  lastUsedAt: string | null;
  requests24h: number;
}

const API = '/api/integration/v1';
const NORDIC_ID = 'a0000000-0000-4000-8000-000000000001';
const ELSEWHERE = 'https://elsewhere.example';

let home: string;
let start: Process;
let admin: string;
let gateway: string;
let demo: { id: string; secret: string };
let auditor: string;
const env = () => ({ MARQUEE_HOME: home });
const adminFetch = adminContractFetch(() => admin);

// One range for every door, given as instants: the defaults end with the current hour, which may
// turn between two reads. From an hour before the test to three hours after it began.
const began = Date.now();
const SINCE = new Date(began - (began % HOUR_MS) - HOUR_MS).toISOString();
const UNTIL = new Date(began - (began % HOUR_MS) + 3 * HOUR_MS).toISOString();
const RANGE = ['--since', SINCE, '--until', UNTIL, '--by', 'hour'];
const RANGE_QUERY = `since=${SINCE}&until=${UNTIL}&by=hour`;

/** What the requests below come to, as the report orders them: most first, then by name. */
const OUTCOMES = [
  { outcome: '200', requests: 4 },
  { outcome: '401', requests: 2 },
  { outcome: '403 API_KEY_ORIGIN_NOT_ALLOWED', requests: 1 },
  { outcome: '404', requests: 1 },
];

async function cli(args: string[], environment: Record<string, string> = env()): Promise<CliRun> {
  return marquee(args, environment);
}

async function cliJson<T>(args: string[], environment: Record<string, string> = env()): Promise<T> {
  const run = await cli([...args, '--json'], environment);
  if (run.code !== 0) throw new Error(`marquee ${args.join(' ')} failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/** One request to the integration API with `secret`; its status, and its errorCode when refused. */
async function request(secret: string, path: string, origin?: string): Promise<string> {
  const answer = await fetch(`${gateway}${API}${path}`, { headers: { Authorization: `Bearer ${secret}`, ...(origin ? { Origin: origin } : {}) } });
  const body = (await answer.json()) as { errorCode?: string };
  return answer.status < 400 ? String(answer.status) : `${answer.status} ${body.errorCode}`;
}

function asAuditor(path: string): Promise<Response> {
  return adminFetch(`${admin}${ADMIN_API_BASE}${path}`, { headers: { Authorization: `Bearer ${auditor}` } });
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-key-usage-'));
  start = await marqueeProcess(
    ['start'],
    { ...env(), PORT: '0', ADMIN_PORT: '0', USAGE_MOVE_SECONDS: '1', BUILD_SCHEDULE: '0 0 1 1 *', DATABASE_URL: '', REDIS_URL: '' },
    /console: (http:\/\/\S+)\/ \(/,
  );
  admin = start.match[1]!;
  gateway = /gateway listening on (http:\/\/\S+)/.exec(start.output())![1]!;
  const secret = /demo key for nordic-dev: (mqk_\w+)/.exec(start.output())![1]!;
  demo = { id: (await cliJson<{ id: string }>(['keys', 'find', '--secret', secret])).id, secret };
  auditor = await adminSecret(env(), 'ursula', 'auditor');
}, 180_000);

afterAll(async () => {
  await start?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('usage of a key beside a running start', () => {
  let report: UsageReport;

  it('counts every answer to the key, 403s by errorCode and its 401s once revoked, as `keys usage --json` shows within seconds', async () => {
    for (const path of ['/organization', '/organization', '/organization', '/events']) expect(await request(demo.secret, path)).toBe('200');
    expect(await request(demo.secret, '/events/no-such-event')).toMatch(/^404 /);
    expect(await request(demo.secret, '/organization', ELSEWHERE)).toBe('403 API_KEY_ORIGIN_NOT_ALLOWED');
    expect((await cli(['keys', 'revoke', demo.id])).code).toBe(0);
    for (let i = 0; i < 2; i++) expect(await request(demo.secret, '/organization')).toBe('401 API_KEY_INVALID');

    await expect.poll(async () => (report = await cliJson<UsageReport>(['keys', 'usage', demo.id, ...RANGE])).outcomes, { timeout: 30_000, interval: 250 }).toEqual(OUTCOMES);
    expect(report).toMatchObject({
      subject: { keyId: demo.id },
      since: SINCE,
      until: UNTIL,
      by: 'hour',
      requests: 8,
      routes: [
        { route: `${API}/organization`, requests: 6 },
        { route: `${API}/events`, requests: 1 },
        { route: `${API}/events/{idOrSlug}`, requests: 1 },
      ],
      keys: [{ keyId: demo.id, requests: 8 }],
      refusedOrigins: [{ origin: ELSEWHERE, requests: 1 }],
    });
    // Every hour of the range, in order; the requests are in the hours they were made in.
    expect(report.series.map((bucket) => bucket.start)).toEqual(Array.from({ length: 4 }, (_, hour) => new Date(Date.parse(SINCE) + hour * HOUR_MS).toISOString()));
    expect(report.series.reduce((sum, bucket) => sum + bucket.requests, 0)).toBe(8);
    for (const { outcome, requests } of OUTCOMES) expect(report.series.reduce((sum, bucket) => sum + (bucket.outcomes[outcome] ?? 0), 0)).toBe(requests);
    expect(JSON.stringify(report)).not.toContain(demo.secret);
  });

  it('is what the admin API answers an auditor, for the key and for its organization', async () => {
    const byKey = await asAuditor(`/keys/${demo.id}/usage?${RANGE_QUERY}`);
    expect(byKey.status).toBe(200);
    expect(await byKey.json()).toEqual(report);
    const byOrganization = await asAuditor(`/organizations/nordic-dev/usage?${RANGE_QUERY}`);
    expect(byOrganization.status).toBe(200);
    const organization = (await byOrganization.json()) as UsageReport;
    expect(organization).toEqual(await cliJson(['keys', 'usage', '--org', 'nordic-dev', ...RANGE]));
    expect(organization).toMatchObject({ subject: { organizationId: NORDIC_ID }, requests: 8, outcomes: OUTCOMES, keys: [{ keyId: demo.id, requests: 8 }] });
  });

  it('`keys list` shows the last 24 hours’ requests beside the last use, as GET /admin/v1/keys does', async () => {
    const listed = await cliJson<ListedKey[]>(['keys', 'list']);
    expect(listed).toEqual([expect.objectContaining({ id: demo.id, label: 'demo (npm start)', requests24h: 8 })]);
    const answer = await asAuditor('/keys');
    expect(answer.status).toBe(200);
    // The last use is reported by the gateway at most once a minute, so it may move between the two reads.
    const withoutLastUse = (keys: ListedKey[]) => keys.map(({ lastUsedAt: _lastUsedAt, ...key }) => key);
    expect(withoutLastUse((await answer.json()) as ListedKey[])).toEqual(withoutLastUse(listed));
    const text = await cli(['keys', 'list']);
    expect(text.stdout).toMatch(new RegExp(`^${demo.id}  nordic-dev  .*  (used \\S+|never used)  8 requests in 24h  demo \\(npm start\\)`, 'm'));
    // A key nobody used: 0, never absent.
    const unused = await cliJson<{ id: string }>(['keys', 'create', '--org', 'pacific-oss']);
    const again = await cliJson<ListedKey[]>(['keys', 'list', '--org', 'pacific-oss']);
    expect(again).toEqual([expect.objectContaining({ id: unused.id, requests24h: 0 })]);
  });

  it('prints a table of the hours with requests, an outcome a column, then routes and refused origins; --csv a row per hour and outcome', async () => {
    const table = await cli(['keys', 'usage', demo.id, ...RANGE]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toBe(`${demo.id}: 8 requests from ${SINCE} to ${UNTIL}`);
    expect(lines[1]).toMatch(/^start \(UTC, by hour\) +requests +200 +401 +403 API_KEY_ORIGIN_NOT_ALLOWED +404$/);
    expect(lines).toContainEqual(expect.stringMatching(/^total +8 +4 +2 +1 +1$/));
    expect(table.stdout).toMatch(/\nroutes:\n {2}\/api\/integration\/v1\/organization +6\n/);
    expect(table.stdout).toContain(`refused origins (403 API_KEY_ORIGIN_NOT_ALLOWED):\n  ${ELSEWHERE}  1\n`);

    const csv = await cli(['keys', 'usage', demo.id, ...RANGE, '--csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...rows] = csv.stdout.trimEnd().split('\n');
    expect(header).toBe('start,outcome,requests');
    const totals = new Map<string, number>();
    for (const row of rows) {
      const [start, outcome, requests] = row.split(',');
      expect(report.series.map((bucket) => bucket.start)).toContain(start);
      totals.set(outcome!, (totals.get(outcome!) ?? 0) + Number(requests));
    }
    expect(Object.fromEntries(totals)).toEqual(Object.fromEntries(OUTCOMES.map(({ outcome, requests }) => [outcome, requests])));
  });

  it('refuses an unknown key and organization as `keys revoke` and `keys list` do, and a wrong command line with exit status 2', async () => {
    const unknownKey = await cli(['keys', 'usage', 'key_nope']);
    expect(unknownKey).toMatchObject({ code: 1, stderr: expect.stringContaining('key_nope') });
    expect({ code: unknownKey.code, stderr: unknownKey.stderr }).toEqual(await cli(['keys', 'revoke', 'key_nope']).then(({ code, stderr }) => ({ code, stderr })));
    const unknownOrganization = await cli(['keys', 'usage', '--org', 'nowhere']);
    expect(unknownOrganization).toMatchObject({ code: 1, stderr: expect.stringContaining('"nowhere"') });
    expect({ code: unknownOrganization.code, stderr: unknownOrganization.stderr }).toEqual(
      await cli(['keys', 'list', '--org', 'nowhere']).then(({ code, stderr }) => ({ code, stderr })),
    );
    // Refused before anything is opened: run side by side.
    const wrong = [
      [['keys', 'usage'], 'give a key id'],
      [['keys', 'usage', demo.id, '--org', 'nordic-dev'], 'contradict'],
      [['keys', 'usage', demo.id, '--since', '1h', '--until', '2h'], '--until "2h"'],
      [['keys', 'usage', demo.id, '--since', 'yesterday'], '--since "yesterday"'],
      [['keys', 'usage', demo.id, '--by', 'week'], 'must be hour or day'],
      [['keys', 'usage', demo.id, '--since', '200d', '--by', 'hour'], 'at most 2400 hours'],
      [['keys', 'usage', demo.id, '--json', '--csv'], '--json and --csv'],
    ] as const;
    const runs = await Promise.all(wrong.map(([args]) => cli([...args])));
    wrong.forEach(([args, said], index) => {
      expect({ args: args.join(' '), code: runs[index]!.code }).toEqual({ args: args.join(' '), code: 2 });
      expect(runs[index]!.stderr).toContain(said);
      expect(runs[index]!.stderr).toContain('Usage: marquee keys usage [options] [key-id]');
    });
    for (const [path, status, errorCode] of [
      ['/keys/key_nope/usage', 404, 'KEY_NOT_FOUND'],
      ['/organizations/nowhere/usage', 404, 'ORGANIZATION_NOT_FOUND'],
      [`/keys/${demo.id}/usage?since=1h&until=2h`, 400, 'BAD_REQUEST'],
    ] as const) {
      const answer = await asAuditor(path);
      expect(answer.status, path).toBe(status);
      expect(await answer.json()).toMatchObject({ errorCode });
    }
  });

  it('is the same report without a running start: the CLI opens the embedded database itself', async () => {
    await start.stop();
    expect(await cliJson(['keys', 'usage', demo.id, ...RANGE])).toEqual(report);
    expect((await cliJson<ListedKey[]>(['keys', 'list', '--org', 'nordic-dev']))[0]).toMatchObject({ id: demo.id, requests24h: 8 });
  });
});

describe('usage with DATABASE_URL', () => {
  let postgres: TestPostgres;
  let pgHome: string;
  beforeAll(async () => {
    postgres = await startPostgres();
    pgHome = await mkdtemp(join(tmpdir(), 'marquee-key-usage-pg-'));
  });
  afterAll(async () => {
    await postgres?.stop();
    if (pgHome) await rm(pgHome, { recursive: true, force: true });
  });

  it('reads the counts from PostgreSQL', async () => {
    const pg = { MARQUEE_HOME: pgHome, DATABASE_URL: postgres.url, REDIS_URL: '' };
    expect((await cli(['db', 'migrate'], pg)).code).toBe(0);
    expect((await cli(['db', 'seed', '--sample'], pg)).code).toBe(0);
    const key = await cliJson<{ id: string }>(['keys', 'create', '--org', 'nordic-dev'], pg);
    const hour = Date.parse(SINCE) + HOUR_MS;
    // The builders' intake counts a batch so (records/usage/usage-intake.ts).
    const db = await openPlatformDatabase({ databaseUrl: postgres.url, home: pgHome });
    try {
      await countBatches(db, [
        {
          id: `test.${randomUUID()}`,
          counts: [
            { keyId: key.id, organizationId: NORDIC_ID, hour, route: `${API}/events`, status: 200, errorCode: '', requests: 5 },
            { keyId: key.id, organizationId: NORDIC_ID, hour, route: `${API}/events`, status: 429, errorCode: '', requests: 2 },
          ],
          origins: [],
        },
      ]);
    } finally {
      await db.close();
    }
    const report = await cliJson<UsageReport>(['keys', 'usage', key.id, ...RANGE], pg);
    expect(report).toMatchObject({
      requests: 7,
      outcomes: [
        { outcome: '200', requests: 5 },
        { outcome: '429', requests: 2 },
      ],
    });
    expect(report.series[1]).toEqual({ start: new Date(hour).toISOString(), requests: 7, outcomes: { '200': 5, '429': 2 } });
    expect(await cliJson(['keys', 'usage', '--org', 'nordic-dev', ...RANGE], pg)).toMatchObject({ subject: { organizationId: NORDIC_ID }, requests: 7 });
    expect(await cliJson(['keys', 'list'], pg)).toEqual([expect.objectContaining({ id: key.id, requests24h: 7 })]);
  });
});
