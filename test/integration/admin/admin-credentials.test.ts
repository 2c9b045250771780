// Named admin credentials and their roles, through the real program: `marquee start` on its
// embedded PGlite, credentials made with the real `marquee admins` commands beside it. Every route
// of the admin API and every page of the console is walked from its declaration (api-routes.ts,
// the console's pages and forms), so a new one cannot be left out: an auditor reads them all and
// is refused every change with nothing changed; an operator cannot manage credentials; an expired
// or revoked credential is 401 from the next request; ADMIN_TOKEN still acts as root.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleAllows } from '../../../records/actor.ts';
import type { AdminRoute } from '../../../admin/api-route.ts';
import { ADMIN_API_BASE, ADMIN_ROUTES } from '../../../admin/api-routes.ts';
import { declaredConsoleRoutes } from '../../../admin/console/console-routes.ts';
import { consoleRouter } from '../../../admin/console/router.ts';
import type { AdminServices } from '../../../admin/services.ts';
import { adminContractFetch } from '../../support/admin-contract.ts';
import { launchChromium } from '../../support/chromium.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';

type Process = Awaited<ReturnType<typeof marqueeProcess>>;
interface Credential {
  name: string;
  role: string;
  secret: string;
  expiresAt: string | null;
}

let home: string;
let start: Process;
let admin: string;
let token: string;
let browser: Browser;
const env = () => ({ MARQUEE_HOME: home });
const fetch = adminContractFetch(() => admin);

/** Made with the CLI before the tests: one of each role. */
const made: Record<'auditor' | 'operator' | 'owner', Credential> = {} as never;
/** Things that exist, for routes whose path names one. */
const fixture = { keyId: '', webhookId: '', runId: '', verificationId: '', snapshotId: '' };

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-admins-'));
  start = await marqueeProcess(
    ['start'],
    // A schedule that never comes during the test: the runs listed stay the ones the test made.
    { ...env(), PORT: '0', ADMIN_PORT: '0', WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_ALLOW_INSECURE: '1', BUILD_SCHEDULE: '0 0 1 1 *' },
    /console: (http:\/\/\S+)\/ \(/,
  );
  admin = start.match[1]!;
  token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
  for (const [name, role] of [
    ['audrey', 'auditor'],
    ['otto', 'operator'],
    ['olga', 'owner'],
  ] as const) {
    made[role] = await createWithCli(name, role);
  }
  const key = await call('root', 'POST', '/keys', { organization: 'nordic-dev', label: 'fixture' });
  fixture.keyId = ((await key.json()) as { id: string }).id;
  const webhook = await call('root', 'POST', '/organizations/nordic-dev/webhooks', { url: 'http://127.0.0.1:9/hook' });
  expect(webhook.status).toBe(201);
  fixture.webhookId = ((await webhook.json()) as { id: string }).id;
  const run = await call('root', 'POST', '/builds', { organizations: ['nordic-dev'] });
  fixture.runId = ((await run.json()) as { id: string }).id;
  // start built every organization before it listened: nordic-dev's newest snapshot is there.
  const history = await call('root', 'GET', '/organizations/nordic-dev/snapshots');
  fixture.snapshotId = ((await history.json()) as Array<{ snapshotId: string | null }>).find((entry) => entry.snapshotId !== null)!.snapshotId!;
  // An auditor's check, the one POST an auditor may make (auditor-checks.test.ts tests it).
  const verification = await call(made.auditor, 'POST', '/verifications');
  expect(verification.status).toBe(202);
  fixture.verificationId = ((await verification.json()) as { id: string }).id;
  // Its progress may move while the tests run; `state()` compares only which runs exist.
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await start?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

async function createWithCli(name: string, role: string, ...more: string[]): Promise<Credential> {
  const created = await marquee(['admins', 'create', '--name', name, '--role', role, ...more, '--json'], env());
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout) as Credential;
}

const secretOf = (who: string | Credential) => (typeof who === 'string' ? token : who.secret);

