// The console's usage pages in-process over fake AdminServices (their usage read back by the
// product's own report): the key table's last day of requests from one call per page, each key's
// id opening its usage page; a key's and an organization's page with the range form (the last 7
// days by hour unless it says otherwise), totals by outcome, the chart, routes, refused origins
// ("others" for the ones counted together) and an organization's keys; a range that cannot be read
// said on the form; markup from clients shown as text.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setActor } from '../../../../admin/request-actor.ts';
import { consoleRouter } from '../../../../admin/console/router.ts';
import type { Actor } from '../../../../records/actor.ts';
import { HOUR_MS } from '../../../../records/usage/usage-batch.ts';
import { CONSOLE_NOW, fakeServices, HOSTILE_NAME, ORGS } from './fake-services.ts';

const AUDITOR: Actor = { name: 'audrey', role: 'auditor' };
const [NORDIC, HOSTILE] = ORGS as [(typeof ORGS)[number], (typeof ORGS)[number]];
/** The hour CONSOLE_NOW falls in: the default range is the 168 hours up to the end of it. */
const THIS_HOUR = Date.parse(CONSOLE_NOW) - (Date.parse(CONSOLE_NOW) % HOUR_MS);
const HOSTILE_ORIGIN = 'https://"><script>alert(1)</script>.example';

let services: ReturnType<typeof fakeServices>;
let server: Server;
let origin: string;
let keyListCalls = 0;
const keyIds: string[] = [];

