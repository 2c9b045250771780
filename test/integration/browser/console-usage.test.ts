// A key's usage page in a real Chromium (issue 37): `marquee start` on a PostgreSQL with the
// sample data, a week of a website's traffic counted into it as the builders' intake counts a batch,
// the page opened with an auditor credential. The chart is drawn by the server as inline SVG: it
// renders with its bars in their outcome's colours, the page loads nothing from anywhere else and
// breaks none of its policy, and its screenshot is docs/console-key-usage.png (written there with
// UPDATE_SCREENSHOTS=1, as the console's other screenshot is).
import { copyFileSync, mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { ADMIN_API_BASE } from '../../../admin/api-routes.ts';
import { outcomeStyles } from '../../../admin/console/usage-chart.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import { HOUR_MS, hourOf, type RefusedOriginCount, type RequestCount } from '../../../records/usage/usage-batch.ts';
import { countBatches } from '../../../records/usage/usage-store.ts';
import { launchChromium, watchPage } from '../../support/chromium.ts';
import { adminSecret, marquee, marqueeProcess } from '../../support/cli.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';

const SCREENSHOT = '.test-output/console-key-usage.png';
const NORDIC = SAMPLE.organizations.nordic.id;
const API = '/api/integration/v1';

let postgres: TestPostgres;
let home: string;
let start: Awaited<ReturnType<typeof marqueeProcess>>;
let consoleUrl: string;
let auditor: { username: string; password: string };
let keyId: string;
let browser: Browser;

/**
 * A website's week, hour by hour, the same on every run: busy afternoons and quiet nights (200s,
 * and 304s from browsers that had the answer), a client over its limit one afternoon (429), a
 * staging site that is not an allowed origin (403), and a few calls with a revoked key's secret (401).
 */
function week(key: string, now: number): { counts: RequestCount[]; origins: RefusedOriginCount[] } {
  const counts: RequestCount[] = [];
  const origins: RefusedOriginCount[] = [];
  const first = hourOf(now) - 167 * HOUR_MS;
  for (let n = 0; n < 168; n++) {
    const hour = first + n * HOUR_MS;
    const clock = new Date(hour).getUTCHours();
    const daylight = Math.max(0, Math.sin(((clock - 6) / 24) * 2 * Math.PI));
    const base = Math.round(12 + 90 * daylight + ((n * 37) % 11));
    const count = (route: string, status: number, requests: number, errorCode = '') => {
      if (requests > 0) counts.push({ keyId: key, organizationId: NORDIC, hour, route, status, errorCode, requests });
    };
    count(`${API}/events`, 200, Math.round(base * 0.55));
    count(`${API}/events/{idOrSlug}`, 200, Math.round(base * 0.2));
    count(`${API}/events`, 304, Math.round(base * 0.25));
    if (n >= 100 && n < 104) count(`${API}/events`, 429, 35 - (n - 100) * 6);
    if (n % 29 === 3) count(`${API}/organization`, 401, 2);
    if (n >= 130 && n < 142 && clock >= 8) {
      count(`${API}/team`, 403, 6, 'API_KEY_ORIGIN_NOT_ALLOWED');
      origins.push({ keyId: key, organizationId: NORDIC, hour, origin: 'https://staging.nordic.example', requests: 5 });
      origins.push({ keyId: key, organizationId: NORDIC, hour, origin: '', requests: 1 });
    }
  }
  return { counts, origins };
}

beforeAll(async () => {
  postgres = await startPostgres();
  home = await mkdtemp(join(tmpdir(), 'marquee-console-usage-browser-'));
  const env = { MARQUEE_HOME: home, DATABASE_URL: postgres.url };
  expect((await marquee(['db', 'migrate'], env)).code).toBe(0);
  expect((await marquee(['db', 'seed', '--sample'], env)).code).toBe(0);
  start = await marqueeProcess(['start'], { ...env, PORT: '0', ADMIN_PORT: '0', BUILD_SCHEDULE: '0 0 1 1 *' }, /console: (http:\/\/\S+?)\/? /);
  consoleUrl = start.match[1]!;
  const token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
  auditor = { username: 'ada', password: await adminSecret(env, 'ada', 'auditor') };
  const key = await fetch(`${consoleUrl}${ADMIN_API_BASE}/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ organization: 'nordic-dev', label: 'Website', origins: ['https://www.nordic.example'] }),
  });
  expect(key.status).toBe(201);
  keyId = ((await key.json()) as { id: string }).id;
  const db = await openPostgres(postgres.url);
  try {
    expect(await countBatches(db, [{ id: 'console-usage-browser.1', ...week(keyId, Date.now()) }])).toEqual({ added: 1, repeated: 0 });
  } finally {
    await db.close();
  }
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await start?.stop();
  await postgres?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

describe("a key's usage page in Chromium", () => {
  it('draws the chart with its bars in their colours, loads nothing from elsewhere, breaks no policy, and is the screenshot in docs/', async () => {
    const context = await browser.newContext({ httpCredentials: auditor, viewport: { width: 1280, height: 900 } });
    const page: Page = await context.newPage();
    const { requested, errors, violations } = await watchPage(page);
    try {
      const answer = await page.goto(`${consoleUrl}/keys/${keyId}/usage`);
      expect(answer?.status()).toBe(200);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(`Usage of key ${keyId}`);

      const chart = page.getByRole('img', { name: /^Key \S+ \(Website\): [\d,]+ requests by outcome per hour, .* UTC$/ });
      expect(await chart.isVisible()).toBe(true);
      const box = (await chart.boundingBox())!;
      expect(box.width).toBeGreaterThan(600);
      // Every bar of the week is drawn, none of them flat.
      const heights = await page.locator('svg.usage-chart rect.bar').evaluateAll((rects) => rects.map((rect) => (rect as SVGGraphicsElement).getBoundingClientRect().height));
      expect(heights.length).toBeGreaterThan(168);
      expect(heights.every((height) => height > 0)).toBe(true);
      expect(await page.locator('svg.usage-chart g.bucket').count()).toBe(168);

      // The chart as painted: the colour of each outcome is on screen, which a blank or unstyled drawing would not show.
      const painted = await coloursIn(await chart.screenshot());
      for (const { outcome, colour } of outcomeStyles(['200', '304', '401', '403 API_KEY_ORIGIN_NOT_ALLOWED', '429'])) {
        expect(painted.has(colour), `${outcome} (${colour})`).toBe(true);
      }

      expect((await rows(page, 'Origin')).map((cells) => cells[0])).toEqual(['https://staging.nordic.example', 'others']);
      expect(requested.length).toBeGreaterThan(0);
      expect(requested.filter((url) => !url.startsWith(`${new URL(consoleUrl).origin}/`))).toEqual([]);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);

      mkdirSync('.test-output', { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(SCREENSHOT, 'docs/console-key-usage.png');
    } finally {
      await context.close();
    }
  });
});

/** The rows of the table whose first column header is `firstHeader`, as the text of their cells. */
async function rows(page: Page, firstHeader: string): Promise<string[][]> {
  const table = page.locator('table', { has: page.locator('thead th:first-child', { hasText: firstHeader }) });
  return table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('th, td'), (cell) => (cell.textContent ?? '').trim())));
}

/** The distinct colours of a PNG (as #rrggbb), decoded in the browser on a blank page. */
async function coloursIn(png: Buffer): Promise<Set<string>> {
  const page = await browser.newPage();
  try {
    const colours = await page.evaluate(async (base64) => {
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d')!;
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(0, 0, image.width, image.height);
      const seen = new Set<string>();
      for (let i = 0; i < data.length; i += 4) seen.add(`#${[data[i]!, data[i + 1]!, data[i + 2]!].map((c) => c.toString(16).padStart(2, '0')).join('')}`);
      return [...seen];
    }, png.toString('base64'));
    return new Set(colours);
  } finally {
    await page.close();
  }
}
