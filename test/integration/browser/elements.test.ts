// The embeddable elements (elements/marquee-elements.js, docs/elements.md) in a real headless
// Chromium: a site of another origin loads the module from a real gateway serving the sample
// organization as the builder published it, and pastes the elements. Each renders (the Berlin
// hackathon's days and times across the clock change included), axe-core finds nothing, the paged
// list is operated by keyboard, every read of an element names the snapshot of its first answer,
// and a site whose origin the key refuses shows a readable line instead of a blank box.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { closeServers, listen, portOf } from '../../support/loopback-http.ts';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ICAL from 'ical.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrganizations } from '../../../builder/build.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { InMemoryRateLimiter } from '../../../gateway/access/in-memory-rate-limiter.ts';
import { createGateway, type Gateway } from '../../../gateway/app.ts';
import { elementsPath, integrityOf } from '../../../gateway/routes/elements.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { launchChromium, watchPage } from '../../support/chromium.ts';
import { openFreshPglite } from '../../support/fresh-pglite.ts';
import { RecordingLog } from '../../support/gateway-fixtures.ts';
import { CountingKeyStore, issueKey } from '../../support/keys.ts';
import { sampleBuildContext, seeded } from '../../support/sample-build.ts';

/** The instant the sample is built at (test/support/sample-build.ts), and the gateway's clock: the same timings every run. */
const NOW = Date.parse('2026-11-21T12:00:00Z');
const AXE = readFileSync(new URL(import.meta.resolve('axe-core/axe.min.js')), 'utf8');

let browser: Browser;
let gateway: Gateway;
let gatewayServer: Server;
let gatewayOrigin: string;
let allowedSite: Site;
let otherSite: Site;
let browserKey: string;
/** A key of the suspended sample organization, allowed on the same site. */
let suspendedKey: string;
/** Every API request the gateway saw: path and the snapshot it pinned. */
const seen: Array<{ path: string; pin: string | undefined; snapshot: string | undefined }> = [];

interface Site {
  server: Server;
  origin: string;
}

beforeAll(async () => {
  const db = await seeded(await openFreshPglite());
  const store = new MemoryStore();
  try {
    await buildOrganizations(sampleBuildContext(db, store), { trigger: 'manual' });
  } finally {
    await db.close();
  }
  const keys = new CountingKeyStore();
  gateway = createGateway({
    snapshots: store,
    keys,
    rateLimiter: new InMemoryRateLimiter({ limit: 600 }),
    authFailures: new InMemoryRateLimiter({ limit: 30 }),
    log: new RecordingLog(),
    clock: () => NOW,
  });
  await gateway.ready;
  gatewayServer = await listen((req, res) => {
    if (req.url?.startsWith('/api/')) {
      const entry: (typeof seen)[number] = { path: req.url, pin: req.headers['marquee-snapshot-id'] as string | undefined, snapshot: undefined };
      if (req.method === 'GET') seen.push(entry);
      res.on('finish', () => {
        entry.snapshot = res.getHeader('Marquee-Snapshot-Id') as string | undefined;
      });
    }
    gateway.app(req, res);
  });
  gatewayOrigin = `http://127.0.0.1:${portOf(gatewayServer)}`;
  allowedSite = await site();
  otherSite = await site();
  browserKey = (await issueKey(keys, { organizationId: SAMPLE.organizations.nordic.id, origins: [allowedSite.origin] })).secret;
  suspendedKey = (await issueKey(keys, { organizationId: SAMPLE.organizations.harbor.id, origins: [allowedSite.origin] })).secret;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await closeServers([gatewayServer, allowedSite?.server, otherSite?.server]);
  await gateway?.close();
});

