// The console in a real Chromium against the real program: `marquee start` on a PostgreSQL loaded
// with the sample data, opened with the admin token as HTTP Basic password. What an operator sees:
// each page, a build started from its form, a key created (its secret once), used, edited and
// revoked, the diff of a change made in the platform's data, markup in a name shown as text, and
// a form posted from another site or with a token not its own refused, and recorded with the
// reason the page gave.
import { copyFileSync, mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { launchChromium } from '../../support/chromium.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';

const HOSTILE_NAME = '<script>alert(1)</script> & Co';
const API = '/api/integration/v1';

let postgres: TestPostgres;
let home: string;
let start: Awaited<ReturnType<typeof marqueeProcess>>;
let consoleUrl: string;
let gatewayUrl: string;
let token: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Dialogs any page opened: markup in data must never run. */
const dialogs: string[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  home = await mkdtemp(join(tmpdir(), 'marquee-console-'));
  const env = { MARQUEE_HOME: home, DATABASE_URL: postgres.url };
  expect((await marquee(['db', 'migrate'], env)).code).toBe(0);
  expect((await marquee(['db', 'seed', '--sample'], env)).code).toBe(0);
  await sql([`UPDATE organizations SET name = $1 WHERE id = $2`, [HOSTILE_NAME, SAMPLE.organizations.harbor.id]]);
  start = await marqueeProcess(['start'], { ...env, PORT: '0', ADMIN_PORT: '0' }, /console: (http:\/\/\S+?)\/? /);
  consoleUrl = start.match[1]!;
  gatewayUrl = /gateway listening on (http:\/\/\S+)/.exec(start.output())![1]!;
  token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
  browser = await launchChromium();
  context = await browser.newContext({ httpCredentials: { username: 'operator', password: token }, viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await start?.stop();
  await postgres?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

/** Runs the statements in one transaction: the change listener sees them as one change, built once. */
async function sql(...statements: Array<[text: string, values: unknown[]]>): Promise<void> {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const [text, values] of statements) await client.query(text, values);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}

/** A table's body rows as the text of their cells. */
async function rows(table = page.locator('table').first()): Promise<string[][]> {
  return table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('th, td'), (cell) => (cell.textContent ?? '').replace(/\s+/g, ' ').trim())));
}

const apiStatus = async (key: string) => (await fetch(`${gatewayUrl}${API}/organization`, { headers: { Authorization: `Bearer ${key}` } })).status;

const heading = () => page.getByRole('heading', { level: 1 }).innerText();

