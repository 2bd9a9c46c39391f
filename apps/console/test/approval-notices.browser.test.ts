// The one-approval page shows who was notified of the approval and how each delivery went
// (docs/notify.md, "The delivery log"), in a real browser at a phone's width: the rows a broker's
// notifier wrote to the instance's real store, and a delivery finishing while the page is open.
import type { ApprovalRecord, NoticeEvent } from '@harness/store';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../src/index';
import {
  expectAccessible,
  inBrowser,
  launchBrowser,
  openConsole,
  PHONE,
  type TestBrowser,
} from './helpers/browser';
import { makeInstance, type TestInstance } from './helpers/instance';

inBrowser.describe('the notifications of one approval', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let browser: TestBrowser;
  let approval: ApprovalRecord;
  beforeAll(async () => {
    t = await makeInstance();
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    approval = await running.ctx.store.requestApproval({
      ...{ key: 'notices-page', command: 'notes.append', agent: 'tester', run: 'run-1', tier: 'strict' },
      ...{ action: 'command:call:notes.append', reason: 'strict tier', argNames: ['line'] },
      ...{ args: { line: 'a line' }, argv: ['tee', '-a', 'data/notes.txt'], ttlMs: 600_000 },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await running?.close();
    t?.cleanup();
  });

  const key = (target: string, event: NoticeEvent = 'approval.pending') => ({
    approval: approval.id,
    target,
    event,
  });

  /** The Notifications table's rows as the person reads them. */
  const rows = (page: Page) =>
    page.locator('table.notices tbody tr').evaluateAll((trs) =>
      trs.map((tr) =>
        Array.from(tr.querySelectorAll('td'))
          .slice(0, 3)
          .map((td) => td.textContent),
      ),
    );

  it('says nobody was notified, then lists each target, event and delivery as deliveries land', async () => {
    const page = await openConsole(browser, running.loginUrl(), `#/approvals/${approval.id}`, PHONE);
    await page.getByText('Nobody was notified of this approval.').waitFor();

    const store = running.ctx.store;
    await store.claimNotice(key('ops'));
    await store.recordNotice({
      ...key('ops'),
      status: 'delivered',
      attempts: 1,
      httpStatus: 200,
      error: null,
    });
    await store.claimNotice(key('phone'));
    await store.recordNotice({
      ...key('phone'),
      status: 'sending',
      attempts: 2,
      httpStatus: 500,
      error: 'HTTP 500',
    });
    await expect
      .poll(() => rows(page), { timeout: 15_000 })
      .toEqual([
        ['ops', 'approval.pending', 'delivered (1 attempt)'],
        ['phone', 'approval.pending', 'sending (2 attempts so far, last: HTTP 500)'],
      ]);

    await store.recordNotice({
      ...key('phone'),
      status: 'failed',
      attempts: 4,
      httpStatus: null,
      error: 'timeout after 5s',
    });
    await expect
      .poll(() => rows(page), { timeout: 15_000 })
      .toContainEqual(['phone', 'approval.pending', 'failed after 4 attempts: timeout after 5s']);
    await expectAccessible(page);
  });
});