/** The site's page: the module from the gateway, then `body` inside a main landmark. */
const pages = new Map<string, string>();
let pageCount = 0;
function sitePage(body: string, { integrity }: { integrity?: string } = {}): string {
  const path = `/page-${++pageCount}.html`;
  const script = `<script type="module" src="${gatewayOrigin}${elementsPath()}"${integrity ? ` integrity="${integrity}" crossorigin="anonymous"` : ''}></script>`;
  pages.set(
    path,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Our events</title>${script}</head><body><main><h1>Our events</h1>${body}</main></body></html>`,
  );
  return path;
}

const attributes = () => `key="${browserKey}" base="${gatewayOrigin}"`;

/** Opens `path` of `site` and waits until every Marquee element on it finished loading. */
async function open(site: Site, path: string, { width = 1200 } = {}): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  // The sample's image URLs name a host that does not exist: answer them at once, empty.
  await page.route('https://events.example.com/**', (route) => route.fulfill({ status: 404, body: '' }));
  await page.goto(`${site.origin}${path}`);
  await page.waitForFunction(() => {
    const elements = [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('marquee-'));
    return elements.length > 0 && elements.every((e) => e.shadowRoot?.querySelector('[part=root]:not([aria-busy])'));
  });
  return page;
}

/** The rendered text of the first `selector` element (its shadow root included: playwright pierces open roots). */
const textOf = (page: Page, selector: string) => page.locator(selector).first().innerText();

describe('each element, from a real gateway', () => {
  it("<marquee-event>: the Berlin hackathon's programme by the venue's days, each time with its zone, across the clock change", async () => {
    const page = await open(allowedSite, sitePage(`<marquee-event ${attributes()} event="night-hackathon" locale="en-GB"></marquee-event>`));
    try {
      const days = await page.locator('marquee-event h4[part=day]').allInnerTexts();
      expect(days).toEqual(['Saturday, 27 March 2027', 'Sunday, 28 March 2027']);
      const times = await page.locator('marquee-event li[part~=session] [part=time]').allInnerTexts();
      // 01:00 UTC on the 28th: Berlin's clocks go from 02:00 CET to 03:00 CEST.
      expect(times).toEqual(['11:00 CET – 12:00 CET', '23:00 CET – 06:00 CEST', '10:00 CEST – 12:00 CEST']);
      expect(await textOf(page, 'marquee-event h2')).toBe('Berlin Night Hackathon');
      expect(await page.locator('marquee-event [part=root]').getAttribute('lang')).toBe('en-GB');
    } finally {
      await page.close();
    }
  });

  it("<marquee-event>: sponsors by tier in the organizer's order, speakers listed", async () => {
    const page = await open(allowedSite, sitePage(`<marquee-event ${attributes()} event="summit-2027"></marquee-event>`));
    try {
      expect(await page.locator('marquee-event h4[part=tier]').allInnerTexts()).toEqual(['Platinum', 'Gold ✨', 'Community partner']);
      expect((await page.locator('marquee-event li[part~=speaker]').count()) > 0).toBe(true);
    } finally {
      await page.close();
    }
  });

  it('<marquee-schedule>: a grid of rooms on a wide screen, a list on a narrow one', async () => {
    const path = sitePage(`<marquee-schedule ${attributes()} event="summit-2027" locale="en-GB"></marquee-schedule>`);
    const wide = await open(allowedSite, path);
    try {
      const firstDay = wide.locator('marquee-schedule table').first();
      expect(await firstDay.locator('thead th').allInnerTexts()).toEqual(['Time', 'Hall A', 'Hall B']);
      expect(await firstDay.locator('tbody th').first().innerText()).toBe('09:00 CET');
      expect(await wide.locator('marquee-schedule .list').first().isVisible()).toBe(false);
    } finally {
      await wide.close();
    }
    const narrow = await open(allowedSite, path, { width: 400 });
    try {
      expect(await narrow.locator('marquee-schedule table').first().isVisible()).toBe(false);
      expect(await narrow.locator('marquee-schedule .list h2').allInnerTexts()).toHaveLength(3);
    } finally {
      await narrow.close();
    }
  });

  it('<marquee-speakers> and <marquee-sponsors>: the organization’s, or one event’s', async () => {
    const page = await open(
      allowedSite,
      sitePage(`<marquee-speakers ${attributes()}></marquee-speakers><marquee-sponsors ${attributes()} event="stockholm-dev-days"></marquee-sponsors>`),
    );
    try {
      expect((await page.locator('marquee-speakers li[part~=speaker] h2').allInnerTexts()).length).toBeGreaterThan(2);
      expect(await page.locator('marquee-sponsors h2[part=tier]').allInnerTexts()).toEqual(['Coffee & Wi-Fi']);
      expect(await page.locator('marquee-sponsors li[part~=sponsor]').count()).toBe(2);
    } finally {
      await page.close();
    }
  });
});

/**
 * schema.org's Event as this test reads it, written from the definitions at https://schema.org/Event,
 * https://schema.org/Place, https://schema.org/PostalAddress, https://schema.org/VirtualLocation,
 * https://schema.org/Person, https://schema.org/Organization, https://schema.org/EventStatusType and
 * https://schema.org/EventAttendanceModeEnumeration: each property one of Event's, each value of the
 * type schema.org expects there, dates in ISO 8601 with their offset (https://schema.org/DateTime).
 */
const thing = (type: string, properties: Record<string, object>, required: string[] = ['name']) => ({
  type: 'object',
  properties: { '@type': { const: type }, ...properties },
  required: ['@type', ...required],
  additionalProperties: false,
});
const url = { type: 'string', format: 'uri', pattern: '^https?://' };
const text = { type: 'string', minLength: 1 };
const dateTime = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$' };
const SCHEMA_ORG_EVENT = {
  ...thing(
    'Event',
    {
      '@context': { const: 'https://schema.org' },
      name: text,
      description: text,
      startDate: dateTime,
      endDate: dateTime,
      url,
      eventStatus: { enum: ['EventScheduled', 'EventCancelled', 'EventMovedOnline', 'EventPostponed', 'EventRescheduled'].map((s) => `https://schema.org/${s}`) },
      eventAttendanceMode: { enum: ['Offline', 'Online', 'Mixed'].map((s) => `https://schema.org/${s}EventAttendanceMode`) },
      location: {
        oneOf: [
          thing('Place', {
            name: text,
            address: thing('PostalAddress', { streetAddress: text, addressLocality: text, addressRegion: text, postalCode: text, addressCountry: text }, []),
          }),
          thing('VirtualLocation', { name: text, url }, ['url']),
        ],
      },
      performer: { type: 'array', items: thing('Person', { name: text }) },
      organizer: thing('Organization', { name: text, url }),
    },
    ['@context', 'name', 'startDate', 'location'],
  ),
};
const validEvent = new Ajv2020({ allErrors: true, validateFormats: false }).compile(SCHEMA_ORG_EVENT);