describe('the console of a running start', () => {
  it('lists the organizations with state, current snapshot and its age, and shows markup in a name as text', async () => {
    await page.goto(`${consoleUrl}/organizations`);
    expect(await heading()).toBe('Organizations');
    const table = await rows();
    const nordic = table.find((cells) => cells[0]!.includes('nordic-dev'))!;
    expect(nordic[1]).toBe('active');
    expect(nordic[2]).toMatch(/\S+/);
    expect(nordic[3]).toMatch(/(seconds|minute|minutes) ago|just now/);
    expect(await page.locator('tbody tr', { hasText: 'nordic-dev' }).locator('time').first().getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    const harbor = table.find((cells) => cells[0]!.includes('harbor-games'))!;
    expect(harbor[0]).toContain(HOSTILE_NAME);
    expect(harbor[1]).toBe('suspended');
    expect(await page.getByText(HOSTILE_NAME).first().isVisible()).toBe(true);
    await page.goto(`${consoleUrl}/organizations/harbor-games/history`);
    expect(await heading()).toBe(`History of ${HOSTILE_NAME}`);
    await page.goto(`${consoleUrl}/keys`);
    expect(await page.getByLabel('Show keys of').innerText()).toContain(HOSTILE_NAME);
    expect(dialogs).toEqual([]);
  });

  it('starts a build from the form and shows its progress, then the result of each organization (nothing changed since start: unchanged)', async () => {
    await page.goto(`${consoleUrl}/builds`);
    await page.getByRole('button', { name: 'Build all' }).click();
    await page.waitForURL(/\/builds\/[0-9a-f-]{36}$/);
    expect(await heading()).toMatch(/^Build run [0-9a-f]{8}$/);
    expect(await page.locator('.progress-text').innerText()).toMatch(/^\d of \d$/);
    // The page refreshes itself while the run is under way; no script needed.
    await expect
      .poll(
        () =>
          page
            .locator('.lead .state')
            .innerText()
            .catch(() => ''),
        { timeout: 60_000 },
      )
      .toBe('finished');
    expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(0);
    expect(await page.locator('.progress-text').innerText()).toBe('4 of 4');
    expect(await page.locator('dt:text-is("Builds") + dd').innerText()).toBe('every organization');
    const results = await rows();
    expect(results.map((cells) => [cells[0], cells[1]]).sort()).toEqual([
      ['harbor-games', 'suspended'],
      ['nordic-dev', 'unchanged'],
      ['old-town-meetups', 'suspended'],
      ['pacific-oss', 'unchanged'],
    ]);
    await page.goto(`${consoleUrl}/builds`);
    expect((await rows())[0]![1]).toBe('finished');
  });

  it('creates a key from the form, shows its secret once, and the key works until it is revoked', async () => {
    await page.goto(`${consoleUrl}/keys/new?organization=nordic-dev`);
    expect(await heading()).toBe('Create a key');
    await page.getByLabel('Label (optional)').fill('Console test');
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await heading()).toBe('Key created');
    const secret = (await page.getByLabel('Secret').innerText()).trim();
    expect(secret).toMatch(/^mqk_/);
    expect(await page.getByRole('alert').innerText()).toContain('shown on this page once');
    expect(await apiStatus(secret)).toBe(200);
    await page.reload();
    expect(await heading()).toBe('Secret no longer shown');
    expect(await page.content()).not.toContain(secret);

    await page.goto(`${consoleUrl}/keys?organization=nordic-dev`);
    const row = page.locator('tbody tr', { hasText: 'Console test' });
    expect(await row.locator('td').nth(2).innerText()).toBe('server-side only');
    expect(await page.content()).not.toContain(secret);
    await row.getByRole('link', { name: /^Edit/ }).click();
    await page.getByLabel(/Allowed origins/).fill('https://www.nordicdev.example.org\nhttps://tickets.nordicdev.example.org');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(/\/keys\?organization=/);
    expect(await row.locator('td').nth(2).innerText()).toBe('https://www.nordicdev.example.org\nhttps://tickets.nordicdev.example.org');

    await row.getByRole('link', { name: /^Revoke/ }).click();
    expect(await heading()).toMatch(/^Revoke key \S+\?$/);
    expect(await apiStatus(secret)).toBe(200); // the confirmation page alone changes nothing
    await page.getByRole('button', { name: /^Revoke key/ }).click();
    await page.waitForURL(/\/keys\?organization=/);
    expect(await row.locator('td').nth(7).innerText()).toMatch(/^revoked \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await expect.poll(() => apiStatus(secret), { timeout: 10_000 }).toBe(401);
  });

  it('shows what changed in the platform field by field: a hidden team member as one removal, a reorder as a move', async () => {
    const nordic = SAMPLE.organizations.nordic.id;
    // Mikko leaves the website; Zoë goes first (Astrid 1, Mikko 2, Zoë 3 before).
    await sql(
      [`UPDATE team_members SET show_on_website = false WHERE organization_id = $1 AND full_name = 'Mikko Virtanen'`, [nordic]],
      [`UPDATE team_members SET sort_order = 0 WHERE organization_id = $1 AND full_name = 'Zoë Ødegaard'`, [nordic]],
    );
    await expect
      .poll(
        async () => {
          await page.goto(`${consoleUrl}/organizations/nordic-dev/history`);
          return page.getByRole('link', { name: 'compare with previous' }).count();
        },
        { timeout: 60_000, interval: 1000 },
      )
      .toBeGreaterThan(0);
    expect(await heading()).toBe('History of Nordic Developer Community');
    expect(await page.getByLabel('Instant (ISO 8601)').inputValue()).toMatch(/^\d{4}-/);
    mkdirSync('.test-output', { recursive: true });
    await page.screenshot({ path: '.test-output/console-history.png', fullPage: true });

    await page.getByRole('link', { name: 'compare with previous' }).first().click();
    expect(await heading()).toBe('Changes in Nordic Developer Community');
    const team = page.locator('section', { has: page.getByRole('heading', { name: '/team', exact: true }) });
    const changes = await rows(team.locator('table'));
    const kinds = changes.map((cells) => cells[0]!);
    expect(kinds.filter((kind) => kind === 'removed')).toHaveLength(1);
    expect(kinds.filter((kind) => kind.startsWith('moved from position'))).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'added')).toEqual([]);
    const removal = changes.find((cells) => cells[0] === 'removed')!;
    expect(removal[2]).toContain('Mikko Virtanen');
    expect(removal[3]).toBe('');
    await page.screenshot({ path: '.test-output/console-diff.png', fullPage: true });
    if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync('.test-output/console-diff.png', 'docs/console-diff.png');
  });

  it('shows state changes in the history among the snapshots, newest first', async () => {
    const pacific = SAMPLE.organizations.pacific.id;
    const whats = async () => {
      await page.goto(`${consoleUrl}/organizations/pacific-oss/history`);
      return (await rows()).map((cells) => cells[1]);
    };
    await sql([`UPDATE organizations SET status = 'suspended' WHERE id = $1`, [pacific]]);
    await expect.poll(whats, { timeout: 60_000, interval: 1000 }).toEqual(['suspended current', 'published (start)']);
    await sql([`UPDATE organizations SET status = 'active' WHERE id = $1`, [pacific]]);
    await expect.poll(async () => (await whats())[0], { timeout: 60_000, interval: 1000 }).toMatch(/^reactivated( current)?$/);
    expect(await whats()).toContain('suspended');
  });

  it('answers what an API path returned at an instant', async () => {
    await page.goto(`${consoleUrl}/as-of`);
    await page.getByLabel('Organization').selectOption({ label: 'Nordic Developer Community (nordic-dev)' });
    await page.getByLabel('Instant (ISO 8601)').fill(new Date().toISOString());
    await page.getByLabel('API path').fill('/organization');
    await page.getByRole('button', { name: 'Show' }).click();
    expect(await page.getByRole('heading', { level: 2 }).innerText()).toMatch(/status 200$/);
    expect(JSON.parse(await page.getByLabel('Response body').innerText())).toMatchObject({ slug: 'nordic-dev' });
    // The evidence behind it: snapshot, manifest hash, signature, ETag; and the changes since then.
    const evidence = await page.getByLabel('Evidence').innerText();
    expect(evidence).toMatch(/Manifest hash \(SHA-256\)\s+[0-9a-f]{64}/);
    expect(evidence).toMatch(/Signature\s+Ed25519 by key [0-9a-f]{16}/);
    expect(evidence).toMatch(/ETag\s+"/);
    await page.getByRole('link', { name: 'changes since then' }).click();
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toMatch(/^Changes in /);
  });

  it('refuses a form posted from another site, even one carrying a valid token', async () => {
    await page.goto(`${consoleUrl}/builds`);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const runs = (await rows()).length;
    const site = await listen(
      `<!doctype html><title>Another site</title><form method="post" action="${consoleUrl}/builds"><input type="hidden" name="_csrf" value="${csrf}"><button>Win a prize</button></form>`,
    );
    try {
      await page.goto(site.origin);
      await page.getByRole('button', { name: 'Win a prize' }).click();
      expect(await heading()).toBe('Form refused');
      expect(await page.locator('main').innerText()).toContain('Nothing was changed');
    } finally {
      site.server.close();
    }
    await page.goto(`${consoleUrl}/builds`);
    expect((await rows()).length).toBe(runs);
    // The trail records the refusal as the page gave it: which site, not only that it was a 403.
    await expect
      .poll(async () => (await newestEntry('build.requested'))?.reason, { timeout: 10_000 })
      .toBe('FORM_REFUSED: Nothing was changed: the form was sent from another site (Sec-Fetch-Site: cross-site).');
  });

  it('records a form refused for its token with the reason the page gave, not the status', async () => {
    const basic = `Basic ${Buffer.from(`operator:${token}`).toString('base64')}`;
    const answer = await fetch(`${consoleUrl}/builds`, {
      method: 'POST',
      headers: { Authorization: basic, Origin: new URL(consoleUrl).origin, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: 'a-token-of-another-credential', organization: 'nordic-dev' }).toString(),
      redirect: 'manual',
    });
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain('Nothing was changed: the form has no valid CSRF token (open the page again and resubmit).');
    await expect
      .poll(async () => newestEntry('build.requested'), { timeout: 10_000 })
      .toMatchObject({
        door: 'console',
        outcome: 'refused',
        reason: 'FORM_REFUSED: Nothing was changed: the form has no valid CSRF token (open the page again and resubmit).',
        changes: { organization: 'nordic-dev' },
      });
  });
});

/** The newest entry of the audit trail with this action, as the admin API lists it. */
async function newestEntry(action: string): Promise<Record<string, unknown> | undefined> {
  const answer = await fetch(`${consoleUrl}/admin/v1/audit-log?action=${action}&limit=1`, { headers: { Authorization: `Bearer ${token}` } });
  return ((await answer.json()) as { entries: Array<Record<string, unknown>> }).entries[0];
}

/** A page of another origin (another port) serving `html`. */
async function listen(html: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(html));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
}
