// An approval reads as its pack's author wrote it for people: the display line with the call's
// values (the guard's argv one click away, under "Full argv") and what the command's preview showed,
// in a real browser, on the queue and on the one-approval page a phone opens.
import type { ApprovalRecord } from '@harness/store';
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

const GUARD = 'set -eu\nfor a do [ -n "$a" ] && set -- "$@" "$a"; shift; done\nexec git "$@"';
const PREVIEW =
  ' src/parser.ts | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\ndiff --git a/src/parser.ts b/src/parser.ts';

inBrowser.describe('the display line and preview of an approval', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let browser: TestBrowser;
  let approval: ApprovalRecord;
  beforeAll(async () => {
    t = await makeInstance();
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    // As the host records a held git.commit: the display line rendered, the preview run.
    approval = await running.ctx.store.requestApproval({
      ...{ key: 'display-page', command: 'git.commit', agent: 'tester', run: 'run-1', tier: 'cautious' },
      ...{ action: 'command:call:git.commit', reason: 'cautious write', argNames: ['message'] },
      args: { message: 'Fix the parser' },
      argv: ['sh', '-c', GUARD, 'git', 'commit', '--no-verify', '--no-gpg-sign', '--message=Fix the parser'],
      display: 'git commit --message "Fix the parser"',
      preview: { command: 'git.staged_diff', ok: true, text: PREVIEW, truncated: false },
      ttlMs: 600_000,
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await running?.close();
    t?.cleanup();
  });

  it('shows the display line and the staged files on the queue, with the guard only under Full argv', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/approvals');
    const card = page.locator(`article[data-approval-id="${approval.id}"]`);
    await card.waitFor();
    const text = await card.innerText();
    expect(text).toContain('git commit --message "Fix the parser"');
    expect(text).toContain('Preview from git.staged_diff');
    expect(text).toContain('src/parser.ts | 2 +-');
    // Closed, the details hold the argv out of the text a person reads.
    expect(text).not.toContain('set -eu');
    await card.getByText('Full argv').click();
    expect(await card.innerText()).toContain('--message=Fix the parser');
    await expectAccessible(page);
  });

  it('shows the same on the one-approval page at a phone width', async () => {
    const page = await openConsole(browser, running.loginUrl(), `#/approvals/${approval.id}`, PHONE);
    const one = page.locator('article.approval.one');
    await one.getByText('git commit --message "Fix the parser"').waitFor();
    const text = await one.innerText();
    expect(text).toContain('1 file changed, 1 insertion(+), 1 deletion(-)');
    expect(text).not.toContain('set -eu');
    await expectAccessible(page);
  });
});