describe('for search engines and calendars', () => {
  it('each element showing events puts schema.org Event JSON-LD in the light DOM, valid against schema.org types', async () => {
    const page = await open(
      allowedSite,
      sitePage(
        [
          `<marquee-events ${attributes()} timing="all" page-size="2"></marquee-events>`,
          `<marquee-event ${attributes()} event="night-hackathon"></marquee-event>`,
          `<marquee-schedule ${attributes()} event="summit-2027"></marquee-schedule>`,
        ].join(''),
      ),
    );
    try {
      // The document's own scripts, as a crawler reads them: each a child of its element, none in a shadow root.
      const described = await page.evaluate(() =>
        [...document.querySelectorAll('script[type="application/ld+json"]')].map((s) => ({ host: s.parentElement?.localName, data: JSON.parse(s.textContent ?? '') })),
      );
      expect(described.map((d) => d.host)).toEqual(['marquee-events', 'marquee-event', 'marquee-schedule']);
      const events = described.flatMap((d) => d.data);
      expect(events).toHaveLength(4);
      for (const event of events) expect(validEvent(event) ? [] : validEvent.errors).toEqual([]);
      const hackathon = described[1]!.data;
      expect(hackathon).toMatchObject({ name: 'Berlin Night Hackathon', startDate: '2027-03-27T10:00:00+01:00', organizer: { '@type': 'Organization' } });
      expect(hackathon.endDate).toMatch(/\+02:00$/);
      expect(described[2]!.data.performer.length).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });

  it('<marquee-schedule>: each session has its own "Add to calendar", in the room at the venue', async () => {
    const page = await open(allowedSite, sitePage(`<marquee-schedule ${attributes()} event="night-hackathon"></marquee-schedule>`));
    try {
      const links = page.locator('marquee-schedule table a[part=calendar]');
      expect(await links.count()).toBe(3);
      const [download] = await Promise.all([page.waitForEvent('download'), links.nth(1).click()]);
      const event = new ICAL.Event(new ICAL.Component(ICAL.parse(readFileSync(await download.path(), 'utf8'))).getFirstSubcomponent('vevent')!);
      // 23:00 CET to 06:00 CEST: the night across the clock change, in UTC.
      expect(event.startDate.toJSDate().toISOString()).toBe('2027-03-27T22:00:00.000Z');
      expect(event.endDate.toJSDate().toISOString()).toBe('2027-03-28T04:00:00.000Z');
      const room = await page.locator('marquee-schedule table').first().locator('thead th').nth(1).innerText();
      expect(event.location).toBe(`${room}, Kulturbrauerei, Schönhauser Allee 36, Berlin, Germany`);
    } finally {
      await page.close();
    }
  });

  it('<marquee-event>: "Add to calendar" downloads an .ics file a calendar reads', async () => {
    const page = await open(allowedSite, sitePage(`<marquee-event ${attributes()} event="night-hackathon"></marquee-event>`));
    try {
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('marquee-event a[part=calendar]').click()]);
      expect(download.suggestedFilename()).toMatch(/\.ics$/);
      const file = readFileSync(await download.path(), 'utf8');
      expect(file).toMatch(/^BEGIN:VCALENDAR\r\n/);
      const event = new ICAL.Event(new ICAL.Component(ICAL.parse(file)).getFirstSubcomponent('vevent')!);
      expect(event.summary).toBe('Berlin Night Hackathon');
      expect(event.uid).toMatch(new RegExp(`@127\\.0\\.0\\.1:${portOf(gatewayServer)}$`));
      expect(event.startDate.toJSDate().toISOString()).toBe('2027-03-27T09:00:00.000Z');
      expect(event.component.getFirstPropertyValue('url')).toMatch(/night-hackathon/);
    } finally {
      await page.close();
    }
  });
});

