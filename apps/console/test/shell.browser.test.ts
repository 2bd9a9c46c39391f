// The page shell in a real browser: logged in through the printed link, navigation to each view.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../src/index';
import { BROWSER_SKIP, hasBrowser, launchBrowser, openConsole } from './helpers/browser';
import { makeInstance, type TestInstance } from './helpers/instance';

if (!hasBrowser) console.log(`skip: ${BROWSER_SKIP}`);

describe.skipIf(!hasBrowser)('console shell', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let browser: Browser;
  beforeAll(async () => {
    t = await makeInstance();
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await running?.close();
    t?.cleanup();
  });

  it('opens from the printed link, drops the token from the address and navigates between views', async () => {
    const page = await openConsole(browser, running.loginUrl());
    expect(page.url()).toBe(`${running.origin}/`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Approvals');
    const nav = page.getByRole('navigation', { name: 'Views' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(
      expect.arrayContaining(['Approvals', 'Audit', 'Looms']),
    );
    await nav.getByRole('link', { name: 'Audit' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Audit');
    await page.context().close();
  });

  it('shows the view of an address that changed while the page was starting, though no hashchange reached it', async () => {
    const context = await browser.newContext();
    // Changes the address the moment the page starts listening for address changes, without an
    // event (replaceState fires none): what a link followed during start-up looks like to a
    // listener that was attached after the change's event had gone by.
    await context.addInitScript(() => {
      const add = window.addEventListener.bind(window);
      window.addEventListener = ((type: string, ...rest: unknown[]) => {
        if (type === 'hashchange' && location.pathname === '/') history.replaceState(null, '', '#/audit');
        return (add as (...a: unknown[]) => void)(type, ...rest);
      }) as typeof window.addEventListener;
    });
    const page = await context.newPage();
    await page.goto(running.loginUrl());
    await expect.poll(() => page.locator('h1').textContent()).toBe('Audit');
    await context.close();
  });
});