/** A request to the admin API as `who` ('root' = ADMIN_TOKEN), its answer checked against the document. */
function call(who: 'root' | Credential, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${admin}${ADMIN_API_BASE}${path}`, {
    method,
    headers: { Authorization: `Bearer ${secretOf(who)}`, ...(method === 'GET' ? {} : { 'Content-Type': 'application/json' }) },
    ...(method === 'GET' ? {} : { body: JSON.stringify(body ?? {}) }),
  });
}

/** A route's path with what exists in place of its parameters, and the query it needs. */
function pathOf(route: AdminRoute): string {
  const byTag: Record<string, string> = {
    Builds: fixture.runId,
    Keys: fixture.keyId,
    Webhooks: fixture.webhookId,
    Verifications: fixture.verificationId,
    Snapshots: fixture.snapshotId,
  };
  const path = route.path
    .replace('{idOrSlug}', 'nordic-dev')
    .replace('{messageId}', 'msg_none')
    .replace('{name}', 'otto')
    .replace('{id}', byTag[route.tag] ?? 'none');
  const query: Record<string, string> = {
    diffSnapshots: '?from=current&to=current',
    answerAsOf: `?at=${encodeURIComponent(new Date().toISOString())}&path=/organization`,
  };
  return path + (query[route.name] ?? '');
}

/** Bodies a route would accept: a refusal must not be a schema's. */
const BODIES: Record<string, unknown> = {
  startBuild: { organizations: ['nordic-dev'] },
  createKey: { organization: 'nordic-dev', label: 'mallory' },
  updateKey: { label: 'changed by mallory' },
  rollKey: { graceSeconds: 0 },
  addWebhook: { url: 'http://127.0.0.1:9/mallory' },
  updateWebhook: { description: 'changed by mallory' },
  createAdmin: { name: 'mallory', role: 'owner' },
};

/** What a change would have changed, as root reads it. */
async function state(): Promise<unknown> {
  const read = async (path: string) => (await call('root', 'GET', path)).json();
  const keys = (await read('/keys')) as Array<Record<string, unknown>>;
  const webhooks = (await read('/organizations/nordic-dev/webhooks')) as Array<Record<string, unknown>>;
  const runs = (await read('/builds')) as Array<{ id: string }>;
  const admins = (await read('/admins')) as Array<Record<string, unknown>>;
  return {
    keys,
    webhooks: webhooks.map(({ id, url, description, enabled }) => ({ id, url, description, enabled })),
    runs: runs.map((run) => run.id),
    // Last use moves with every request; the rest may not.
    admins: admins.map(({ lastUsedAt: _lastUsedAt, ...rest }) => rest),
  };
}

describe('the admins commands', () => {
  it('create prints the secret once with --json as the API answers; list never shows it', async () => {
    expect(made.auditor).toMatchObject({ name: 'audrey', role: 'auditor', createdBy: expect.stringMatching(/^cli:.+@.+$/), expiresAt: null, revokedAt: null });
    expect(made.auditor.secret).toMatch(/^mqa_[A-Za-z0-9_-]{32}$/);
    const listed = await marquee(['admins', 'list', '--json'], env());
    expect(listed.code, listed.stderr).toBe(0);
    const credentials = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    expect(credentials.map((credential) => credential.name)).toEqual(expect.arrayContaining(['audrey', 'otto', 'olga']));
    for (const credential of Object.values(made)) expect(listed.stdout).not.toContain(credential.secret);
    // The prefix is all of a secret a list shows; nothing names a hash.
    expect(listed.stdout.replace(/"prefix": "mqa_[^"]{4}"/g, '')).not.toMatch(/mqa_|secret|hash/i);
    // The API's list is the CLI's (last use aside, which the CLI's own requests do not move but the API's do).
    const withoutUse = ({ lastUsedAt: _lastUsedAt, ...rest }: Record<string, unknown>) => rest;
    expect(((await (await call('root', 'GET', '/admins')).json()) as Array<Record<string, unknown>>).map(withoutUse)).toEqual(credentials.map(withoutUse));
    const text = await marquee(['admins', 'list'], env());
    expect(text.stdout).toMatch(/^audrey {2}auditor {2}mqa_.{4}… {2}active {2}/m);
  });

  it('refuses a name taken, an unknown role, a bad expiry and an unknown credential in one line each, changing nothing', async () => {
    const before = await marquee(['admins', 'list', '--json'], env());
    const taken = await marquee(['admins', 'create', '--name', 'audrey', '--role', 'owner'], env());
    expect(taken.code).toBe(1);
    expect(taken.stderr).toBe(
      'marquee: an admin credential named "audrey" exists already (names are never reused, so the audit trail\'s names stay unambiguous): choose another name\n',
    );
    // A wrong value on the command line: exit 2 and the command's usage line (docs/operation.md).
    const role = await marquee(['admins', 'create', '--name', 'newcomer', '--role', 'admin'], env());
    expect(role.code).toBe(2);
    expect(role.stderr).toMatch(/^marquee: "admin" is not a role: use one of auditor, operator, owner\n/);
    expect(role.stderr).toMatch(/Usage: marquee admins create/);
    const expiry = await marquee(['admins', 'create', '--name', 'newcomer', '--role', 'auditor', '--expires', 'soon'], env());
    expect(expiry.code).toBe(2);
    expect(expiry.stderr).toMatch(/^marquee: --expires "soon" is neither a duration such as 90d nor an ISO instant/);
    const unknown = await marquee(['admins', 'revoke', 'nobody'], env());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('marquee: no admin credential is named "nobody" (see: marquee admins list)\n');
    const after = await marquee(['admins', 'list', '--json'], env());
    expect(JSON.parse(after.stdout).map((c: { name: string }) => c.name)).toEqual(JSON.parse(before.stdout).map((c: { name: string }) => c.name));
  });
});

describe('the admin API by role', () => {
  it('lets an auditor read every path the routes declare readable, /metrics and the document', async () => {
    const readable = ADMIN_ROUTES.filter((route) => route.role === 'auditor' && route.method === 'get');
    expect(readable.length).toBeGreaterThan(8);
    for (const route of readable) {
      const answer = await call(made.auditor, 'GET', pathOf(route));
      expect(answer.status, `${route.name} ${pathOf(route)}: ${await answer.clone().text()}`).toBe(route.status);
    }
    for (const path of ['/metrics', `${ADMIN_API_BASE}/openapi.json`]) {
      expect((await fetch(`${admin}${path}`, { headers: { Authorization: `Bearer ${made.auditor.secret}` } })).status, path).toBe(200);
    }
  });

  it('refuses an auditor every other route with 403 ADMIN_FORBIDDEN, and nothing changes', async () => {
    const before = await state();
    const changing = ADMIN_ROUTES.filter((route) => !roleAllows('auditor', route.role));
    expect(changing.map((route) => route.method)).toContain('delete');
    for (const route of changing) {
      const answer = await call(made.auditor, route.method.toUpperCase(), pathOf(route), BODIES[route.name]);
      expect(answer.status, `${route.name}: ${await answer.clone().text()}`).toBe(403);
      expect(await answer.json()).toMatchObject({ errorCode: 'ADMIN_FORBIDDEN', detail: expect.stringContaining(`needs the role ${route.role}`) });
    }
    expect(await state()).toEqual(before);
  });

  it('lets an operator change keys but refuses every admin credential route', async () => {
    const before = await state();
    for (const route of ADMIN_ROUTES.filter((candidate) => candidate.role === 'owner')) {
      const answer = await call(made.operator, route.method.toUpperCase(), pathOf(route), BODIES[route.name]);
      expect(answer.status, route.name).toBe(403);
      expect(await answer.json()).toMatchObject({ errorCode: 'ADMIN_FORBIDDEN' });
    }
    expect(await state()).toEqual(before);
    expect((await call(made.operator, 'POST', '/keys', { organization: 'nordic-dev', label: 'by otto' })).status).toBe(201);
  });

  it('lets an owner and ADMIN_TOKEN (root) manage credentials, recording who made and revoked each', async () => {
    const byOwner = await call(made.owner, 'POST', '/admins', { name: 'temp', role: 'auditor' });
    expect(byOwner.status).toBe(201);
    expect(byOwner.headers.get('location')).toBe(`${ADMIN_API_BASE}/admins/temp`);
    const temp = (await byOwner.json()) as Credential;
    expect(temp).toMatchObject({ name: 'temp', role: 'auditor', createdBy: 'olga' });
    expect((await call(temp, 'GET', '/organizations')).status).toBe(200);
    const taken = await call('root', 'POST', '/admins', { name: 'temp', role: 'owner' });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toMatchObject({ errorCode: 'ADMIN_NAME_TAKEN' });
    const badRole = await call('root', 'POST', '/admins', { name: 'other', role: 'admin' });
    expect(await badRole.json()).toMatchObject({ status: 400, errorCode: 'BAD_REQUEST', detail: 'role must be one of auditor, operator, owner' });
    const root = await call('root', 'POST', '/admins', { name: 'by-root', role: 'operator' });
    expect(await root.json()).toMatchObject({ name: 'by-root', createdBy: 'root' });
    const revoked = await call(made.owner, 'POST', '/admins/temp/revoke');
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ name: 'temp', revokedBy: 'olga', revokedAt: expect.any(String) });
    // From the very next request on.
    const refused = await call(temp, 'GET', '/organizations');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ errorCode: 'UNAUTHORIZED' });
    const unknown = await call(made.owner, 'POST', '/admins/nobody/revoke');
    expect(await unknown.json()).toMatchObject({ status: 404, errorCode: 'ADMIN_NOT_FOUND' });
  });

  it('refuses a credential revoked with the CLI from the next request, and an expired one once its time has come', async () => {
    const gone = await createWithCli('gone', 'operator');
    expect((await call(gone, 'GET', '/keys')).status).toBe(200);
    expect((await marquee(['admins', 'revoke', 'gone'], env())).code).toBe(0);
    expect((await call(gone, 'GET', '/keys')).status).toBe(401);

    const brief = await createWithCli('brief', 'auditor', '--expires', '6s');
    expect(Date.parse(brief.expiresAt!) - Date.now()).toBeLessThanOrEqual(6_000);
    expect((await call(brief, 'GET', '/keys')).status).toBe(200);
    await expect.poll(async () => (await call(brief, 'GET', '/keys')).status, { timeout: 15_000, interval: 200 }).toBe(401);
    const listed = await marquee(['admins', 'list'], env());
    expect(listed.stdout).toMatch(/^brief {2}auditor {2}mqa_.{4}… {2}expired /m);
    expect(listed.stdout).toMatch(/^gone {2}operator {2}mqa_.{4}… {2}revoked \S+ by cli:/m);
  });

  it('keeps the last use of a credential, never before its creation', async () => {
    const credentials = JSON.parse((await marquee(['admins', 'list', '--json'], env())).stdout) as Array<{ name: string; createdAt: string; lastUsedAt: string | null }>;
    const audrey = credentials.find((credential) => credential.name === 'audrey')!;
    expect(audrey.lastUsedAt).not.toBeNull();
    expect(Date.parse(audrey.lastUsedAt!)).toBeGreaterThanOrEqual(Date.parse(audrey.createdAt));
    expect(credentials.find((credential) => credential.name === 'by-root')!.lastUsedAt).toBeNull();
  });

  it('accepts a credential as the Basic password, and still ADMIN_TOKEN as root; anything else is 401', async () => {
    const basic = (password: string) => ({ Authorization: `Basic ${Buffer.from(`anyone:${password}`).toString('base64')}` });
    expect((await fetch(`${admin}${ADMIN_API_BASE}/organizations`, { headers: basic(made.auditor.secret) })).status).toBe(200);
    expect((await fetch(`${admin}${ADMIN_API_BASE}/admins`, { headers: basic(token) })).status).toBe(200);
    const damaged = `${made.owner.secret.slice(0, -1)}${made.owner.secret.endsWith('A') ? 'B' : 'A'}`;
    for (const secret of [damaged, 'mqa_', `${token}x`]) {
      expect((await fetch(`${admin}${ADMIN_API_BASE}/organizations`, { headers: { Authorization: `Bearer ${secret}` } })).status).toBe(401);
    }
  });
});

describe('the console by role', () => {
  /** Every console page and form, as the console declares them. */
  const declared = declaredConsoleRoutes(consoleRouter({} as AdminServices)).filter((page) => !page.path.startsWith('/console.'));
  const fill = (path: string) =>
    path
      .replace(':organization', 'nordic-dev')
      .replace(':runId', fixture.runId)
      .replace(':verificationId', fixture.verificationId)
      .replace(':keyId', fixture.keyId)
      .replace(':id', fixture.webhookId)
      .replace(':messageId', 'msg_none')
      .replace(':name', 'otto')
      .replace(':ticket', 'none');

  async function signedIn(credential: Credential): Promise<Page> {
    const context = await browser.newContext({ httpCredentials: { username: credential.name, password: credential.secret } });
    return context.newPage();
  }

  it('an auditor opens every reading page and every link on it, is shown as signed in, and is offered no form', async () => {
    const page = await signedIn(made.auditor);
    const reading = declared.filter((route) => route.method === 'get' && route.role === 'auditor').map((route) => fill(route.path));
    expect(reading).toEqual(expect.arrayContaining(['/', '/organizations', '/keys', '/webhooks', `/builds/${fixture.runId}`]));
    const seen = new Set<string>();
    const queue = [...reading];
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const answer = await page.goto(`${admin}${path}`);
      expect(answer?.status(), path).toBe(200);
      expect(await page.locator('.signed-in').innerText(), path).toBe('Signed in as audrey (auditor)');
      // The one form an auditor is offered: starting a verification, an auditor's check.
      expect(await page.locator('form[method="post"]:not([action$="/verifications"])').count(), path).toBe(0);
      expect(await page.locator('nav a', { hasText: 'Admins' }).count(), path).toBe(0);
      // Every link the page offers opens for this role: the console shows only what the role may do.
      for (const href of await page.locator('a[href]').evaluateAll((links) => links.map((link) => (link as HTMLAnchorElement).href))) {
        const url = new URL(href);
        if (url.origin === new URL(admin).origin && url.hash === '' && seen.size + queue.length < 200) queue.push(url.pathname + url.search);
      }
    }
    expect(seen.size).toBeGreaterThan(reading.length);
    await page.context().close();
  });

  it('an auditor is refused every other page and every form with a 403 page, and nothing changes', async () => {
    const before = await state();
    const page = await signedIn(made.auditor);
    for (const route of declared.filter((candidate) => candidate.method === 'get' && candidate.role !== 'auditor')) {
      const answer = await page.goto(`${admin}${fill(route.path)}`);
      expect(answer?.status(), route.path).toBe(403);
      expect(await page.locator('main').innerText(), route.path).toContain('Nothing was changed');
    }
    const authorization = `Basic ${Buffer.from(`audrey:${made.auditor.secret}`).toString('base64')}`;
    const posts = declared.filter((route) => route.method === 'post' && route.role !== 'auditor');
    expect(posts.length).toBeGreaterThan(10);
    for (const route of posts) {
      const answer = await fetch(`${admin}${fill(route.path)}`, {
        method: 'POST',
        headers: { Authorization: authorization, Origin: admin, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'organization=nordic-dev&name=mallory&role=owner&label=x',
        redirect: 'manual',
      });
      expect(answer.status, route.path).toBe(403);
    }
    expect(await state()).toEqual(before);
    await page.context().close();
  });

  it('an operator gets the forms of keys, webhooks and builds but not the credentials page', async () => {
    const page = await signedIn(made.operator);
    await page.goto(`${admin}/keys`);
    expect(await page.locator('.signed-in').innerText()).toBe('Signed in as otto (operator)');
    expect(await page.getByRole('link', { name: 'Create a key' }).count()).toBe(1);
    expect(await page.locator('nav a', { hasText: 'Admins' }).count()).toBe(0);
    expect((await page.goto(`${admin}/admins`))?.status()).toBe(403);
    await page.goto(`${admin}/builds`);
    expect(await page.getByRole('button', { name: 'Build all' }).count()).toBe(1);
    await page.context().close();
  });

  it('an owner creates a credential on the credentials page (its secret shown once) and revokes it', async () => {
    const page = await signedIn(made.owner);
    await page.goto(`${admin}/organizations`);
    await page.locator('nav a', { hasText: 'Admins' }).click();
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Admin credentials');
    await page.getByLabel('Name').fill('from-console');
    await page.getByLabel('Role').selectOption('auditor');
    await page.getByLabel('Expires').fill('30d');
    await page.getByRole('button', { name: 'Create credential' }).click();
    await page.waitForURL(/\/admins\/shown\//);
    const secret = await page.locator('#admin-secret').innerText();
    expect(secret).toMatch(/^mqa_[A-Za-z0-9_-]{32}$/);
    expect((await fetch(`${admin}${ADMIN_API_BASE}/keys`, { headers: { Authorization: `Bearer ${secret}` } })).status).toBe(200);
    // Shown once: the same address again shows nothing.
    expect((await page.reload())?.status()).toBe(410);
    expect(await page.content()).not.toContain(secret);

    await page.goto(`${admin}/admins`);
    const row = page.locator('tbody tr', { hasText: 'from-console' });
    expect(await row.innerText()).toContain('by olga');
    await row.getByRole('link', { name: /Revoke/ }).click();
    await page.getByRole('button', { name: 'Revoke from-console' }).click();
    await page.waitForURL(/\/admins$/);
    expect(await page.locator('tbody tr', { hasText: 'from-console' }).innerText()).toMatch(/revoked .* by olga/);
    expect((await fetch(`${admin}${ADMIN_API_BASE}/keys`, { headers: { Authorization: `Bearer ${secret}` } })).status).toBe(401);
    // A name taken is said on the same form.
    await page.getByLabel('Name').fill('from-console');
    await page.getByRole('button', { name: 'Create credential' }).click();
    expect(await page.locator('.form-error').innerText()).toContain('exists already');
    await page.context().close();
  });
});
