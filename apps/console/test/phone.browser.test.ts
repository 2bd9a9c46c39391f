// The console on a phone (390 × 844 CSS px, touch) in a real browser: every view fits the width
// (no sideways scroll, the navigation inside the header), tables stack their rows with each cell
// labelled, and one approval has a page of its own — the link a notification carries — where a
// tap decides a real agent's call. At a desktop's width the layout stays as it was.
import { join } from 'node:path';
import { RunStore, runnerPaths } from '@harness/runner';
import { repoRoot } from '@harness/test-utils';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../src/index';
import { apiClient } from './helpers/api';
import {
  expectAccessible,
  inBrowser,
  launchBrowser,
  openConsole,
  PHONE,
  screenshot,
  type TestBrowser,
} from './helpers/browser';
import { makeInstance, serveAgent, type TestInstance } from './helpers/instance';

type Agent = Awaited<ReturnType<typeof serveAgent>>;

const get = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);

/** The agent's strict call; answers its outcome code and, when held, its approval id. */
async function append(agent: Agent, line: string) {
  const result = await agent.call('run_command', { command: 'notes.append', args: { line } });
  return {
    code: get(result, 'outcome', 'code'),
    approvalId: get(result, 'entry', 'value', 'approval', 'id') as string | undefined,
  };
}

/** Waits until the view has drawn what it loads. */
async function loaded(page: Page): Promise<void> {
  await page.locator('main h1').waitFor();
  await expect.poll(() => page.locator('main').textContent()).not.toContain('Loading…');
}

/** What the person sees of the page's width and the header. */
function measure(page: Page) {
  return page.evaluate(() => {
    const box = (e: Element | null) => {
      const r = e?.getBoundingClientRect();
      return r ? { left: r.left, right: r.right, top: r.top, bottom: r.bottom } : undefined;
    };
    return {
      scrollWidth: document.documentElement.scrollWidth,
      header: box(document.querySelector('header')),
      nav: box(document.querySelector('header nav')),
      links: Array.from(document.querySelectorAll('header nav a')).map(box),
      brand: box(document.querySelector('header .brand')),
      logout: box(document.querySelector('header .logout')),
    };
  });
}

/** Each body row's cells as [data-label, the ::before text, left, top, bottom], and the header cells' texts. */
function cells(table: Locator) {
  return table.evaluate((t) => ({
    display: getComputedStyle(t).display,
    headers: Array.from(t.querySelectorAll('thead th')).map((th) => th.textContent ?? ''),
    headerHeight: t.querySelector('thead')?.getBoundingClientRect().height ?? 0,
    rows: Array.from(t.querySelectorAll('tbody tr')).map((tr) =>
      Array.from(tr.querySelectorAll('td')).map((td) => {
        const r = td.getBoundingClientRect();
        return {
          label: td.getAttribute('data-label'),
          before: getComputedStyle(td, '::before').content,
          left: r.left,
          top: r.top,
          bottom: r.bottom,
          shown: r.height > 0,
        };
      }),
    ),
  }));
}

