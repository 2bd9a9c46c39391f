// The real browser of the console tests: Debian's chromium driven by playwright-core (headless, no
// sandbox as root, background networking off), axe-core for accessibility, and screenshots that
// docs/console.md embeds.
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Need, needs, repoRoot } from '@harness/test-utils';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from 'playwright-core';
import { expect } from 'vitest';

/** The Chromium the browser tests drive: `HARNESS_CHROMIUM`, else Debian's. */
export const CHROMIUM = process.env.HARNESS_CHROMIUM ?? '/usr/bin/chromium';

/**
 * The browser tests' block: skipped outside CI, with one line, where Chromium is not at
 * {@link CHROMIUM}; failed under CI=true, which installs it.
 */
export const inBrowser: Need = needs({
  what: `Chromium at ${CHROMIUM}`,
  present: existsSync(CHROMIUM),
  install: 'apt-get install chromium, or set HARNESS_CHROMIUM to a Chromium binary',
});

/**
 * What a test file gets of the browser: contexts of its own, all closed by `close()`. A vitest worker
 * runs several files (docs/testing.md, "The suite's cost"), and they share one Chromium, started by
 * the first file that asks; it ends with the worker, whose exit closes the pipe Chromium is driven
 * through. A file's pages never see another file's: each context is a fresh profile.
 */
export interface TestBrowser {
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** Closes every context this file opened; the worker's Chromium stays up for the next file. */
  close(): Promise<void>;
}

let workerBrowser: Promise<Browser> | undefined;

async function sharedBrowser(): Promise<Browser> {
  // A launch that failed, or a Chromium that went away, is started again for the next file.
  const running = await workerBrowser?.catch(() => undefined);
  if (running?.isConnected()) return running;
  workerBrowser = chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
  return workerBrowser;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await sharedBrowser();
  const contexts = new Set<BrowserContext>();
  return {
    async newContext(options) {
      const context = await browser.newContext(options);
      contexts.add(context);
      context.once('close', () => contexts.delete(context));
      return context;
    },
    async close() {
      await Promise.all([...contexts].map((context) => context.close()));
    },
  };
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
  browser: TestBrowser,
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
