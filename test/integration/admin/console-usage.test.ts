// Usage per key in the console of the real program (issue 37): `marquee start` on a PostgreSQL
// loaded with the sample data, usage counted into it as the builders' intake counts a batch
// (records/usage/usage-store.ts countBatches), and the console read through the admin port with
// an auditor credential made by `marquee admins create`. The key table's last day beside each
// key's last use, a key's page and its organization's page over the default week and over a range
// by day, with totals, chart, routes and refused origins; each the same numbers the store holds.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { ADMIN_API_BASE } from '../../../admin/api-routes.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import { HOUR_MS, hourOf, type RefusedOriginCount, type RequestCount } from '../../../records/usage/usage-batch.ts';
import { countBatches } from '../../../records/usage/usage-store.ts';
import { adminSecret, marquee, marqueeProcess } from '../../support/cli.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';

const NORDIC = SAMPLE.organizations.nordic.id;
const EVENTS = '/api/integration/v1/events';

let postgres: TestPostgres;
let home: string;
let start: Awaited<ReturnType<typeof marqueeProcess>>;
let consoleUrl: string;
/** HTTP Basic of the auditor credential, as a browser sends the console's password. */
let auditor: string;
/** A key with usage, and one without, both of nordic-dev. */
let busy: string;
let idle: string;
/** The hour the counts were made relative to; the page's default week ends with the hour after it. */
let thisHour: number;