inBrowser.describe('the console at a phone’s width', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let browser: TestBrowser;
  let agent: Agent;
  let pendingId: string;
  let loomId: string;
  const saved = process.env.HARNESS_RUNNER_CONFIG;

  beforeAll(async () => {
    t = await makeInstance();
    const runs = new RunStore(runnerPaths(t.instanceDir).db);
    runs.insert({
      id: 'run-ok-1',
      harness: 'review',
      status: 'succeeded',
      trigger: 'webhook',
      source: 'gh',
      delivery: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      prompt_delivery: 'stdin',
      exit_code: 0,
    });
    runs.insert({
      id: 'run-skip-1',
      harness: 'review',
      status: 'skipped',
      trigger: 'webhook',
      reason: 'template_unresolved',
      path: 'event.number',
    });
    runs.close();
    process.env.HARNESS_RUNNER_CONFIG = join(repoRoot, 'fixtures', 'runner', 'example.yaml');
    agent = await serveAgent(t);
    // The run's calls before the one held: a read, and a loom.
    const read = await agent.call('run_command', { command: 'echo.argv', args: { value: 'a first look' } });
    expect(get(read, 'outcome', 'code')).toBe('ok');
    const composed = await agent.call('loom_compose', {
      request_id: 'phone-compose-1',
      components: [{ ref: 'url:https://example.org/a-rather-long-specification-address', title: 'Spec' }],
    });
    loomId = get(composed, 'receipt', 'loom_id') as string;
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    // One decided already (through the console's API), so the History table has a row.
    const denied = await append(agent, 'denied at the desk');
    const api = await apiClient(running);
    const decided = await api.post(`/approvals/${denied.approvalId}/decision`, { decision: 'denied' });
    expect(decided.status).toBe(200);
    const held = await append(agent, 'written from a phone');
    expect(held.code).toBe('approval_required');
    pendingId = held.approvalId as string;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await agent?.close();
    await running?.close();
    if (saved === undefined) delete process.env.HARNESS_RUNNER_CONFIG;
    else process.env.HARNESS_RUNNER_CONFIG = saved;
    t?.cleanup();
  });

  it('fits every view in 390 px: nothing scrolls sideways and the navigation stays inside the header', async () => {
    const page = await openConsole(browser, running.loginUrl(), '', PHONE);
    const seq = await running.ctx.store.queryAudit({ limit: 1 }).then((p) => p.events[0]?.seq);
    const hashes = [
      '#/approvals',
      `#/approvals/${pendingId}`,
      '#/audit',
      `#/audit/${seq}`,
      '#/looms',
      `#/looms/${loomId}`,
      '#/tasks',
      '#/runs',
    ];
    const seen: Record<string, unknown> = {};
    for (const hash of hashes) {
      await page.goto(new URL(hash, running.origin).href);
      await loaded(page);
      const m = await measure(page);
      const { header, nav } = m;
      if (header === undefined || nav === undefined) throw new Error(`${hash}: no header or navigation`);
      seen[hash] = {
        scrollWidth: m.scrollWidth,
        navInHeader:
          nav.left >= header.left &&
          nav.right <= header.right &&
          nav.top >= header.top &&
          nav.bottom <= header.bottom,
        linksInHeader: m.links.every(
          (l) => l !== undefined && l.left >= 0 && l.right <= 390 && l.bottom <= header.bottom,
        ),
      };
    }
    const fits = { scrollWidth: expect.any(Number), navInHeader: true, linksInHeader: true };
    expect(seen).toEqual(Object.fromEntries(hashes.map((h) => [h, fits])));
    for (const [hash, m] of Object.entries(seen)) {
      expect((m as { scrollWidth: number }).scrollWidth, hash).toBeLessThanOrEqual(390);
    }
    // Every view is still one tap away.
    const nav = page.getByRole('navigation', { name: 'Views' });
    await nav.getByRole('link', { name: 'Audit' }).tap();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Audit');
    await page.context().close();
  });

  it('stacks the rows of the History, Audit and Runs tables, each cell under its column’s label', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/approvals', PHONE);
    const tables = {
      '#/approvals': 'table.history',
      '#/audit': 'table.audit',
      '#/runs': 'table[aria-label="Runs"]',
    };
    for (const [hash, selector] of Object.entries(tables)) {
      await page.goto(new URL(hash, running.origin).href);
      const table = page.locator(selector);
      await table.locator('tbody tr').first().waitFor();
      const shown = await cells(table);
      expect(shown.display, hash).toBe('block');
      // The column headers are there for a screen reader, not drawn.
      expect(shown.headerHeight, hash).toBeLessThanOrEqual(1);
      for (const row of shown.rows) {
        expect(
          row.map((c) => c.label),
          hash,
        ).toEqual(shown.headers);
        const drawn = row.filter((c) => c.shown);
        expect(
          drawn.map((c) => c.before),
          hash,
        ).toEqual(drawn.map((c) => JSON.stringify(c.label)));
        // One cell under the other, in one column.
        for (let i = 1; i < drawn.length; i++) {
          expect(drawn[i]?.top, hash).toBeGreaterThanOrEqual((drawn[i - 1]?.bottom ?? 0) - 0.5);
          expect(drawn[i]?.left, hash).toBe(drawn[0]?.left);
        }
      }
    }
    // The last table drawn is the Runs view's; the Audit view's is checked for accessibility.
    await page.goto(new URL('#/audit', running.origin).href);
    await page.locator('table.audit tbody tr').first().waitFor();
    await expectAccessible(page);
    await page.context().close();
  });

  it('opens one pending approval on its own page from the list, with its command, argv, agent, run and the run’s recent calls', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/approvals', PHONE);
    const card = page.locator(`article[data-approval-id="${pendingId}"]`);
    await card.getByRole('link', { name: 'Open on its own page' }).tap();
    await expect.poll(() => page.url()).toBe(`${running.origin}/#/approvals/${pendingId}`);
    const one = page.locator('article.approval.one');
    await one.locator('ol.calls li').first().waitFor();
    const record = await running.ctx.store.getApproval(pendingId);
    expect(await one.getByRole('heading', { level: 2 }).textContent()).toBe('notes.append');
    expect(await one.getByRole('status').textContent()).toMatch(/^Waiting for a decision until .+\.$/);
    const facts = await one
      .locator('dl.facts > div')
      .evaluateAll((divs) =>
        divs.map((d) => [d.querySelector('dt')?.textContent, d.querySelector('dd')?.textContent]),
      );
    expect(facts).toEqual([
      ['Agent', 'tester'],
      ['Run', record?.run],
      ['Tier', 'strict'],
      ['Asked', expect.stringMatching(/\d/)],
      ['Expires', expect.stringMatching(/\d/)],
    ]);
    expect(await one.locator('dl.args dd').allTextContents()).toEqual(['written from a phone']);
    expect(await one.locator('ol.argv li').allTextContents()).toEqual(record?.argv);
    // The plan the approval is bound to, as harness approvals list prints it.
    expect(record?.plan_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await one.locator('p.plan-hash').textContent()).toBe(`plan ${record?.plan_hash?.slice(0, 12)}`);
    // And the program's bytes it binds, by path and hash (what is approved is what runs).
    expect(record?.plan?.executable_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await one.locator('dl.covers dd').first().textContent()).toBe(
      `${record?.plan?.executable} ${record?.plan?.executable_sha256?.slice(0, 12)}`,
    );
    // The long argv element wraps inside the screen, in a monospace font.
    const script = one.locator('ol.argv li code').nth(2);
    const box = await script.boundingBox();
    expect(box?.x ?? -1).toBeGreaterThanOrEqual(0);
    expect((box?.x ?? 0) + (box?.width ?? 999)).toBeLessThanOrEqual(390);
    expect(box?.height ?? 0).toBeGreaterThan(30);
    expect(await script.evaluate((c) => getComputedStyle(c).fontFamily)).toMatch(/mono/i);
    // The run's calls, newest first: the held call itself, the loom, the read.
    const calls = await one.locator('ol.calls li').allInnerTexts();
    expect(calls[0]).toMatch(/^notes\.append\s+refused\/refused \(approval_required\)/);
    expect(calls.some((c) => /^loom\.compose\s+ok\//.test(c))).toBe(true);
    expect(calls.some((c) => /^echo\.argv\s+ok\/ok/.test(c))).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page);
    await screenshot(page, 'approval-phone');
    await page.context().close();
  });

  it('opens from a login link that names the approval, decides with a tap on buttons at least 44 px square, then shows the decision and the run it allowed', async () => {
    // The link a notification carries: the login token and the approval's page in one address.
    const context = await browser.newContext(PHONE);
    const page = await context.newPage();
    await page.goto(`${running.loginUrl()}#/approvals/${pendingId}`);
    expect(page.url()).toBe(`${running.origin}/#/approvals/${pendingId}`);
    const one = page.locator('article.approval.one');
    const approve = one.getByRole('button', { name: 'Approve…' });
    await approve.waitFor();
    for (const button of [approve, one.getByRole('button', { name: 'Deny…' })]) {
      const box = await button.boundingBox();
      expect(box?.width ?? 0).toBeGreaterThanOrEqual(44);
      expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
    }
    await approve.tap();
    const confirm = one.getByRole('button', { name: 'Confirm: approve' });
    const box = await confirm.boundingBox();
    expect(box?.width ?? 0).toBeGreaterThanOrEqual(44);
    expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
    await confirm.tap();
    const status = one.getByRole('status');
    await expect
      .poll(() => status.textContent())
      .toMatch(/^Approved by person:\S+ at .+; the agent's identical call has not run yet\.$/);
    expect(await one.getByRole('button').count()).toBe(0);
    expect(await running.ctx.store.getApproval(pendingId)).toMatchObject({
      status: 'approved',
      decided_via: 'console',
    });
    // The agent's identical call now runs, once; the page follows it live.
    expect(t.notes()).toBe('');
    const ran = await append(agent, 'written from a phone');
    expect(ran.code).toBe('ok');
    expect(t.notes()).toBe('written from a phone\n');
    await expect.poll(() => status.textContent()).toMatch(/; it ran: ok \(exit 0\)\.$/);
    await page.context().close();
  });

  it('says so when an approval’s page names no approval', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/approvals/apr_missing', PHONE);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('no approval has this id');
    expect(await page.getByRole('link', { name: 'All approvals' }).getAttribute('href')).toBe('#/approvals');
    await page.context().close();
  });

  it('keeps the desktop layout: one header row, and tables drawn as tables with their column headers', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/audit');
    const table = page.locator('table.audit');
    await table.locator('tbody tr').first().waitFor();
    const shown = await cells(table);
    expect(shown.display).toBe('table');
    expect(shown.headerHeight).toBeGreaterThan(10);
    const first = shown.rows[0] ?? [];
    expect(first.length).toBe(6);
    // One row of cells side by side, no label drawn before them.
    expect(new Set(first.map((c) => c.top)).size).toBe(1);
    expect(first.every((c, i) => i === 0 || c.left > (first[i - 1]?.left ?? 0))).toBe(true);
    expect(new Set(first.map((c) => c.before))).toEqual(new Set(['none']));
    const m = await measure(page);
    // Brand, navigation and Log out on one line.
    const middle = (b: { top: number; bottom: number } | undefined) => ((b?.top ?? 0) + (b?.bottom ?? 0)) / 2;
    expect(Math.abs(middle(m.nav) - middle(m.brand))).toBeLessThan(4);
    expect(Math.abs(middle(m.logout) - middle(m.brand))).toBeLessThan(4);
    expect((m.header?.bottom ?? 0) - (m.header?.top ?? 0)).toBeLessThan(60);
    await page.context().close();
  });
});
