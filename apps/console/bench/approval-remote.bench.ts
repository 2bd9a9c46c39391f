// approval-remote: a person's tap in the one-approval page (Chromium at a phone's size, the console
// serving HTTPS, the decision signed with a passkey of a virtual authenticator) → the agent's call,
// waiting for that decision through `harness serve` (approval_wait), answered. Anchor: the same tap
// → the page showing the decision (the signed decision request answered by the console), measured
// in the same round. Target: the subject's median at most 300 ms.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { summarize, writeResult } from '@harness/bench-utils';
import { tempDir } from '@harness/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { chromium } from 'playwright-core';
import { startConsole } from '../src/index';
import { addVirtualAuthenticator } from '../test/helpers/authenticator';
import { harnessBin, makeInstance } from '../test/helpers/instance';
import { freePort, testCertificate } from '../test/helpers/tls';

const CHROMIUM = process.env.HARNESS_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  process.stdout.write(`approval-remote: skipped, ${CHROMIUM} is not installed\n`);
  process.exit(0);
}
const ROUNDS = 20;
const WARMUP = 2;
const RATE_BURST_ROUNDS = 12;

const t = await makeInstance();
// The tests' workspace, waiting for a person, with a strict command that runs `true`.
writeFileSync(
  t.workspaceFile,
  readFileSync(t.workspaceFile, 'utf8')
    .replace('sandbox_mode: preferred\n', 'sandbox_mode: preferred\napproval_wait: 2m\n')
    .replace(
      'command_packs:\n',
      'command_packs:\n  - id: bench\n    permission: strict\n    commands:\n      - { id: noop, argv: ["true"], effects: read }\n\n',
    )
    .replace('grants: [pack:echo, notes.append]', 'grants: [pack:echo, notes.append, bench.noop]'),
);
const certs = tempDir('approval-remote-tls-');
const port = await freePort();
const running = await startConsole({
  instanceDir: t.instanceDir,
  listen: `127.0.0.1:${port}`,
  publicUrl: `https://localhost:${port}`,
  tls: testCertificate(certs.path),
});
const agent = new Client({ name: 'approval-remote-bench', version: '0.0.0' });
await agent.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [harnessBin, 'serve', '--instance', t.instanceDir],
    env: { PATH: process.env.PATH ?? '', HOME: t.home, NO_COLOR: '1' },
    stderr: 'ignore',
  }),
);
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-background-networking'],
});
const context = await browser.newContext({
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
  ignoreHTTPSErrors: true,
});
const page = await context.newPage();
await addVirtualAuthenticator(context, page);
await page.goto(`${running.loginUrl()}#/passkeys`);
await page.getByLabel('Label').fill('phone');
await page.getByRole('button', { name: 'Add a passkey' }).tap();
await page.getByText('Passkey “phone” added.').waitFor();

/** The id of the approval the agent's call waits on, once the host has recorded it. */
async function pendingApproval(): Promise<string> {
  for (;;) {
    const [first] = await running.ctx.store.listApprovals({ status: 'pending' });
    if (first !== undefined) return first.id;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const resumed: number[] = [];
const shown: number[] = [];
try {
  for (let i = 0; i < ROUNDS + WARMUP; i++) {
    // A decision is two requests (its challenge, then it), and the console lets a session make 30
    // at once, then one every 2 s (docs/console.md): past the burst, rounds are spaced to stay under.
    if (i >= RATE_BURST_ROUNDS) await new Promise((resolve) => setTimeout(resolve, 4_000));
    const call = agent.callTool(
      { name: 'run_command', arguments: { command: 'bench.noop', args: {} } },
      undefined,
      { timeout: 120_000 },
    );
    const id = await pendingApproval();
    await page.goto(`${running.origin}/#/approvals/${id}`);
    const one = page.locator('article.approval.one');
    await one.getByRole('button', { name: 'Approve…' }).tap();
    const confirm = one.getByRole('button', { name: 'Confirm: approve' });
    await confirm.waitFor();
    const tapped = performance.now();
    let shownAt = 0;
    // The page shows the decision once the signed request is answered: its status leaves "Waiting".
    const decided = page
      .waitForFunction(
        () =>
          !/^Waiting/.test(
            document.querySelector('article.approval.one [role="status"]')?.textContent ?? 'Waiting',
          ),
        undefined,
        { polling: 'raf' },
      )
      .then(() => {
        shownAt = performance.now();
      });
    await confirm.tap();
    const result = await call;
    const resumedAt = performance.now();
    await decided;
    if (result.isError === true)
      throw new Error(`the call failed: ${JSON.stringify(result.structuredContent)}`);
    if (i >= WARMUP) {
      resumed.push(resumedAt - tapped);
      shown.push(shownAt - tapped);
    }
  }
} finally {
  await browser.close();
  await agent.close();
  await running.close();
  certs.cleanup();
  t.cleanup();
}
const s = summarize(resumed);
const a = summarize(shown);
writeResult('approval-remote', {
  unit: 'ms',
  subject: {
    label: "tap on Confirm in the phone page (passkey-signed decision) → the agent's waiting call answered",
    ...s,
  },
  anchor: { label: 'the same tap → the page showing the decision (signed decision request answered)', ...a },
  ratio: s.median / a.median,
  target: { subjectMedianMsAtMost: 300 },
  pass: s.median <= 300,
  notes:
    'the waiting call reads its approval every 250 ms (APPROVAL_POLL_MS), then runs `true` and answers; the anchor includes the WebAuthn assertion and its check',
});
process.stdout.write(
  `approval-remote: median ${s.median.toFixed(1)} ms (target ≤ 300), anchor ${a.median.toFixed(1)} ms, ratio ${(s.median / a.median).toFixed(2)}\n`,
);
