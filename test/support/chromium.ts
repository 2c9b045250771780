// A real headless Chromium for browser tests: the Debian package
// driven by playwright-core. Never `npx playwright install`: there are no downloads here.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM_PATH = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: install it with \`apt-get update && apt-get install -y chromium\` (the test script does)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** What a page did that a test checks: every request (none should leave its origin), its uncaught errors, and what its Content-Security-Policy refused. */
export interface PageWatch {
  readonly requested: string[];
  readonly errors: string[];
  violations(): Promise<string[]>;
}

/** Starts watching `page`; call it before the page loads. */
export async function watchPage(page: Page): Promise<PageWatch> {
  const requested: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  page.on('pageerror', (error) => errors.push(error.message));
  // Runs before the page's own scripts, outside its policy: records what the policy refused.
  await page.addInitScript(() => {
    const violations: string[] = [];
    (window as unknown as { violations: string[] }).violations = violations;
    document.addEventListener('securitypolicyviolation', (event) => violations.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  return { requested, errors, violations: () => page.evaluate(() => (window as unknown as { violations: string[] }).violations) };
}