beforeAll(async () => {
  services = fakeServices();
  const keyList = services.usage.keyList;
  services.usage.keyList = (organization) => {
    keyListCalls++;
    return keyList(organization);
  };
  for (const [organization, label] of [
    ['nordic-dev', 'Website'],
    ['nordic-dev', 'Tickets'],
    ['nordic-dev', null],
    ['hostile', HOSTILE_NAME],
  ] as const) {
    const created = await services.keys.create({ organization, label, origins: [] });
    keyIds.push(created.id);
  }
  const [website, tickets, , hostile] = keyIds as [string, string, string, string];
  const count = (keyId: string, organizationId: string, hoursAgo: number, status: number, requests: number, errorCode = '', route = '/api/integration/v1/events') =>
    services.counted.counts.push({ keyId, organizationId, hour: THIS_HOUR - hoursAgo * HOUR_MS, route, status, errorCode, requests });
  count(website, NORDIC.id, 0, 200, 30);
  count(website, NORDIC.id, 0, 304, 10);
  count(website, NORDIC.id, 3, 429, 5);
  count(website, NORDIC.id, 3, 403, 4, 'API_KEY_ORIGIN_NOT_ALLOWED', '/api/integration/v1/team');
  // Two days ago: in the week, not in the last day.
  count(website, NORDIC.id, 48, 200, 100);
  // Ten days ago: in no default range.
  count(website, NORDIC.id, 240, 200, 1000);
  count(tickets, NORDIC.id, 1, 401, 2);
  count(hostile, HOSTILE.id, 2, 200, 9, '', '/api/integration/v1/<b>route</b>');
  for (const [keyId, organizationId, originName, requests] of [
    [website, NORDIC.id, 'https://www.nordic.example', 3],
    [website, NORDIC.id, '', 1],
    [hostile, HOSTILE.id, HOSTILE_ORIGIN, 2],
  ] as const) {
    services.counted.origins.push({ keyId, organizationId, hour: THIS_HOUR - 3 * HOUR_MS, origin: originName, requests });
  }
  const app = express();
  app.use((_req, res, next) => {
    setActor(res, AUDITOR);
    next();
  });
  app.use('/', consoleRouter(services, { now: () => new Date(CONSOLE_NOW) }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const get = (path: string) => fetch(`${origin}${path}`, { headers: { Authorization: `Basic ${Buffer.from('audrey:x').toString('base64')}` }, redirect: 'manual' });
const html = async (path: string, status = 200) => {
  const answer = await get(path);
  expect(answer.status, path).toBe(status);
  return answer.text();
};

/** The rows of the table whose first header cell says `firstHeader`, as the text of their cells. */
function table(page: string, firstHeader: string): string[][] {
  const found = [...page.matchAll(/<table[^>]*>([\s\S]*?)<\/table>/g)]
    .map(([, body]) => body!)
    .find((body) => new RegExp(`<thead>\\s*<tr><th scope="col"[^>]*>${firstHeader}<`).test(body));
  if (found === undefined) throw new Error(`no table starts with ${firstHeader}`);
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(found)![1]!;
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map(([, row]) =>
    [...row!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, cell]) =>
      cell!
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

const bars = (page: string) => [...page.matchAll(/<rect class="bar" data-outcome="([^"]*)" data-requests="(\d+)"/g)].map(([, outcome, requests]) => `${outcome} ${requests}`);

describe('the keys table', () => {
  it("shows each key's requests of the last 24 hours beside its last use, from one call per page, and links the key to its usage", async () => {
    const before = keyListCalls;
    const page = await html('/keys');
    expect(keyListCalls - before).toBe(1);
    expect(page).toMatch(/<th scope="col">Last used<\/th><th scope="col" class="count">Requests \(24 h\)<\/th>/);
    const rows = table(page, 'Key');
    // Key, organization, label, origins, created, expires, last used, then the last day's requests.
    const requestsOf = (id: string) => rows.find((cells) => cells[0] === id)![7];
    const [website, tickets, unused, hostile] = keyIds as [string, string, string, string];
    // 30 + 10 + 5 + 4 in the last day; the 100 of two days ago and the 1,000 of ten are not.
    expect(requestsOf(website)).toBe('49');
    expect(requestsOf(tickets)).toBe('2');
    expect(requestsOf(unused)).toBe('0');
    expect(requestsOf(hostile)).toBe('9');
    expect(page).toContain(`<a href="/keys/${website}/usage" title="Usage of key ${website}"><code>${website}</code></a>`);
    const one = table(await html('/keys?organization=nordic-dev'), 'Key');
    expect(one.map((cells) => cells[7])).toEqual(['49', '2', '0']);
    expect(keyListCalls - before).toBe(2);
  });
});

describe("a key's usage page", () => {
  it('shows the last 7 days by hour: the range, totals by outcome, the chart, routes and refused origins', async () => {
    const website = keyIds[0]!;
    const page = await html(`/keys/${website}/usage`);
    expect(page.match(/<h1>(.*?)<\/h1>/g)).toEqual([`<h1>Usage of key ${website}</h1>`]);
    expect(page).toContain('Website · Nordic Developer Community');
    // The range the defaults came to, to edit from: the week up to the end of the current hour.
    expect(page).toContain('value="2026-11-15T11:00:00Z"');
    expect(page).toContain('value="2026-11-22T11:00:00Z"');
    expect(page).toContain('<option value="hour" selected>hour</option>');
    expect(page).toContain('<h2 id="requests-heading">Requests: 149</h2>');
    expect(table(page, 'Outcome')).toEqual([
      ['200', 'answered', '130', '87.2 %'],
      ['304', 'answered', '10', '6.7 %'],
      ['403 API_KEY_ORIGIN_NOT_ALLOWED', 'refused', '4', '2.7 %'],
      ['429', 'refused', '5', '3.4 %'],
    ]);
    expect(table(page, 'Route')).toEqual([
      ['/api/integration/v1/events', '145'],
      ['/api/integration/v1/team', '4'],
    ]);
    expect(table(page, 'Origin')).toEqual([
      ['https://www.nordic.example', '3'],
      ['others', '1'],
    ]);
    expect(page).toContain('<th scope="row"><em>others</em></th>');
    // The chart: an image drawn here, one bar per outcome of each hour with requests.
    expect(page).toMatch(/<figure class="usage-chart">\s*<svg [^>]*role="img"/);
    expect(bars(page).sort()).toEqual(['200 100', '200 30', '304 10', '403 API_KEY_ORIGIN_NOT_ALLOWED 4', '429 5']);
    // Its numbers, hour by hour, in a table beside it.
    expect(table(page, 'Hour')).toEqual([
      ['20 Nov 2026 10:00', '100', '100', '0', '0', '0'],
      ['22 Nov 2026 07:00', '9', '0', '0', '4', '5'],
      ['22 Nov 2026 10:00', '40', '30', '10', '0', '0'],
    ]);
    expect(page).not.toMatch(/<script/i);
  });

  it('shows the range the form asks for, by day, and keeps it on the link to its organization', async () => {
    const website = keyIds[0]!;
    const page = await html(`/keys/${website}/usage?since=2026-11-10T00%3A00%3A00Z&until=2026-11-23T00%3A00%3A00Z&by=day`);
    expect(page).toContain('<option value="day" selected>day</option>');
    expect(page).toContain('<h2 id="requests-heading">Requests: 1,149</h2>');
    expect(table(page, 'Day').map((cells) => cells.slice(0, 2))).toEqual([
      ['12 Nov 2026', '1,000'],
      ['20 Nov 2026', '100'],
      ['22 Nov 2026', '49'],
    ]);
    expect(page).toContain('href="/organizations/nordic-dev/usage?since=2026-11-10T00%3A00%3A00Z&amp;until=2026-11-23T00%3A00%3A00Z&amp;by=day"');
    // One click away: the usual ranges.
    expect(page).toContain(`<a href="/keys/${website}/usage?since=2026-11-21T11%3A00%3A00Z&amp;until=2026-11-22T11%3A00%3A00Z&amp;by=hour">Last 24 hours</a>`);
  });

  it('says on the form what is wrong with a range, keeping what was typed', async () => {
    const website = keyIds[0]!;
    const notAnInstant = await html(`/keys/${website}/usage?since=last+tuesday`, 400);
    expect(notAnInstant).toContain('<strong>Not done:</strong> since last tuesday is not an ISO 8601 instant with a zone');
    expect(notAnInstant).toContain('value="last tuesday"');
    expect(notAnInstant).not.toContain('<svg class="usage-chart"');
    const backwards = await html(`/keys/${website}/usage?since=2026-11-22T00%3A00%3A00Z&until=2026-11-21T00%3A00%3A00Z`, 400);
    expect(backwards).toMatch(/Not done:<\/strong> since \(2026-11-22T00:00:00.000Z\) must be before until/);
    const tooLong = await html(`/keys/${website}/usage?since=2020-01-01T00%3A00%3A00Z&by=hour`, 400);
    expect(tooLong).toContain('ask by day, or for a shorter range');
    expect(await html(`/keys/${website}/usage?by=week`, 400)).toContain('by is hour or day, not week');
  });

  it('is a 404 page for a key no one has', async () => {
    expect(await html('/keys/key_none/usage', 404)).toContain('key_none');
  });

  it("draws an empty chart for a key without requests, and shows a client's markup as text", async () => {
    const unused = await html(`/keys/${keyIds[2]}/usage`);
    expect(unused).toContain('<h2 id="requests-heading">Requests: 0</h2>');
    expect(unused).toContain('No requests in this range</text>');
    expect(bars(unused)).toEqual([]);
    expect(unused).toContain('No request was refused for its origin in this range.');

    const hostile = await html(`/keys/${keyIds[3]}/usage`);
    expect(hostile).not.toContain(HOSTILE_NAME);
    expect(hostile).not.toContain(HOSTILE_ORIGIN);
    expect(hostile).not.toContain('<b>route</b>');
    expect(hostile).not.toMatch(/<script/i);
    expect(hostile).toContain('https://&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;.example');
    expect(hostile).toContain('/api/integration/v1/&lt;b&gt;route&lt;/b&gt;');
    expect(hostile).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
  });
});

describe("an organization's usage page", () => {
  it('shows every key of the organization together, and each key with its requests, linking to its page with the range', async () => {
    const page = await html('/organizations/nordic-dev/usage');
    expect(page.match(/<h1>(.*?)<\/h1>/g)).toEqual(['<h1>Usage of Nordic Developer Community</h1>']);
    expect(page).toContain('<h2 id="requests-heading">Requests: 151</h2>');
    expect(table(page, 'Outcome').map((cells) => cells[0])).toEqual(['200', '304', '401', '403 API_KEY_ORIGIN_NOT_ALLOWED', '429']);
    const [website, tickets, unused] = keyIds as [string, string, string];
    expect(table(page, 'Key').map((cells) => [cells[0], cells[1], cells[4]])).toEqual([
      [website, 'Website', '149'],
      [tickets, 'Tickets', '2'],
      [unused, '—', '0'],
    ]);
    expect(page).toContain(`<a href="/keys/${website}/usage?since=2026-11-15T11%3A00%3A00Z&amp;until=2026-11-22T11%3A00%3A00Z&amp;by=hour"><code>${website}</code></a>`);
    expect(page).toContain('<svg xmlns="http://www.w3.org/2000/svg" class="usage-chart"');
    expect(page).toContain('aria-labelledby="usage-chart-title" aria-describedby="usage-chart-desc"');
  });

  it('is linked from the organizations, shows a name that is markup as text, and is a 404 page for an unknown one', async () => {
    expect(await html('/organizations')).toContain('<a href="/organizations/nordic-dev/usage">Usage<span class="visually-hidden"> of Nordic Developer Community</span></a>');
    const hostile = await html('/organizations/hostile/usage');
    expect(hostile).not.toContain(HOSTILE_NAME);
    expect(hostile).toContain('<h1>Usage of &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co</h1>');
    expect(await html('/organizations/nobody/usage', 404)).toContain('no organization with id or slug &quot;nobody&quot;');
  });
});
