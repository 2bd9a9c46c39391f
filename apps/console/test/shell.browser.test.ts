// The page shell in a real browser: logged in through the printed link, navigation to each view,
// and Log out.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../src/index';
import { expectAccessible, inBrowser, launchBrowser, openConsole, type TestBrowser } from './helpers/browser';
import { makeInstance, type TestInstance } from './helpers/instance';

inBrowser.describe('console shell', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let browser: TestBrowser;
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

  it('shows a login link opened again in another browser as a console page that says how to get a new link [SEC-20]', async () => {
    const url = running.loginUrl();
    const first = await openConsole(browser, url);
    await expect.poll(() => first.locator('h1').textContent()).toBe('Approvals');
    const other = await openConsole(browser, url);
    await other.getByRole('heading', { name: 'This login link was already used' }).waitFor();
    expect(await other.title()).toBe('This login link was already used · harness console');
    expect(await other.locator('main').innerText()).toContain(
      'To get a new link, stop the running console (Ctrl-C in its terminal) and start it again with the same options; it prints a new link:\n\nharness console',
    );
    expect(await other.locator('main pre code').textContent()).toBe('harness console');
    // The console's own stylesheet: its header band, as on every view.
    expect(await other.locator('header').evaluate((h) => getComputedStyle(h).backgroundColor)).toBe(
      await first.locator('header').evaluate((h) => getComputedStyle(h).backgroundColor),
    );
    expect(await other.locator('header .brand').textContent()).toBe('harness console');
    await expectAccessible(other);
    // In the browser the link logged in, opening it again opens the console.
    await first.goto(url);
    await expect.poll(() => first.locator('h1').textContent()).toBe('Approvals');
    expect(first.url()).toBe(`${running.origin}/`);
    await other.context().close();
    await first.context().close();
  });

  it('logs out from the header: the page says it is signed out, and its cookie no longer opens the API [SEC-20]', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/approvals');
    await page.getByText('No call is waiting for a decision.').waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Signed out' }).waitFor();
    expect(await page.getByRole('status').textContent()).toBe('You are signed out of this console.');
    expect(await page.locator('main').textContent()).toContain(
      'To continue, open a new login link: `harness console` prints one when it starts',
    );
    expect(await page.getByRole('navigation', { name: 'Views' }).count()).toBe(0);
    await expectAccessible(page);
    // The server ended the session: the page's own cookie, if the browser kept it, is refused.
    const api = await page.context().request.get(`${running.origin}/api/approvals`);
    expect(api.status()).toBe(401);
    await page.reload();
    expect(await page.locator('body').textContent()).toContain(
      'No console session. To continue, open a new login link',
    );
    await page.context().close();
  });

  it('shows that the session expired and how to get a new login link, once the live feed says so [SEC-20]', async () => {
    let now = Date.parse('2030-01-01T09:00:00Z');
    const timed = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0', clock: () => now });
    try {
      const page = await openConsole(browser, timed.loginUrl(), '#/approvals');
      await page.getByText('No call is waiting for a decision.').waitFor();
      await page.waitForFunction(() => document.documentElement.getAttribute('data-live') === 'on');
      now += 30 * 60_000;
      timed.ctx.watch.publish({ topic: 'approvals', value: 'after-expiry' });
      await page.getByRole('heading', { name: 'Session ended' }).waitFor();
      const text = await page.locator('main').textContent();
      expect(text).toContain('This console session expired: nothing was done in it for 30 min');
      expect(text).toContain('`harness console` prints one when it starts');
      await page.context().close();
    } finally {
      await timed.close();
    }
  });
});