describe('accessibility', () => {
  it('axe-core finds no violation on a page with every element', async () => {
    const page = await open(
      allowedSite,
      sitePage(
        [
          `<marquee-events ${attributes()} timing="all" page-size="2"></marquee-events>`,
          `<marquee-event ${attributes()} event="summit-2027"></marquee-event>`,
          `<marquee-schedule ${attributes()} event="night-hackathon"></marquee-schedule>`,
          `<marquee-speakers ${attributes()}></marquee-speakers>`,
          `<marquee-sponsors ${attributes()}></marquee-sponsors>`,
        ].join(''),
      ),
    );
    try {
      const watch = await watchPage(page);
      // Every element rendered its data, not a refusal: axe judges the real content.
      expect(await page.locator('[part=message]').count()).toBe(0);
      await page.addScriptTag({ content: AXE });
      const violations = await page.evaluate(async () => {
        const result = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> } }).axe.run();
        return result.violations.map((v) => ({ id: v.id, targets: v.nodes.map((n) => n.target) }));
      });
      expect(violations).toEqual([]);
      expect(watch.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('the paged list is operated by keyboard alone, focus kept on the buttons, every page pinned to one snapshot', async () => {
    const page = await open(allowedSite, sitePage(`<marquee-events ${attributes()} timing="all" page-size="2" locale="en-GB"></marquee-events>`));
    try {
      const names = () => page.locator('marquee-events li[part~=event] h2').allInnerTexts();
      const focused = () => page.evaluate(() => document.querySelector('marquee-events')?.shadowRoot?.activeElement?.textContent ?? null);
      expect(await names()).toEqual(['Berlin Cloud Summit', 'Stockholm Dev Days']);
      expect(await textOf(page, 'marquee-events nav')).toContain('1 / 3');
      seen.length = 0;
      // Tab through the two event links to the enabled button: Previous is disabled on page 1.
      for (let presses = 0; presses < 10 && (await focused()) !== 'Next'; presses++) await page.keyboard.press('Tab');
      expect(await focused()).toBe('Next');
      await page.keyboard.press('Enter');
      await expect.poll(names).toEqual(['Hands-on Rust Workshop', 'Nordic × Tokyo Meetup']);
      await expect.poll(focused).toBe('Next');
      await page.keyboard.press('Space');
      await expect.poll(names).toEqual(['Nordic Summit 2027', 'Berlin Night Hackathon']);
      // Next is disabled on the last page: the keyboard moved to Previous, not to the page's top.
      await expect.poll(focused).toBe('Previous');
      await page.keyboard.press('Enter');
      await expect.poll(names).toEqual(['Hands-on Rust Workshop', 'Nordic × Tokyo Meetup']);
      const pinned = seen.filter((s) => s.path.startsWith('/api/integration/v1/events?'));
      expect(pinned.length).toBeGreaterThanOrEqual(2);
      for (const request of pinned) expect(request.pin).toMatch(/^\d{8}T\d{9}Z-[0-9a-f]{12}$/);
      expect(new Set(pinned.map((s) => s.pin)).size).toBe(1);
    } finally {
      await page.close();
    }
  });
});

describe('refusals', () => {
  it('a site whose origin the key does not allow shows a readable line, not a blank box', async () => {
    const page = await open(otherSite, sitePage(`<marquee-events ${attributes()}></marquee-events>`));
    try {
      expect(await textOf(page, 'marquee-events [part=message]')).toBe("This site's address is not on the list of origins its key allows, so the events cannot be shown here.");
    } finally {
      await page.close();
    }
  });

  it("a suspended organization's key shows that its events are not available", async () => {
    const page = await open(allowedSite, sitePage(`<marquee-speakers key="${suspendedKey}" base="${gatewayOrigin}"></marquee-speakers>`));
    try {
      expect(await textOf(page, 'marquee-speakers [part=message]')).toBe('These events are not available at the moment.');
    } finally {
      await page.close();
    }
  });

  it('an unknown event is said to be unpublished', async () => {
    const page = await open(allowedSite, sitePage(`<marquee-event ${attributes()} event="no-such-event"></marquee-event>`));
    try {
      expect(await textOf(page, 'marquee-event [part=message]')).toBe('This event is not published.');
    } finally {
      await page.close();
    }
  });
});

describe('the served module', () => {
  it('is immutable at its versioned path, loadable by any site, and loads under its SRI hash', async () => {
    const response = await fetch(`${gatewayOrigin}${elementsPath()}`, { headers: { 'Accept-Encoding': 'identity' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const bytes = Buffer.from(await response.arrayBuffer());
    const integrity = integrityOf(bytes);
    const page = await open(allowedSite, sitePage(`<marquee-speakers ${attributes()}></marquee-speakers>`, { integrity }));
    try {
      expect((await page.locator('marquee-speakers li').count()) > 0).toBe(true);
    } finally {
      await page.close();
    }
  });

  it('has a moving alias, revalidated at each load: ETag and 304', async () => {
    const alias = await fetch(`${gatewayOrigin}/elements/marquee-elements.js`);
    expect(alias.status).toBe(200);
    expect(alias.headers.get('cache-control')).toBe('no-cache');
    const etag = alias.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const again = await fetch(`${gatewayOrigin}/elements/marquee-elements.js`, { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect((await fetch(`${gatewayOrigin}/elements/0.0.0-other/marquee-elements.js`)).status).toBe(404);
  });

  it('is under 12 KB compressed, in gzip and in brotli', () => {
    const bytes = readFileSync(new URL('../../../elements/marquee-elements.js', import.meta.url));
    const gzip = gzipSync(bytes, { level: 9 }).length;
    const br = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    console.log(`marquee-elements.js: ${bytes.length} B, gzip ${gzip} B, br ${br} B`);
    expect(Math.max(gzip, br)).toBeLessThan(12 * 1024);
  });
});

function site(): Promise<Site> {
  return listen((req, res) => {
    const html = pages.get(req.url ?? '');
    res.writeHead(html === undefined ? 404 : 200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html ?? '');
  }).then((server) => ({ server, origin: `http://127.0.0.1:${portOf(server)}` }));
}
