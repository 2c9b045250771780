// The admin port of `marquee start` (with the token it makes itself) and of `marquee serve`, as
// real processes: the token file and the console's address, every way in and out of the token
// check, what another site's page can and cannot do, keys made and changed through the API as the
// public API sees them from the next request, and serve's port answering /healthz, /readyz and /metrics only.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { adminContractFetch } from '../../support/admin-contract.ts';

type Process = Awaited<ReturnType<typeof marqueeProcess>>;

let home: string;
let start: Process;
let admin: string;
let gateway: string;
let token: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-start-admin-'));
  start = await marqueeProcess(['start'], { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0', LOG_FORMAT: 'json' }, /console: (http:\/\/\S+)\/ \(/);
  admin = start.match[1]!;
  gateway = /gateway listening on (http:\/\/\S+)/.exec(start.output())![1]!;
  token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
}, 120_000);
afterAll(async () => {
  await start?.stop();
  await rm(home, { recursive: true, force: true });
});

/** Every answer of start's admin API is checked against its OpenAPI document (not those of other ports). */
const fetch = adminContractFetch(() => admin);
const bearer = () => ({ Authorization: `Bearer ${token}` });
const basic = (password: string) => ({ Authorization: `Basic ${Buffer.from(`anyone:${password}`).toString('base64')}` });
const json = () => ({ ...bearer(), 'Content-Type': 'application/json' });

it('start makes a private admin token, prints where the console is, and never prints the token', async () => {
  expect(token).toMatch(/^[0-9a-f]{64}$/);
  expect((await stat(join(home, 'admin-token'))).mode & 0o777).toBe(0o600);
  expect(start.output()).toMatch(/console: http:\/\/127\.0\.0\.1:\d+\/ \(user any, password: the token in \S*admin-token\)/);
  expect(start.output()).not.toContain(token);
});

