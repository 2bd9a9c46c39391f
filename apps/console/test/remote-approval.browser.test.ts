// Approving from anywhere, end to end: an agent's strict call waits for a person (approval_wait);
// the workspace's notify block announces it to a webhook (a real receiver here, standing in for the
// person's phone notifications) with a signed body and a link; the link, opened in Chromium at a
// phone's size, asks for the passkey sign-in (the console serves HTTPS itself), lands on the
// approval's page, and one tap signs the approval with the passkey. The agent's waiting call then
// runs, the receiver is told of the decision, and the audit holds the person's signature.
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resultOutcome } from '@harness/commands/mcp';
import { verifyAuditStore } from '@harness/store';
import { type Received, type Receiver, startReceiver } from '@harness/test-utils/receiver';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../src/index';
import { addVirtualAuthenticator } from './helpers/authenticator';
import { inBrowser, launchBrowser, PHONE, type TestBrowser } from './helpers/browser';
import { harnessBin, makeInstance, type TestInstance } from './helpers/instance';
import { freePort, testCertificate } from './helpers/tls';

const SECRET = 'remote-approval-hook-secret';
const LINE = 'approved from a phone, far away';

/** The announcement of `event` for approval `id` (any when absent). */
const announced = (event: string, id?: string) => (r: Received) =>
  r.path === '/hook' &&
  r.headers['x-harness-event'] === event &&
  (id === undefined || (JSON.parse(r.body) as { approval: { id: string } }).approval.id === id);

inBrowser.describe('a person away from the machine approves from a phone', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let receiver: Receiver;
  let browser: TestBrowser;
  let context: BrowserContext;
  let page: Page;
  let agent: Client;
  let cleanupCerts: () => void;

  beforeAll(async () => {
    t = await makeInstance();
    receiver = await startReceiver();
    const port = await freePort();
    const origin = `https://localhost:${port}`;
    // The tests' workspace, told to wait for a person and to announce each approval.
    const workspace = readFileSync(t.workspaceFile, 'utf8').replace(
      'sandbox_mode: preferred\n',
      `sandbox_mode: preferred
approval_wait: 2m
notify:
  link: ${origin}/
  targets:
    - kind: webhook
      name: phone
      url: ${receiver.url('/hook')}
      secret_env: HOOK_SECRET
`,
    );
    writeFileSync(t.workspaceFile, workspace);
    const certs = (await import('@harness/test-utils')).tempDir('harness-console-tls-');
    cleanupCerts = certs.cleanup;
    running = await startConsole({
      instanceDir: t.instanceDir,
      listen: `127.0.0.1:${port}`,
      publicUrl: origin,
      tls: testCertificate(certs.path),
    });
    agent = new Client({ name: 'remote-approval-test', version: '0.0.0' });
    await agent.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [harnessBin, 'serve', '--instance', t.instanceDir],
        env: { PATH: process.env.PATH ?? '', HOME: t.home, NO_COLOR: '1', HOOK_SECRET: SECRET },
        stderr: 'ignore',
      }),
    );
    browser = await launchBrowser();
    context = await browser.newContext({ ...PHONE, ignoreHTTPSErrors: true });
    page = await context.newPage();
    await addVirtualAuthenticator(context, page);
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await agent?.close();
    await running?.close();
    await receiver?.close();
    cleanupCerts?.();
    t?.cleanup();
  });

  it("enrols the phone's passkey, at the machine, from the printed link", async () => {
    await page.goto(`${running.loginUrl()}#/passkeys`);
    await page.getByLabel('Label').fill('phone');
    await page.getByRole('button', { name: 'Add a passkey' }).tap();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Passkey “phone” added.');
    await context.clearCookies();
    await page.goto('about:blank');
  });

  it('is told by a signed webhook, signs in with a passkey from its link, approves with a tap, and the waiting call runs', async () => {
    const call = agent.callTool(
      { name: 'run_command', arguments: { command: 'notes.append', args: { line: LINE } } },
      undefined,
      { timeout: 120_000 },
    );
    // The announcement: signed over its timestamp and exact body, no argument value, a link.
    const pending = await receiver.next(announced('approval.pending'));
    const timestamp = String(pending.headers['x-harness-timestamp']);
    expect(pending.headers['x-harness-signature']).toBe(
      `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${pending.body}`).digest('hex')}`,
    );
    expect(pending.body).not.toContain(LINE);
    const notice = JSON.parse(pending.body) as { approval: { id: string; plan_hash: string }; link: string };
    const id = notice.approval.id;
    expect(notice.link).toBe(`${running.origin}/#/approvals/${id}`);

    // On the phone: the link, the passkey sign-in, back on the approval's page.
    await page.goto(notice.link);
    await expect.poll(() => page.url()).toBe(`${running.origin}/login#/approvals/${id}`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).tap();
    await expect.poll(() => page.url()).toBe(notice.link);
    const one = page.locator('article.approval.one');
    await expect.poll(() => one.textContent()).toContain(notice.approval.plan_hash.slice(0, 12));
    await one.getByRole('button', { name: 'Approve…' }).tap();
    await one.getByRole('button', { name: 'Confirm: approve' }).tap();

    // The agent's call, waiting all along, runs now.
    const outcome = resultOutcome(await call) as { status?: string; outcome?: { ok?: boolean } };
    expect(outcome).toMatchObject({ status: 'executed', outcome: { ok: true } });
    expect(t.notes()).toBe(`${LINE}\n`);
    await expect.poll(() => one.getByRole('status').textContent()).toMatch(/^Approved by person:\S+ at /);
    expect(await one.locator('p.signed').textContent()).toBe('Signed with a passkey.');

    const approved = await receiver.next(announced('approval.approved', id));
    expect(JSON.parse(approved.body)).toMatchObject({ event: 'approval.approved', approval: { id } });
    const record = await running.ctx.store.getApproval(id);
    expect(record).toMatchObject({
      decided_via: 'console',
      assertion: { planHash: notice.approval.plan_hash },
    });
    expect(await verifyAuditStore(running.ctx.store)).toMatchObject({ ok: true });
  }, 120_000);
});
