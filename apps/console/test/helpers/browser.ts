// The real browser of the console tests: Debian's chromium driven by playwright-core (headless, no
// sandbox as root, background networking off), axe-core for accessibility, and screenshots that
// docs/console.md embeds.
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { repoRoot } from '@harness/test-utils';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = process.env.HARNESS_CHROMIUM ?? '/usr/bin/chromium';

/** True when the browser tests can run; under CI=true they must (a missing browser fails them). */
export const hasBrowser = existsSync(CHROMIUM) || process.env.CI === 'true';
/** The one line a skipped browser test prints. */
export const BROWSER_SKIP = `browser tests need ${CHROMIUM} (apt-get install chromium; CI installs it)`;

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}

/** A desktop browser window, the default of {@link openConsole}. */
export const DESKTOP: BrowserContextOptions = { viewport: { width: 1200, height: 800 } };
/** A phone: 390 × 844 CSS px at 3 device pixels per px, touch, the page's meta viewport honoured. */
export const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
};

/** A fresh browser context logged in through a one-time URL, at `hash` (e.g. `#/audit`). */
export async function openConsole(
  browser: Browser,
  loginUrl: string,
  hash = '',
  device: BrowserContextOptions = DESKTOP,
): Promise<Page> {
  const context = await browser.newContext(device);
  const page = await context.newPage();
  await page.goto(loginUrl);
  if (hash !== '') await page.goto(new URL(hash, page.url()).href);
  return page;
}

/** Fails on any serious or critical axe violation of the page as it is now. */
export async function expectAccessible(page: Page): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(bad).toEqual([]);
}

/**
 * Takes a screenshot of the page: into docs/console/<name>.png (which docs/console.md embeds) when
 * HARNESS_CONSOLE_SCREENSHOTS=1, else into the temp dir, so an ordinary run leaves the tree clean.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir =
    process.env.HARNESS_CONSOLE_SCREENSHOTS === '1'
      ? join(repoRoot, 'docs', 'console')
      : join(tmpdir(), 'harness-console-screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
