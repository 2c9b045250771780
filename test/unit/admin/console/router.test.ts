// The console in-process over a fake AdminServices: every page renders with its security headers,
// data is text everywhere, forms need the console's own origin and token, POSTs answer 303, and a
// secret is shown once.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_ACTOR } from '../../../../records/actor.ts';
import { adminAnswerHeaders } from '../../../../admin/answer-headers.ts';
import { setActor } from '../../../../admin/request-actor.ts';
import { consoleRouter } from '../../../../admin/console/router.ts';
import { createViews } from '../../../../admin/console/views.ts';
import { fakeServices, HOSTILE_NAME, ORGS } from './fake-services.ts';

const AUTH = `Basic ${Buffer.from('operator:the-admin-token-1234').toString('base64')}`;
let services: ReturnType<typeof fakeServices>;
let server: Server;
let origin: string;

beforeAll(async () => {
  services = fakeServices();
  const app = express();
  // The admin port's own headers (no-store, nosniff), as its app sets them before anything answers.
  app.use(adminAnswerHeaders());
  // The admin port's credential check, as ADMIN_TOKEN passes it.
  app.use((_req, res, next) => {
    setActor(res, ROOT_ACTOR);
    next();
  });
  app.use('/', consoleRouter(services, { now: () => new Date('2026-11-22T10:00:00Z') }));
  app.use((_req, res) => res.status(404).json({ from: 'the app' }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const get = (path: string) => fetch(`${origin}${path}`, { headers: { Authorization: AUTH }, redirect: 'manual' });

/** The CSRF token in a page's forms. */
async function tokenOf(path: string): Promise<string> {
  const html = await (await get(path)).text();
  return /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
}

const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = { Origin: origin }) =>
  fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { Authorization: AUTH, 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });

describe('pages', () => {
  it.each([
    ['/organizations', 'Organizations'],
    ['/builds', 'Builds'],
    ['/keys', 'Keys'],
    ['/keys/new', 'Create a key'],
    ['/as-of', 'As of an instant'],
    ['/organizations/nordic-dev/history', 'History of Nordic Developer Community'],
    ['/organizations/nordic-dev/diff?from=snap-1&to=snap-2', 'Changes in Nordic Developer Community'],
  ])('%s renders one h1 (%s) with the security headers', async (path, heading) => {
    const answer = await get(path);
    expect(answer.status).toBe(200);
    const html = await answer.text();
    expect(html.match(/<h1>(.*?)<\/h1>/g)).toEqual([`<h1>${heading}</h1>`]);
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('http-equiv="refresh"');
  });

  it('shows an organization whose name is markup as text on every page that names it', async () => {
    for (const path of ['/organizations', '/organizations/hostile/history', '/organizations/hostile/diff', '/keys', '/builds']) {
      const html = await (await get(path)).text();
      expect(html).not.toContain(HOSTILE_NAME);
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    }
  });

  it('serves the stylesheet under its content hash, cached for a year', async () => {
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(await (await get('/builds')).text())![1]!;
    expect(href).toMatch(/^\/console\.[0-9a-f]{12}\.css$/);
    const css = await get(href);
    expect(css.headers.get('content-type')).toContain('text/css');
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('answers an unknown organization and an unknown page with their 404 pages', async () => {
    const unknown = await get('/organizations/nobody/history');
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('no organization with id or slug &quot;nobody&quot;');
    expect((await get('/nothing-here')).status).toBe(404);
  });

  it('shows what a path answered at an instant, and a 404 page for a key no one has', async () => {
    const answer = await get('/as-of?organization=nordic-dev&at=2026-11-22T09%3A00%3A00Z&path=%2Fteam');
    expect(answer.status).toBe(200);
    const html = await answer.text();
    expect(html).toContain('&quot;path&quot;: &quot;/team&quot;');
    expect(html).toContain('Nordic Developer Community');
    expect(html).toContain('<dt>Publication log</dt><dd>no inclusion proof: no checkpoint covers it yet (the fakes keep no log)</dd>');
    expect((await get('/keys/key_none/revoke')).status).toBe(404);
  });

  it('leaves the paths of the JSON API to the app, even unknown ones', async () => {
    expect(await (await get('/admin/v1/nothing')).json()).toEqual({ from: 'the app' });
  });
});

describe('forms', () => {
  it('starts a build, answers 303 to its page, which refreshes itself only until the run finishes', async () => {
    const answer = await post('/builds', { _csrf: await tokenOf('/builds'), organization: 'nordic-dev' });
    expect(answer.status).toBe(303);
    const location = answer.headers.get('location')!;
    const runId = location.split('/').pop()!;
    const queued = await (await get(location)).text();
    expect(queued).toContain('<meta http-equiv="refresh" content="2">');
    expect(queued).toContain('0 of 1');
    // Who asked for it: the one signed in to the console.
    expect(queued).toContain('<dt>Requested by</dt><dd><code>root</code></dd>');
    const list = await (await get('/builds')).text();
    expect(list).toContain('<meta http-equiv="refresh" content="2">');
    expect(list).toContain(`<td>manual</td>\n<td><code>root</code></td>`);
    services.runs.started(runId);
    services.runs.progressed(runId, 1, [{ id: ORGS[0]!.id, slug: 'nordic-dev', result: 'published', snapshotId: 'snap-3', builder: 'builder-1' }]);
    services.runs.finished(runId);
    const finished = await (await get(location)).text();
    expect(finished).not.toContain('http-equiv="refresh"');
    expect(finished).toContain('1 of 1');
    expect(finished).toContain('snap-3');
    // Progress by builder, and who built each organization.
    expect(finished).toContain('<dt>By builder</dt><dd><ul class="plain"><li><code>builder-1</code>: 1</li></ul></dd>');
    expect(finished).toContain('<td><code>builder-1</code></td>');
  });

  it('refuses a cross-site form, a form without the token and one with another credential token, changing nothing', async () => {
    const token = await tokenOf('/builds');
    const before = (await services.builds.list()).length;
    const crossSite = await post('/builds', { _csrf: token }, { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(await crossSite.text()).toContain('Form refused');
    expect((await post('/builds', { _csrf: token }, { Origin: 'https://evil.example' })).status).toBe(403);
    expect((await post('/builds', { _csrf: token }, {})).status).toBe(403);
    expect((await post('/builds', {})).status).toBe(403);
    expect((await post('/builds', { _csrf: 'x'.repeat(43) })).status).toBe(403);
    expect((await services.builds.list()).length).toBe(before);
    expect((await post('/builds', { _csrf: token }, { 'Sec-Fetch-Site': 'same-origin' })).status).toBe(303);
  });

  it('shows the secret of a created key once, then never again', async () => {
    const token = await tokenOf('/keys/new');
    const answer = await post('/keys', { _csrf: token, organization: 'nordic-dev', label: 'Website', origins: 'https://www.example.org\n\n', expiresAt: '' });
    expect(answer.status).toBe(303);
    const location = answer.headers.get('location')!;
    expect(location).not.toContain('mqk_');
    const shown = await (await get(location)).text();
    expect(shown).toMatch(/<output[^>]*>mqk_secret\d+<\/output>/);
    expect(shown).toContain('shown on this page once');
    const again = await get(location);
    expect(again.status).toBe(410);
    expect(await again.text()).not.toContain('mqk_secret');
    const keys = await (await get('/keys?organization=nordic-dev')).text();
    expect(keys).toContain('https://www.example.org');
    expect(keys).not.toContain('mqk_secret');
  });

  it('keeps what was typed and says why when a key cannot be created', async () => {
    const answer = await post('/keys', { _csrf: await tokenOf('/keys/new'), organization: 'nordic-dev', label: 'Site', origins: 'ftp://nope', expiresAt: '' });
    expect(answer.status).toBe(400);
    const html = await answer.text();
    expect(html).toContain('is not an https origin');
    expect(html).toContain('>ftp://nope</textarea>');
  });

  it('refuses an expiry that is not an instant, keeping the form', async () => {
    const answer = await post('/keys', { _csrf: await tokenOf('/keys/new'), organization: 'nordic-dev', label: '', origins: '', expiresAt: 'next tuesday' });
    expect(answer.status).toBe(400);
    const html = await answer.text();
    expect(html).toContain('next tuesday is not an ISO 8601 instant');
    expect(html).toContain('value="next tuesday"');
  });

  it('rolls a key with a grace period in minutes and shows the new secret once', async () => {
    const token = await tokenOf('/keys/new');
    await post('/keys', { _csrf: token, organization: 'nordic-dev', label: 'Old', origins: '', expiresAt: '' });
    const id = services.keyList.at(-1)!.id;
    const form = await (await get(`/keys/${id}/roll`)).text();
    expect(form).toContain('<label for="roll-grace">Minutes the old key keeps working (0: refused at once)</label>');
    expect((await post(`/keys/${id}/roll`, { _csrf: token, graceMinutes: '-5' })).status).toBe(400);
    const rolled = await post(`/keys/${id}/roll`, { _csrf: token, graceMinutes: '15' });
    expect(rolled.status).toBe(303);
    expect(services.rolls.at(-1)).toEqual({ id, graceSeconds: 900 });
    const shown = await (await get(rolled.headers.get('location')!)).text();
    expect(shown).toContain('<h1>Key rolled</h1>');
    expect(shown).toMatch(/<output[^>]*>mqk_secret\d+<\/output>/);
  });

  it('edits origins and revokes after a confirmation page, each answered by a 303 to the keys', async () => {
    const token = await tokenOf('/keys/new');
    await post('/keys', { _csrf: token, organization: 'nordic-dev', label: '', origins: '', expiresAt: '' });
    const id = services.keyList.at(-1)!.id;
    const edited = await post(`/keys/${id}`, { _csrf: token, label: 'Renamed', origins: 'https://a.example\nhttps://b.example' });
    expect(edited.status).toBe(303);
    expect(services.keyList.at(-1)).toMatchObject({ label: 'Renamed', origins: ['https://a.example', 'https://b.example'] });
    const confirm = await (await get(`/keys/${id}/revoke`)).text();
    expect(confirm).toContain(`Revoke key ${id}?`);
    expect(confirm).toContain(`action="/keys/${id}/revoke"`);
    expect(services.keyList.at(-1)!.revokedAt).toBeNull();
    expect((await post(`/keys/${id}/revoke`, { _csrf: token })).status).toBe(303);
    expect(services.keyList.at(-1)!.revokedAt).not.toBeNull();
    // The keys page says when it was revoked, not only that it was.
    const page = await (await get('/keys')).text();
    expect(page).toContain(`revoked ${services.keyList.at(-1)!.revokedAt}`);
  });
});

it('fails when it is created, not when a page is viewed, if a template does not compile', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'console-templates-'));
  try {
    await writeFile(join(dir, 'broken.njk'), '{% if %}');
    expect(() => createViews(dir)).toThrow();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
