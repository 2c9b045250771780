// The reference page in a real browser: Chromium opens /docs on a real gateway, Swagger UI (the
// gateway's own copy) renders /openapi.json under the page's Content-Security-Policy, every one
// of the ten operations (the contract's nine and the change feed) is listed, no request leaves the gateway, and a
// screenshot of the page (.test-output/docs.png) shows more than a blank screen.
import { mkdirSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchPage } from '../../support/chromium.ts';
import { startHarness, type GatewayHarness } from '../../support/gateway-fixtures.ts';

const SCREENSHOT = '.test-output/docs.png';
const OPERATIONS = [
  '/organization',
  '/team',
  '/speakers',
  '/sponsors',
  '/events',
  '/events/{idOrSlug}',
  '/events/{idOrSlug}/sessions',
  '/events/{idOrSlug}/speakers',
  '/events/{idOrSlug}/sponsors',
  '/changes',
];

let harness: GatewayHarness;
let browser: Browser;

beforeAll(async () => {
  harness = await startHarness();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

describe('GET /docs in Chromium', () => {
  it('lists all ten operations, loads nothing from elsewhere, breaks no policy, and is not blank', async () => {
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const { requested, errors, violations } = await watchPage(page);
    try {
      await page.goto(`${harness.origin}/docs`);
      await page.waitForFunction((count) => document.querySelectorAll('.opblock').length >= count, OPERATIONS.length, { timeout: 30_000 });

      // Swagger UI puts zero-width spaces after slashes so that long paths can wrap.
      const paths = await page.$$eval('.opblock-summary-path', (elements) => elements.map((element) => (element.textContent ?? '').replaceAll('\u200b', '').trim()));
      expect([...paths].sort()).toEqual([...OPERATIONS].sort());
      for (const path of OPERATIONS) {
        await expect
          .poll(() =>
            page
              .getByText(path, { exact: true })
              .first()
              .isVisible()
              .catch(() => false),
          )
          .toBe(true);
      }
      const title = await page.locator('.info .title').textContent();
      expect(title).toContain('Marquee integration API');

      expect(requested.filter((url) => !url.startsWith(`${harness.origin}/`))).toEqual([]);
      expect(requested).toContain(`${harness.origin}/openapi.json`);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);

      mkdirSync('.test-output', { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
    } finally {
      await page.close();
    }

    const png = readFileSync(SCREENSHOT);
    expect(png.length).toBeGreaterThan(20_000);
    const colours = await distinctColours(png);
    // A blank or single-colour page has one or two; rendered text, badges and method colours many.
    expect(colours).toBeGreaterThan(50);
  });
});

/** Decodes the PNG in the browser (a blank page, no policy) and counts the distinct pixel colours. */
async function distinctColours(png: Buffer): Promise<number> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(async (base64) => {
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d')!;
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(0, 0, image.width, image.height);
      const seen = new Set<number>();
      for (let i = 0; i < data.length; i += 4) seen.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
      return seen.size;
    }, png.toString('base64'));
  } finally {
    await page.close();
  }
}
