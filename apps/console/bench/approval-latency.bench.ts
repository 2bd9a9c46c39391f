// Approval latency: from a pending approval written to the store (as a broker writes it) to its card
// visible in an open page in a real browser (server-sent event, then the page's re-read). Anchor:
// the same page re-reading the queue by itself (one GET /api/approvals from the page). Target:
// the latency's median at most 500 ms.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarize, writeResult } from '@harness/bench-utils';
import { initInstance, openStore } from '@harness/host';
import { chromium } from 'playwright-core';
import { startConsole } from '../src/index';

const CHROMIUM = process.env.HARNESS_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  process.stdout.write(`console-approval-latency: skipped, ${CHROMIUM} is not installed\n`);
  process.exit(0);
}
const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'console-bench-'));
cpSync(join(here, '..', 'test', 'fixtures', 'workspace'), join(dir, 'workspace'), { recursive: true });
const instanceDir = join(dir, 'instance');
await initInstance(instanceDir, join(dir, 'workspace', 'workspace.yaml'), { serves: { agent: 'tester' } });
const store = await openStore(instanceDir);
const running = await startConsole({ instanceDir, listen: '127.0.0.1:0' });
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-background-networking'],
});
const page = await browser.newPage();
await page.goto(running.loginUrl());
await page.waitForSelector('text=No call is waiting for a decision.');
const ROUNDS = 30;
const latency: number[] = [];
const anchor: number[] = [];
for (let i = 0; i < ROUNDS + 3; i++) {
  const start = performance.now();
  const record = await store.requestApproval({
    key: `bench-${i}`,
    command: 'notes.append',
    agent: 'tester',
    run: 'bench',
    action: 'command:call:notes:append',
    reason: 'strict tier: every call needs explicit approval',
    argNames: ['line'],
    args: { line: `line ${i}` },
    argv: ['node', '-e', '…', '--', `line ${i}`],
    tier: 'strict',
    ttlMs: 3_600_000,
  });
  await page.waitForSelector(`article[data-approval-id="${record.id}"]`, { timeout: 30_000 });
  const seen = performance.now() - start;
  const a0 = performance.now();
  await page.evaluate(async () => {
    await (await fetch('/api/approvals?status=all')).json();
  });
  const fetched = performance.now() - a0;
  if (i >= 3) {
    latency.push(seen);
    anchor.push(fetched);
  }
}
const s = summarize(latency);
const a = summarize(anchor);
writeResult('console-approval-latency', {
  unit: 'ms',
  subject: { label: 'pending approval written to the store → its card visible in the open page', ...s },
  anchor: { label: 'the page reading GET /api/approvals?status=all itself', ...a },
  ratio: s.median / a.median,
  target: { subjectMedianMsAtMost: 500 },
  pass: s.median <= 500,
  notes: 'the feed polls the store every 100 ms; the page re-reads the queue on each approvals event',
});
await browser.close();
await running.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