it('needs the token on every admin path but /healthz, as Bearer or as the Basic password', async () => {
  expect((await fetch(`${admin}/healthz`)).status).toBe(200);
  const none = await fetch(`${admin}/admin/v1/organizations`);
  expect(none.status).toBe(401);
  expect(none.headers.get('www-authenticate')).toBe('Basic realm="marquee admin", Bearer');
  expect(none.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(await none.json()).toMatchObject({ status: 401, errorCode: 'UNAUTHORIZED' });
  expect((await fetch(`${admin}/admin/v1/organizations`, { headers: { Authorization: `Bearer ${token}x` } })).status).toBe(401);
  expect((await fetch(`${admin}/admin/v1/organizations`, { headers: basic('wrong-password-0123456789') })).status).toBe(401);
  expect((await fetch(`${admin}/metrics`)).status).toBe(401);
  expect((await fetch(`${admin}/`)).status).toBe(401);
  expect((await fetch(`${admin}/admin/v1/organizations`, { headers: basic(token) })).status).toBe(200);
  const organizations = await fetch(`${admin}/admin/v1/organizations`, { headers: bearer() });
  expect(organizations.status).toBe(200);
  expect((await organizations.json()).map((o: { slug: string }) => o.slug).sort()).toEqual(['harbor-games', 'nordic-dev', 'old-town-meetups', 'pacific-oss']);
  // The console answers at / behind the same check.
  expect((await fetch(`${admin}/`, { headers: basic(token) })).headers.get('content-type')).toMatch(/^text\/html/);
});

it('the public port serves no admin path, even with the token', async () => {
  for (const path of ['/admin/v1/organizations', '/admin/v1/builds', '/metrics']) {
    expect((await fetch(gateway + path, { headers: bearer() })).status, path).toBe(404);
  }
});

it("refuses another site's form POST and every preflight, and sends no CORS header", async () => {
  const form = await fetch(`${admin}/admin/v1/builds`, {
    method: 'POST',
    headers: { ...basic(token), 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://evil.example' },
    body: 'organizations=nordic-dev',
  });
  expect(form.status).toBe(415);
  expect(await form.json()).toMatchObject({ errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
  expect((await fetch(`${admin}/admin/v1/builds`, { headers: bearer() }).then((r) => r.json())).filter((run: { trigger: string }) => run.trigger === 'manual')).toEqual([]);
  const textPlain = await fetch(`${admin}/admin/v1/keys`, { method: 'POST', headers: { ...bearer(), 'Content-Type': 'text/plain' }, body: '{"organization":"nordic-dev"}' });
  expect(textPlain.status).toBe(415);
  const preflight = await fetch(`${admin}/admin/v1/builds`, {
    method: 'OPTIONS',
    headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, authorization' },
  });
  expect(preflight.status).toBe(405);
  expect([...preflight.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  const read = await fetch(`${admin}/admin/v1/organizations`, { headers: { ...bearer(), Origin: 'https://evil.example' } });
  expect(read.headers.get('access-control-allow-origin')).toBeNull();
});

it('a key made through the API works on the public API; edited origins and revocation apply from the next request', async () => {
  const events = (key: string, origin?: string) =>
    fetch(`${gateway}/api/integration/v1/events`, { headers: { Authorization: `Bearer ${key}`, ...(origin ? { Origin: origin } : {}) } });
  const created = await fetch(`${admin}/admin/v1/keys`, {
    method: 'POST',
    headers: json(),
    body: JSON.stringify({ organization: 'nordic-dev', label: 'site', origins: ['https://a.example'] }),
  });
  expect(created.status).toBe(201);
  const key = (await created.json()) as { id: string; key: string; organizationId: string; origins: string[] };
  expect(key).toMatchObject({ organizationId: 'a0000000-0000-4000-8000-000000000001', origins: ['https://a.example'] });
  expect((await events(key.key)).status).toBe(200);
  expect((await events(key.key, 'https://a.example')).status).toBe(200);
  expect((await events(key.key, 'https://b.example')).status).toBe(403);

  const listed = await (await fetch(`${admin}/admin/v1/keys?organization=nordic-dev`, { headers: bearer() })).json();
  expect(listed.map((k: { id: string }) => k.id)).toContain(key.id);
  expect(JSON.stringify(listed)).not.toContain(key.key);
  const cliList = await marquee(['keys', 'list', '--org', 'a0000000-0000-4000-8000-000000000001', '--json'], { MARQUEE_HOME: home });
  expect(cliList.code, cliList.stderr).toBe(0);
  // The key was just used: its requests24h may grow between the two reads.
  const withoutUsage = (keys: Array<Record<string, unknown>>) => keys.map(({ requests24h: _requests24h, ...key }) => key);
  expect(withoutUsage(JSON.parse(cliList.stdout))).toEqual(withoutUsage(listed));

  const patched = await fetch(`${admin}/admin/v1/keys/${key.id}`, { method: 'PATCH', headers: json(), body: JSON.stringify({ origins: ['https://b.example'] }) });
  expect(patched.status).toBe(200);
  expect(await patched.json()).toMatchObject({ id: key.id, origins: ['https://b.example'] });
  expect((await events(key.key, 'https://b.example')).status).toBe(200);
  expect((await events(key.key, 'https://a.example')).status).toBe(403);

  const revoked = await fetch(`${admin}/admin/v1/keys/${key.id}/revoke`, { method: 'POST', headers: json(), body: '{}' });
  expect(revoked.status).toBe(200);
  expect((await revoked.json()).revokedAt).toEqual(expect.any(String));
  expect((await events(key.key)).status).toBe(401);

  const unknown = await fetch(`${admin}/admin/v1/keys/key_nope/revoke`, { method: 'POST', headers: json(), body: '{}' });
  expect(unknown.status).toBe(404);
  const noOrganization = await fetch(`${admin}/admin/v1/keys`, { method: 'POST', headers: json(), body: JSON.stringify({ organization: 'nowhere' }) });
  expect(await noOrganization.json()).toMatchObject({ status: 404, errorCode: 'ORGANIZATION_NOT_FOUND', detail: expect.stringContaining('nowhere') });
  const badOrigin = await fetch(`${admin}/admin/v1/keys`, { method: 'POST', headers: json(), body: JSON.stringify({ organization: 'nordic-dev', origins: ['not an origin'] }) });
  expect(badOrigin.status).toBe(400);
});

it("rolls a key through the API with the CLI's default grace, or none; expiry given at creation is enforced", async () => {
  const events = (key: string) => fetch(`${gateway}/api/integration/v1/events`, { headers: { Authorization: `Bearer ${key}` } });
  const create = async (body: object) => {
    const answer = await fetch(`${admin}/admin/v1/keys`, { method: 'POST', headers: json(), body: JSON.stringify({ organization: 'nordic-dev', ...body }) });
    expect(answer.status).toBe(201);
    return (await answer.json()) as { id: string; key: string; expiresAt: string | null; revokedAt: string | null };
  };
  const roll = async (id: string, body: object) => {
    const answer = await fetch(`${admin}/admin/v1/keys/${id}/roll`, { method: 'POST', headers: json(), body: JSON.stringify(body) });
    expect(answer.status).toBe(201);
    return (await answer.json()) as { id: string; key: string };
  };

  // No grace named: the old key keeps working for a day, as after `keys roll` without --grace.
  const old = await create({ label: 'rolled' });
  const before = Date.now();
  const replacement = await roll(old.id, {});
  expect(replacement.id).not.toBe(old.id);
  expect((await events(old.key)).status).toBe(200);
  expect((await events(replacement.key)).status).toBe(200);
  const listed = (await (await fetch(`${admin}/admin/v1/keys?organization=nordic-dev`, { headers: bearer() })).json()) as Array<{ id: string; revokedAt: string | null }>;
  const revokesAt = Date.parse(listed.find((key) => key.id === old.id)!.revokedAt!);
  expect(revokesAt - before).toBeGreaterThanOrEqual(24 * 3600_000 - 5_000);
  expect(revokesAt - before).toBeLessThanOrEqual(24 * 3600_000 + 60_000);

  // Grace 0: refused from the next request on.
  const now = await create({ label: 'rolled now' });
  const next = await roll(now.id, { graceSeconds: 0 });
  expect((await events(now.key)).status).toBe(401);
  expect((await events(next.key)).status).toBe(200);

  // An expiry in two seconds: served until then, 401 API_KEY_INVALID after — and not before.
  const expiresAt = Date.now() + 2_000;
  const expiring = await create({ expiresAt: new Date(expiresAt).toISOString() });
  expect((await events(expiring.key)).status).toBe(200);
  await expect.poll(async () => (await events(expiring.key)).status, { timeout: 2_000 + 5_000, interval: 100 }).toBe(401);
  expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
  const expired = await events(expiring.key);
  expect({ status: expired.status, errorCode: ((await expired.json()) as { errorCode: string }).errorCode }).toEqual({ status: 401, errorCode: 'API_KEY_INVALID' });
});

it("serve's admin port answers /healthz, /readyz and /metrics (with the token) and nothing else", async () => {
  const serve = await marqueeProcess(
    ['serve'],
    { MARQUEE_HOME: home, SNAPSHOT_STORE: join(home, 'snapshots'), PORT: '0', ADMIN_PORT: '0', ADMIN_TOKEN: token, LOG_FORMAT: 'json' },
    /"admin":"(http:\/\/[^"]+)"[^\n]*gateway listening on (http:\/\/\S+), /,
  );
  try {
    const serveAdmin = serve.match[1]!;
    const healthz = await fetch(`${serveAdmin}/healthz`);
    expect({ status: healthz.status, body: await healthz.json() }).toEqual({ status: 200, body: { status: 'alive' } });
    const readyz = await fetch(`${serveAdmin}/readyz`);
    expect({ status: readyz.status, body: await readyz.json() }).toEqual({
      status: 200,
      body: { status: 'ready', backends: { store: { state: 'ok', lastSuccessSecondsAgo: expect.any(Number) } } },
    });
    // Its requests are counted on this port, by route template and status.
    expect((await fetch(`${serve.match[2]}/api/integration/v1/organization`)).status).toBe(401);
    expect((await fetch(`${serveAdmin}/metrics`)).status).toBe(401);
    const metrics = await fetch(`${serveAdmin}/metrics`, { headers: bearer() });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(text).toMatch(/^marquee_gateway_requests_total\{route="\/api\/integration\/v1\/organization",status="401"\} 1$/m);
    // No builder in this process: no build metrics.
    expect(text).not.toContain('marquee_builds_total');
    for (const path of ['/admin/v1/organizations', '/admin/v1/builds', '/', '/admin/v1/keys']) {
      expect((await fetch(serveAdmin + path, { headers: bearer() })).status, path).toBe(404);
    }
  } finally {
    await serve.stop();
  }
}, 60_000);

it("serve's /readyz on both ports says why it cannot serve: a snapshot store directory that does not exist; /healthz says it is alive", async () => {
  const missing = join(home, 'no-such-snapshots');
  const serve = await marqueeProcess(
    ['serve'],
    { MARQUEE_HOME: home, SNAPSHOT_STORE: missing, PORT: '0', ADMIN_PORT: '0', ADMIN_TOKEN: token, LOG_FORMAT: 'json' },
    /"admin":"(http:\/\/[^"]+)"[^\n]*gateway listening on (http:\/\/\S+), /,
  );
  try {
    const expected = {
      status: 503,
      body: {
        status: 'unavailable',
        problems: [`snapshot store: directory ${missing} does not exist`],
        backends: { store: { state: 'down', why: `directory ${missing} does not exist`, meanwhile: expect.any(String) } },
      },
    };
    for (const base of [serve.match[1]!, serve.match[2]!]) {
      const readyz = await fetch(`${base}/readyz`);
      expect({ status: readyz.status, body: await readyz.json() }).toEqual(expected);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    }
  } finally {
    await serve.stop();
  }
}, 60_000);

it('diff through the API answers what diff --json answers, for a real change made beside start', async () => {
  const history = async () => (await (await fetch(`${admin}/admin/v1/organizations/nordic-dev/snapshots`, { headers: bearer() })).json()) as Array<{ snapshotId: string | null }>;
  const before = (await history()).length;
  const changed = await marquee(['db', 'sql', "UPDATE team_members SET title = 'Chief Volunteer' WHERE full_name = 'Zoë Ødegaard'"], { MARQUEE_HOME: home });
  expect(changed.code, changed.stderr).toBe(0);
  await expect.poll(async () => (await history()).length, { timeout: 10_000 }).toBe(before + 1);
  const [newest, previous] = (await history()).filter((entry) => entry.snapshotId !== null);
  const api = await (await fetch(`${admin}/admin/v1/organizations/nordic-dev/diff?from=${previous!.snapshotId}&to=${newest!.snapshotId}`, { headers: bearer() })).json();
  const cli = await marquee(['diff', '--org', 'nordic-dev', previous!.snapshotId!, newest!.snapshotId!, '--json'], { MARQUEE_HOME: home });
  expect(cli.code, cli.stderr).toBe(0);
  expect(api).toEqual(JSON.parse(cli.stdout));
  expect(api.changed).toContainEqual({ path: '/team', patch: [expect.objectContaining({ op: 'replace', value: 'Chief Volunteer' })] });
});

it('as-of through the API answers what marquee show answers', async () => {
  const at = new Date().toISOString();
  const nordic = 'a0000000-0000-4000-8000-000000000001';
  const answer = await fetch(`${admin}/admin/v1/organizations/nordic-dev/as-of?at=${at}&path=${encodeURIComponent('/organization')}`, { headers: bearer() });
  expect(answer.status).toBe(200);
  const shown = await marquee(['show', '--org', nordic, '--at', at, '/organization'], { MARQUEE_HOME: home });
  expect(shown.code, shown.stderr).toBe(0);
  expect(await answer.json()).toEqual(JSON.parse(shown.stdout));
  // Its evidence, in headers, as show --evidence prints it.
  const evidence = await marquee(['show', '--org', nordic, '--at', at, '--evidence', '/organization'], { MARQUEE_HOME: home });
  expect(evidence.code, evidence.stderr).toBe(0);
  const cited = JSON.parse(evidence.stdout);
  expect(cited).toMatchObject({ snapshotId: expect.any(String), manifestHash: expect.stringMatching(/^[0-9a-f]{64}$/), signature: { keyId: expect.any(String) } });
  expect(answer.headers.get('marquee-snapshot-id')).toBe(cited.snapshotId);
  expect(answer.headers.get('marquee-manifest-hash')).toBe(cited.manifestHash);
  expect(answer.headers.get('marquee-signature')).toBe(`keyId=${cited.signature.keyId}; value=${cited.signature.value}`);
  expect(answer.headers.get('etag')).toBe(cited.etag);
  const badInstant = await fetch(`${admin}/admin/v1/organizations/nordic-dev/as-of?at=yesterday&path=/organization`, { headers: bearer() });
  expect(badInstant.status).toBe(400);
});

it("a build of the CLI beside start is one of start's runs: in the admin API and on the console's builds page, as build --json says", async () => {
  const cli = await marquee(['build', '--org', 'nordic-dev', '--json'], { MARQUEE_HOME: home });
  expect(cli.code, cli.stderr).toBe(0);
  const built = JSON.parse(cli.stdout) as { runId: string; organizations: Array<Record<string, unknown>> };
  const run = await (await fetch(`${admin}/admin/v1/builds/${built.runId}`, { headers: bearer() })).json();
  expect(run).toMatchObject({ trigger: 'manual', requestedBy: expect.stringMatching(/^cli:\S+@\S+$/), state: 'finished', done: 1, total: 1 });
  expect(run.organizations.map(({ builder: _builder, ...result }: { builder: string }) => result)).toEqual(built.organizations);
  const listed = (await (await fetch(`${admin}/admin/v1/builds`, { headers: bearer() })).json()) as Array<{ id: string }>;
  expect(listed[0]!.id).toBe(built.runId);
  const page = await (await fetch(`${admin}/builds`, { headers: basic(token) })).text();
  expect(page).toContain(`href="/builds/${built.runId}"`);
  expect(page).toContain(`<code>${run.requestedBy}</code>`);
});

it("a restart of start uses the same admin token, and keeps the runs: the one asked for through the API, and the CLI's", async () => {
  const asked = await fetch(`${admin}/admin/v1/builds`, { method: 'POST', headers: json(), body: '{"organizations":["pacific-oss"]}' });
  expect(asked.status).toBe(202);
  const queued = (await asked.json()) as { id: string; requestedBy: string };
  expect(queued.requestedBy).toBe('root');
  await expect.poll(async () => (await (await fetch(`${admin}/admin/v1/builds/${queued.id}`, { headers: bearer() })).json()).state, { timeout: 30_000 }).toBe('finished');
  const before = (await (await fetch(`${admin}/admin/v1/builds`, { headers: bearer() })).json()) as Array<{ id: string; state: string }>;
  await start.stop();
  start = await marqueeProcess(['start'], { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0', LOG_FORMAT: 'json' }, /console: (http:\/\/\S+)\/ \(/);
  admin = start.match[1]!;
  expect((await readFile(join(home, 'admin-token'), 'utf8')).trim()).toBe(token);
  const after = (await (await fetch(`${admin}/admin/v1/builds`, { headers: bearer() })).json()) as Array<{ id: string; state: string }>;
  // Every run from before the restart, as it ended, behind the restarted start's own first run.
  expect(after.slice(-before.length)).toEqual(before);
  expect(await (await fetch(`${admin}/admin/v1/builds/${queued.id}`, { headers: bearer() })).json()).toMatchObject({ requestedBy: 'root', state: 'finished' });
}, 120_000);
