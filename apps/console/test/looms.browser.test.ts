// Looms in the browser: a loom composed through the tools (a real MCP client on `harness serve`)
// appears in the list, and its page shows its stages, shelf and receipts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../src/index';
import {
  expectAccessible,
  inBrowser,
  launchBrowser,
  openConsole,
  screenshot,
  type TestBrowser,
} from './helpers/browser';
import { makeInstance, serveAgent, type TestInstance } from './helpers/instance';

const get = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);

inBrowser.describe('looms in the browser', () => {
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

  it('shows a loom composed through the tools, with its stages, shelf and receipts', async () => {
    const agent = await serveAgent(t);
    let loomId: string;
    try {
      const first = await agent.call('loom_compose', {
        request_id: 'console-compose-1',
        components: [
          { ref: 'url:https://example.org/spec', title: 'The spec', stage: 'main', focus: true },
          { ref: 'person:ada', title: 'Ada' },
        ],
      });
      expect(first.status).toBe('ok');
      loomId = get(first, 'receipt', 'loom_id') as string;
      expect(loomId).toMatch(/.+/);
      const second = await agent.call('loom_compose', {
        request_id: 'console-compose-2',
        loom_id: loomId,
        components: [{ ref: 'url:https://example.org/notes', title: 'Notes', stage: 'main' }],
      });
      expect(get(second, 'receipt', 'version')).toBe(2);
    } finally {
      await agent.close();
    }

    const page = await openConsole(browser, running.loginUrl(), '#/looms');
    const row = page.locator(`table.looms tr[data-loom-id="${loomId}"]`);
    await row.waitFor();
    expect(await row.innerText()).toMatch(/\b2\b[\s\S]*\b3\b/);
    await expectAccessible(page);
    await screenshot(page, 'looms');

    await row.getByRole('link').click();
    await page.getByRole('heading', { name: `${loomId} version 2` }).waitFor();
    const stage = await page.getByRole('region', { name: 'Stage main' }).innerText();
    expect(stage).toContain('The spec');
    expect(stage).toContain('focus');
    expect(stage).toContain('Notes');
    const shelf = await page.locator('section[aria-labelledby="shelf-h"]').innerText();
    expect(shelf).toContain('Ada');
    const receipts = page.locator('table.receipts tbody tr');
    expect(await receipts.count()).toBe(2);
    expect(await receipts.nth(0).innerText()).toContain('console-compose-2');
    expect(await receipts.nth(1).innerText()).toMatch(/1 \(created\)[\s\S]*console-compose-1/);
    await expectAccessible(page);
    await screenshot(page, 'loom');
    await page.context().close();
  });
});