beforeAll(async () => {
  postgres = await startPostgres();
  home = await mkdtemp(join(tmpdir(), 'marquee-console-usage-'));
  const env = { MARQUEE_HOME: home, DATABASE_URL: postgres.url };
  expect((await marquee(['db', 'migrate'], env)).code).toBe(0);
  expect((await marquee(['db', 'seed', '--sample'], env)).code).toBe(0);
  start = await marqueeProcess(['start'], { ...env, PORT: '0', ADMIN_PORT: '0', BUILD_SCHEDULE: '0 0 1 1 *' }, /console: (http:\/\/\S+?)\/? /);
  consoleUrl = start.match[1]!;
  const token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
  auditor = `Basic ${Buffer.from(`ada:${await adminSecret(env, 'ada', 'auditor')}`).toString('base64')}`;
  const newKey = async (label: string) => {
    const answer = await fetch(`${consoleUrl}${ADMIN_API_BASE}/keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ organization: 'nordic-dev', label, origins: ['https://www.nordic.example'] }),
    });
    expect(answer.status).toBe(201);
    return ((await answer.json()) as { id: string }).id;
  };
  busy = await newKey('Website');
  idle = await newKey('Unused');

  thisHour = hourOf(Date.now());
  const count = (hoursAgo: number, status: number, requests: number, errorCode = '', route = EVENTS): RequestCount => ({
    keyId: busy,
    organizationId: NORDIC,
    hour: thisHour - hoursAgo * HOUR_MS,
    route,
    status,
    errorCode,
    requests,
  });
  const refused = (origin: string, requests: number): RefusedOriginCount => ({ keyId: busy, organizationId: NORDIC, hour: thisHour - 2 * HOUR_MS, origin, requests });
  const db = await openPostgres(postgres.url);
  try {
    const batch = {
      id: 'console-usage-test.1',
      counts: [
        count(0, 200, 40),
        count(0, 304, 12),
        count(2, 403, 6, 'API_KEY_ORIGIN_NOT_ALLOWED', '/api/integration/v1/team'),
        count(2, 429, 3),
        count(3, 401, 1),
        // In the week, not in the last day:
        count(50, 200, 100),
        // In no default range: ten days ago.
        count(240, 200, 5000),
      ],
      // '' is what the store counts together once a key's hour holds its bound of named origins.
      origins: [refused('https://evil.example', 4), refused('', 2)],
    };
    expect(await countBatches(db, [batch])).toEqual({ added: 1, repeated: 0 });
  } finally {
    await db.close();
  }
}, 180_000);

afterAll(async () => {
  await start?.stop();
  await postgres?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

async function page(path: string): Promise<string> {
  const answer = await fetch(`${consoleUrl}${path}`, { headers: { Authorization: auditor } });
  expect(answer.status, path).toBe(200);
  const html = await answer.text();
  expect(html).toContain('Signed in as <strong class="actor-name">ada</strong> (<span class="actor-role">auditor</span>)');
  return html;
}

/** The rows of the table whose first column header is `firstHeader`, as the text of their cells. */
function table(html: string, firstHeader: string): string[][] {
  const found = [...html.matchAll(/<table[^>]*>([\s\S]*?)<\/table>/g)]
    .map(([, body]) => body!)
    .find((body) => new RegExp(`<thead>\\s*<tr><th scope="col"[^>]*>${firstHeader}<`).test(body));
  if (found === undefined) throw new Error(`no table starts with ${firstHeader}`);
  return [.../<tbody>([\s\S]*?)<\/tbody>/.exec(found)![1]!.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map(([, row]) =>
    [...row!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, cell]) =>
      cell!
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

const bars = (html: string) =>
  [...html.matchAll(/<rect class="bar" data-outcome="([^"]*)" data-requests="(\d+)"/g)].map(([, outcome, requests]) => `${outcome} ${requests}`).sort();

describe('usage in the console, for an auditor', () => {
  it("shows each key's requests of the last 24 hours beside its last use, the key's id opening its usage", async () => {
    const html = await page('/keys?organization=nordic-dev');
    expect(html).toMatch(/<th scope="col">Last used<\/th><th scope="col" class="count">Requests \(24 h\)<\/th>/);
    // The key's cell is its id, then its prefix.
    const row = (rows: string[][], id: string) => rows.find((cells) => cells[0]!.startsWith(id));
    const rows = table(html, 'Key');
    // Key, organization, label, origins, created, expires, last used, requests of the last day: 40 + 12 + 6 + 3 + 1.
    expect(row(rows, busy)?.slice(6, 8)).toEqual(['never', '62']);
    expect(row(rows, idle)?.[7]).toBe('0');
    expect(html).toContain(`<a href="/keys/${busy}/usage"`);
    // Every organization's keys: the same count.
    expect(row(table(await page('/keys'), 'Key'), busy)?.[7]).toBe('62');
  });

  it("shows a key's last week by hour: totals by outcome, the chart's bars, routes and refused origins", async () => {
    const html = await page(`/keys/${busy}/usage`);
    expect(html).toContain(`<h1>Usage of key ${busy}</h1>`);
    expect(html).toContain(`value="${new Date(thisHour + HOUR_MS - 7 * 24 * HOUR_MS).toISOString().replace('.000Z', 'Z')}"`);
    expect(html).toContain('<option value="hour" selected>hour</option>');
    expect(html).toContain('<h2 id="requests-heading">Requests: 162</h2>');
    expect(table(html, 'Outcome').map(([outcome, kind, requests]) => `${outcome} ${kind} ${requests}`)).toEqual([
      '200 answered 140',
      '304 answered 12',
      '401 refused 1',
      '403 API_KEY_ORIGIN_NOT_ALLOWED refused 6',
      '429 refused 3',
    ]);
    expect(bars(html)).toEqual(['200 100', '200 40', '304 12', '401 1', '403 API_KEY_ORIGIN_NOT_ALLOWED 6', '429 3']);
    expect(html).toMatch(/<svg [^>]*role="img" aria-labelledby="usage-chart-title" aria-describedby="usage-chart-desc"/);
    expect(table(html, 'Route')).toEqual([
      [EVENTS, '156'],
      ['/api/integration/v1/team', '6'],
    ]);
    expect(table(html, 'Origin')).toEqual([
      ['https://evil.example', '4'],
      ['others', '2'],
    ]);
  });

  it('shows a range by day when the form asks for one, with the counts of ten days ago', async () => {
    const since = new Date(thisHour - 14 * 24 * HOUR_MS).toISOString();
    const html = await page(`/keys/${busy}/usage?${new URLSearchParams({ since, by: 'day' })}`);
    expect(html).toContain('<option value="day" selected>day</option>');
    expect(html).toContain('<h2 id="requests-heading">Requests: 5,162</h2>');
    expect(table(html, 'Day').map((cells) => cells[1])).toContain('5,000');
  });

  it("shows an organization's usage with each key's, linking to the key's page over the same range", async () => {
    const html = await page('/organizations/nordic-dev/usage');
    expect(html).toContain('<h1>Usage of Nordic Developer Community</h1>');
    expect(html).toContain('<h2 id="requests-heading">Requests: 162</h2>');
    const keys = table(html, 'Key');
    expect(keys[0]?.slice(0, 2)).toEqual([busy, 'Website']);
    expect(keys[0]?.[4]).toBe('162');
    expect(keys.find((cells) => cells[0] === idle)?.[4]).toBe('0');
    const link = new RegExp(`<a href="(/keys/${busy}/usage\\?[^"]+)"><code>`).exec(html)![1]!.replaceAll('&amp;', '&');
    expect(await page(link)).toContain('<h2 id="requests-heading">Requests: 162</h2>');
  });

  it('offers the auditor only links that open and no form that changes anything', async () => {
    for (const path of [`/keys/${busy}/usage`, '/organizations/nordic-dev/usage']) {
      const html = await page(path);
      expect(html, path).not.toMatch(/<form[^>]*method="post"/);
      const links = [...html.matchAll(/<a href="(\/[^"]*)"/g)].map(([, href]) => href!.replaceAll('&amp;', '&'));
      expect(links.length, path).toBeGreaterThan(5);
      for (const link of new Set(links)) await page(link);
    }
  });

  it('is refused without a credential, and answers a range that cannot be read with the form and what is wrong', async () => {
    expect((await fetch(`${consoleUrl}/keys/${busy}/usage`)).status).toBe(401);
    const backwards = await fetch(`${consoleUrl}/keys/${busy}/usage?since=2026-11-22T00%3A00%3A00Z&until=2026-11-21T00%3A00%3A00Z`, { headers: { Authorization: auditor } });
    expect(backwards.status).toBe(400);
    expect(await backwards.text()).toContain('must be before until');
  });
});
