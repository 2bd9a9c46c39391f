// A console serving HTTPS itself (a test certificate made with openssl) with its public URL, in a
// real Chromium at a phone's size with a virtual authenticator (CDP WebAuthn): the person enrols a
// passkey from the printed link's session, signs in with it, and approves a real agent's call on
// the one-approval page; the store's approval and its audit event hold the signature, verify passes,
// and a changed signature is named by verify.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { STORE_FILE, verifyAuditStore } from '@harness/store';
import { repoRoot, tempDir } from '@harness/test-utils';
import Database from 'better-sqlite3';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../src/index';
import { addVirtualAuthenticator } from './helpers/authenticator';
import {
  expectAccessible,
  inBrowser,
  launchBrowser,
  PHONE,
  screenshot,
  type TestBrowser,
} from './helpers/browser';
import { makeInstance, serveAgent, type TestInstance } from './helpers/instance';
import { freePort, testCertificate } from './helpers/tls';

const loomBin = join(repoRoot, 'apps', 'loom', 'dist', 'loom.js');

inBrowser.describe('passkeys and signed decisions over HTTPS, on a phone', () => {
  let t: TestInstance;
  let certs: ReturnType<typeof tempDir>;
  let running: RunningConsole;
  let browser: TestBrowser;
  let agent: Awaited<ReturnType<typeof serveAgent>>;
  let pendingId: string;
  let context: BrowserContext;
  let page: Page;
  let credentialId: string;

  beforeAll(async () => {
    t = await makeInstance();
    certs = tempDir('harness-console-tls-');
    agent = await serveAgent(t);
    const held = (await agent.call('run_command', {
      command: 'notes.append',
      args: { line: 'signed from a phone' },
    })) as { outcome?: { code?: string }; entry?: { value?: { approval?: { id?: string } } } };
    expect(held.outcome?.code).toBe('approval_required');
    pendingId = String(held.entry?.value?.approval?.id);
    const port = await freePort();
    running = await startConsole({
      instanceDir: t.instanceDir,
      listen: `127.0.0.1:${port}`,
      publicUrl: `https://localhost:${port}`,
      tls: testCertificate(certs.path),
    });
    browser = await launchBrowser();
    context = await browser.newContext({ ...PHONE, ignoreHTTPSErrors: true });
    page = await context.newPage();
    await addVirtualAuthenticator(context, page);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await agent?.close();
    await running?.close();
    certs?.cleanup();
    t?.cleanup();
  });

  it('enrols a passkey from the session the printed link opened', async () => {
    expect(running.origin).toMatch(/^https:\/\/localhost:\d+$/);
    await page.goto(`${running.loginUrl()}#/passkeys`);
    expect(page.url()).toBe(`${running.origin}/#/passkeys`);
    await page.getByLabel('Label').fill('phone');
    await page.getByRole('button', { name: 'Add a passkey' }).tap();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Passkey “phone” added.');
    const cells = page.locator('table[aria-label="Passkeys"] tbody td');
    // Chromium's authenticator takes the console's first choice, Ed25519; ES256 is the other one accepted.
    await expect
      .poll(() => cells.allTextContents())
      .toEqual(['phone', expect.stringMatching(/^(Ed25519|ES256)$/), expect.any(String), 'never']);
    const enrolled = running.ctx.passkeys.list();
    expect(enrolled).toHaveLength(1);
    credentialId = enrolled[0]?.id as string;
    await expectAccessible(page);
    await screenshot(page, 'passkeys');
  });

  it('signs in with the passkey once the session is gone, back to the approval the address named', async () => {
    await context.clearCookies();
    // A new document (not a change of the fragment), so the browser asks the server.
    await page.goto('about:blank');
    await page.goto(`${running.origin}/#/approvals/${pendingId}`);
    await expect.poll(() => page.url()).toBe(`${running.origin}/login#/approvals/${pendingId}`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).tap();
    await expect.poll(() => page.url()).toBe(`${running.origin}/#/approvals/${pendingId}`);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'harness_console')).toMatchObject({ secure: true, httpOnly: true });
    expect(running.ctx.passkeys.get(credentialId)?.last_used_at).not.toBeNull();
  });

  it('approves the pending call with a tap, signed by the passkey: the approval and its audit event hold the signature, and verify checks it', async () => {
    const one = page.locator('article.approval.one');
    await one.getByRole('button', { name: 'Approve…' }).tap();
    await one.getByRole('button', { name: 'Confirm: approve' }).tap();
    await expect
      .poll(() => one.getByRole('status').textContent())
      .toMatch(/^Approved by person:\S+ at .+; the agent's identical call has not run yet\.$/);
    expect(await one.locator('p.signed').textContent()).toBe('Signed with a passkey.');
    const record = await running.ctx.store.getApproval(pendingId);
    expect(record).toMatchObject({
      status: 'approved',
      decided_via: 'console',
      assertion: {
        credentialId,
        planHash: record?.plan_hash,
        algorithm: expect.stringMatching(/^(ES256|Ed25519)$/),
      },
    });
    const { events } = await running.ctx.store.queryAudit({ limit: 20 });
    const event = events.find((e) => e.phase === 'approval' && e.payload.approvalId === pendingId);
    expect(event?.payload.assertion).toEqual(record?.assertion);
    expect(await verifyAuditStore(running.ctx.store)).toMatchObject({ ok: true });
    const clean = spawnSync(process.execPath, [loomBin, 'audit', 'verify', '--instance', t.instanceDir], {
      encoding: 'utf8',
    });
    expect([clean.status, clean.stdout]).toEqual([0, expect.not.stringContaining('TAMPERED')]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'approval-phone-signed');

    const db = new Database(join(t.instanceDir, STORE_FILE));
    const signature = String(record?.assertion?.signature);
    const changed = `${signature.slice(0, 8)}${signature[8] === 'A' ? 'B' : 'A'}${signature.slice(9)}`;
    db.prepare("UPDATE audit SET payload = json_set(payload, '$.assertion.signature', ?) WHERE seq = ?").run(
      changed,
      event?.seq,
    );
    db.close();
    const verdict = await verifyAuditStore(running.ctx.store);
    expect(verdict.problem).toMatchObject({ kind: 'forged_decision', seq: event?.seq });
    // What the person reads from `loom audit verify`.
    const loom = spawnSync(process.execPath, [loomBin, 'audit', 'verify', '--instance', t.instanceDir], {
      encoding: 'utf8',
    });
    expect(loom.status).not.toBe(0);
    expect(loom.stdout).toContain(
      `TAMPERED forged_decision: event ${event?.seq}, the decision approved on approval ${pendingId}`,
    );
    expect(verdict.problem?.message).toMatch(
      new RegExp(`^event ${event?.seq}, the decision approved on approval ${pendingId}`),
    );
  });
});
