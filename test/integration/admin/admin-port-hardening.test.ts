// The admin port of a real `marquee start` against what a tester found (issue 48): wrong
// credentials throttled per address (429 with Retry-After past 60 a minute; the valid token still
// let in), counted in /metrics and told to the log and the trail in summary; a client's malformed
// snapshot id or path segment a 400 problem, never a 500 with a stack in the log; every admin
// answer no-store and nosniff; ADMIN_TOKEN never quoted by the trail's `db sql` entry; and operators'
// mistakes answered in field names, not the CLI's flags.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AuditEntry } from '../../../records/trail/audit-entry.ts';
import { adminContractFetch } from '../../support/admin-contract.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';

let home: string;
let start: Awaited<ReturnType<typeof marqueeProcess>>;
let admin: string;
let token: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-admin-hardening-'));
  start = await marqueeProcess(['start'], { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0', LOG_FORMAT: 'json' }, /console: (http:\/\/\S+)\/ \(/, {
    readyTimeoutMs: 170_000,
  });
  admin = start.match[1]!;
  token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
}, 240_000);
afterAll(async () => {
  await start?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

const fetch = adminContractFetch(() => admin);
const bearer = () => ({ Authorization: `Bearer ${token}` });
const json = () => ({ ...bearer(), 'Content-Type': 'application/json' });
const env = () => ({ MARQUEE_HOME: home });

/** The log lines start wrote since `from` (an offset into its output), parsed. */
function logLines(from = 0): Array<Record<string, unknown>> {
  return start
    .output()
    .slice(from)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

it('answers every admin request no-store and nosniff: the API, a new secret, errors, the console, /healthz and /metrics', async () => {
  const created = await fetch(`${admin}/admin/v1/keys`, { method: 'POST', headers: json(), body: JSON.stringify({ organization: 'nordic-dev', label: 'headers' }) });
  expect(created.status).toBe(201);
  const answers = [
    created,
    await fetch(`${admin}/healthz`),
    await fetch(`${admin}/metrics`, { headers: bearer() }),
    await fetch(`${admin}/admin/v1/organizations`, { headers: bearer() }),
    await fetch(`${admin}/admin/v1/organizations`),
    // No operation of the document answers these two: fetched unchecked.
    await globalThis.fetch(`${admin}/admin/v1/nothing-here`, { headers: bearer() }),
    await globalThis.fetch(`${admin}/admin/v1/builds`, { method: 'OPTIONS' }),
    await fetch(`${admin}/organizations`, { headers: bearer() }),
  ];
  for (const answer of answers) {
    expect(answer.headers.get('cache-control'), answer.url).toBe('no-store');
    expect(answer.headers.get('x-content-type-options'), answer.url).toBe('nosniff');
  }
});

it("answers a client's malformed snapshot id, path or path segment 400 with a problem, and logs no stack for it", async () => {
  const from = start.output().length;
  const base = `${admin}/admin/v1`;
  const cases: Array<[string, number, string]> = [
    ['/organizations/nordic-dev/diff?from=../../x&to=current', 400, 'the query parameter from is not of its form'],
    ['/organizations/nordic-dev/diff?from=current&to=..%2F..%2Fx', 400, 'the query parameter to is not of its form'],
    ['/organizations/nordic-dev/diff?from=20200101T000000000Z-000000000000&to=current', 404, 'has no snapshot'],
    ['/organizations/nordic-dev/as-of?at=yesterday&path=/organization', 400, 'at must be an ISO 8601 instant'],
    ['/organizations/nordic-dev/as-of?at=2026-01-01T00:00:00Z&path=..%2F..%2Fx', 400, 'the query parameter path is not of its form'],
    ['/organizations/..%2F..%2Fx/snapshots', 400, 'the path parameter idOrSlug is not of its form'],
    ['/organizations/nordic-dev/snapshots/..%2F..%2Fx/inclusion', 400, 'the path parameter id is not of its form'],
    ['/keys/..%2Fx/usage', 400, 'the path parameter id is not of its form'],
    ['/builds/..%2Fx', 400, 'the path parameter id is not of its form'],
    ['/webhooks/..%2Fx/attempts', 400, 'the path parameter id is not of its form'],
    ['/verifications/..%2Fx', 400, 'the path parameter id is not of its form'],
  ];
  for (const [path, status, detail] of cases) {
    const answer = await fetch(base + path, { headers: bearer() });
    expect(answer.status, path).toBe(status);
    expect(answer.headers.get('content-type'), path).toMatch(/^application\/problem\+json/);
    expect(((await answer.json()) as { detail: string }).detail, path).toContain(detail);
  }
  const revoke = await fetch(`${base}/admins/..%2Fx/revoke`, { method: 'POST', headers: json(), body: '{}' });
  expect(revoke.status).toBe(400);
  // None was our fault: nothing at error level, no stack, no source path.
  const lines = logLines(from);
  expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  expect(start.output().slice(from)).not.toMatch(/"stack"|\.ts:\d+|node_modules/);
});

it('speaks in field names to an HTTP client: origins and expiresAt, not --origin and --expires', async () => {
  const badOrigin = await fetch(`${admin}/admin/v1/keys`, { method: 'POST', headers: json(), body: JSON.stringify({ organization: 'nordic-dev', origins: ['not a url'] }) });
  expect(badOrigin.status).toBe(400);
  expect(((await badOrigin.json()) as { detail: string }).detail).toMatch(/^origins\[0\]: "not a url" is not an origin/);
  const past = await fetch(`${admin}/admin/v1/keys`, {
    method: 'POST',
    headers: json(),
    body: JSON.stringify({ organization: 'nordic-dev', expiresAt: '2020-01-01T00:00:00.000Z' }),
  });
  expect(past.status).toBe(400);
  expect(((await past.json()) as { detail: string }).detail).toBe('expiresAt: 2020-01-01T00:00:00.000Z is not in the future');
  // The CLI still says its flags.
  const cli = await marquee(['keys', 'create', '--org', 'nordic-dev', '--expires', '2020-01-01T00:00:00.000Z'], env());
  expect(cli.stderr).toContain('marquee: --expires 2020-01-01T00:00:00.000Z is not in the future');
});

it('throttles wrong credentials per address past 60 a minute, lets the token in all along, counts them, and tells the log and trail in summary', async () => {
  const from = start.output().length;
  const wrong = (attempt: number) =>
    fetch(`${admin}/admin/v1/organizations`, { headers: { Authorization: `Basic ${Buffer.from(`x:wrong-password-${attempt}`).toString('base64')}` } });
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 100; attempt++) {
    const answer = await wrong(attempt);
    statuses.push(answer.status);
    if (answer.status === 429) {
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await answer.json()).toMatchObject({ status: 429, errorCode: 'RATE_LIMITED' });
    } else await answer.body?.cancel();
    // A valid credential from the same address is never refused for the others' failures.
    if (attempt % 20 === 19) expect((await fetch(`${admin}/admin/v1/organizations`, { headers: bearer() })).status).toBe(200);
  }
  expect(statuses.slice(0, 60)).toEqual(new Array(60).fill(401));
  expect(statuses.slice(60)).toEqual(new Array(40).fill(429));

  const metrics = await (await fetch(`${admin}/metrics`, { headers: bearer() })).text();
  expect(metrics).toMatch(/^marquee_admin_login_failures_total\{reason="wrong"\} (\d+)$/m);
  expect(Number(/^marquee_admin_login_failures_total\{reason="wrong"\} (\d+)$/m.exec(metrics)![1])).toBeGreaterThanOrEqual(60);
  expect(metrics).toMatch(/^marquee_admin_login_failures_total\{reason="throttled"\} 40$/m);

  // Two lines for a hundred failures: the first, and the moment the address was throttled.
  const told = logLines(from).filter((line) => String(line.message).startsWith('failed admin login'));
  expect(told).toHaveLength(2);
  expect(told[1]).toMatchObject({ level: 'warn', clientAddress: '127.0.0.1', failures: 61, status: 429 });
  expect(start.output()).not.toContain('wrong-password-');

  // And two entries in the trail, refused, by no one the port knows, never with the credential offered.
  let entries: AuditEntry[] = [];
  await expect
    .poll(
      async () => {
        entries = JSON.parse((await marquee(['audit-log', '--action', 'admin.login', '--json'], env())).stdout) as AuditEntry[];
        return entries.length;
      },
      { timeout: 20_000, interval: 250 },
    )
    .toBe(2);
  expect(entries.reverse()).toEqual([
    expect.objectContaining({
      actor: 'anonymous:login',
      door: 'api',
      outcome: 'refused',
      clientAddress: '127.0.0.1',
      reason: expect.stringMatching(/^UNAUTHORIZED: /),
      changes: { failedLogins: 1 },
    }),
    expect.objectContaining({
      actor: 'anonymous:login',
      door: 'api',
      outcome: 'refused',
      clientAddress: '127.0.0.1',
      reason: expect.stringMatching(/^RATE_LIMITED: /),
      changes: { failedLogins: 61 },
    }),
  ]);
  expect(JSON.stringify(entries)).not.toContain('wrong-password-');
});

it("keeps ADMIN_TOKEN out of the trail's db sql entry, and any secret of Marquee's formats", async () => {
  const statement = `SELECT '${token}' AS token, 'mqa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' AS credential`;
  // Given the token in the environment, and without it (start's, in MARQUEE_HOME): both are known.
  for (const extra of [{ ADMIN_TOKEN: token }, {}] as Array<Record<string, string>>) {
    const ran = await marquee(['db', 'sql', statement], { ...env(), ...extra });
    expect(ran.code, ran.stderr).toBe(0);
  }
  // A statement that fails quotes itself in its error: the reason is redacted too.
  await marquee(['db', 'sql', `SELECT '${token}' FROM no_such_relation`], env());
  const entries = JSON.parse((await marquee(['audit-log', '--action', 'db.sql', '--json'], env())).stdout) as AuditEntry[];
  expect(entries).toHaveLength(3);
  expect(JSON.stringify(entries)).not.toContain(token);
  expect(JSON.stringify(entries)).not.toContain('mqa_AAAA');
  expect(entries.map((entry) => entry.changes.statement)).toContain("SELECT '[ADMIN_TOKEN]' AS token, '[redacted secret]' AS credential");
});
