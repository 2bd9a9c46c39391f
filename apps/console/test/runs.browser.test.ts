// The Runs view in a real browser: the runner's runs (real run records in the instance's runs.db) with
// their status and skip reasons, the harnesses of the example runner file as `describe` shows them,
// and the harness editor: every entry comes back with every key unchanged, and an edit of the kind or
// the argv changes only that (TM-127).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseYamlConfig } from '@harness/config/yaml';
import { RunStore, runnerPaths } from '@harness/runner';
import { repoRoot } from '@harness/test-utils';
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
import { makeInstance, type TestInstance } from './helpers/instance';

const EXAMPLE = join(repoRoot, 'fixtures', 'runner', 'example.yaml');
const entries = (() => {
  const parsed = parseYamlConfig(readFileSync(EXAMPLE, 'utf8'));
  if (!parsed.ok) throw new Error('the example runner file does not parse');
  return (parsed.data as { harnesses: Record<string, unknown>[] }).harnesses;
})();

async function entryShown(page: Page, id: string): Promise<unknown> {
  return JSON.parse((await page.locator(`pre[data-entry="${id}"]`).textContent()) ?? 'null');
}

inBrowser.describe('Runs view', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let browser: TestBrowser;
  const saved = process.env.HARNESS_RUNNER_CONFIG;

  beforeAll(async () => {
    t = await makeInstance();
    const store = new RunStore(runnerPaths(t.instanceDir).db);
    store.insert({
      id: 'run-ok-1',
      harness: 'review',
      status: 'succeeded',
      trigger: 'webhook',
      source: 'gh',
      delivery: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      prompt_delivery: 'stdin',
      exit_code: 0,
    });
    store.insert({ id: 'run-cron-1', harness: 'nightly', status: 'succeeded', trigger: 'schedule' });
    store.insert({
      id: 'run-skip-1',
      harness: 'review',
      status: 'skipped',
      trigger: 'webhook',
      reason: 'template_unresolved',
      path: 'event.number',
    });
    store.close();
    process.env.HARNESS_RUNNER_CONFIG = EXAMPLE;
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await running?.close();
    if (saved === undefined) delete process.env.HARNESS_RUNNER_CONFIG;
    else process.env.HARNESS_RUNNER_CONFIG = saved;
    t?.cleanup();
  });

  it('lists the runs with their status, skip reasons, source id and delivery id, and each harness as describe shows it', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/runs');
    const skipped = page.locator('tr[data-run-id="run-skip-1"]');
    await skipped.waitFor();
    expect(await skipped.locator('td').allTextContents()).toEqual(
      expect.arrayContaining(['run-skip-1', 'review', 'skipped', 'template_unresolved: event.number']),
    );
    const cells = async (id: string) => {
      const header = await page.locator('table[aria-label="Runs"] thead th').allTextContents();
      const row = await page.locator(`tr[data-run-id="${id}"] td`).allTextContents();
      return Object.fromEntries(header.map((h, i) => [h, row[i]]));
    };
    expect(await cells('run-ok-1')).toMatchObject({
      Status: 'succeeded',
      Exit: '0',
      Trigger: 'webhook',
      Source: 'gh',
      Delivery: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    });
    expect(await cells('run-cron-1')).toMatchObject({ Trigger: 'schedule', Source: '', Delivery: '' });
    const review = page.getByRole('article', { name: 'review' });
    expect(await review.textContent()).toContain('prompt_delivery');
    expect(await review.textContent()).toContain('stdin');
    // describe shows env names, never values.
    expect(await review.textContent()).toContain('["REVIEW_MODE"]');
    expect(await review.textContent()).not.toContain('strict');
    await expectAccessible(page);
    await screenshot(page, 'runs');
    await page.context().close();
  }, 120_000);

  it('the harness editor gives every entry of the example runner file back with every key unchanged [TM-127]', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/runs');
    for (const entry of entries) {
      const id = String(entry.id);
      await page.getByRole('button', { name: `Edit ${id}` }).click();
      expect(JSON.stringify(await entryShown(page, id))).toBe(JSON.stringify(entry));
      // Every key the example uses, across its harnesses, went through the editor.
    }
    const keys = new Set(entries.flatMap((e) => Object.keys(e)));
    expect([...keys].sort()).toEqual(
      [
        'args',
        'argv',
        'env',
        'env_inherit',
        'id',
        'kind',
        'max_output',
        'model',
        'prompt',
        'prompt_delivery',
        'prompt_file',
        'prompt_template',
        'prompt_template_file',
        'resident',
        'schedule',
        'shell',
        'timeout',
        'transcripts',
        'trigger',
        'untrusted_inline',
        'workdir',
      ].sort(),
    );
    await page.context().close();
  }, 120_000);

  it('the kind picker and the argv editor change only the kind and the argv, keys in place [TM-127]', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/runs');
    const review = entries.find((e) => e.id === 'review') as Record<string, unknown>;
    await page.getByRole('button', { name: 'Edit review' }).click();
    const form = page.getByRole('form', { name: 'Edit harness review' });
    await form.getByLabel('argv 1').fill('deno');
    await form.getByRole('button', { name: 'Add an argv element' }).click();
    await form.getByLabel('argv 6').fill('{{event.file}}');
    await form.getByRole('button', { name: 'Remove argv 3' }).click();
    const argv = [
      '/usr/bin/env',
      'deno',
      'record.js',
      '{{event.repo}}',
      '{{event.number}}',
      '{{event.file}}',
    ];
    const expected = Object.fromEntries(Object.entries(review).map(([k, v]) => [k, k === 'argv' ? argv : v]));
    expect(JSON.stringify(await entryShown(page, 'review'))).toBe(JSON.stringify(expected));

    const watcher = entries.find((e) => e.id === 'watcher') as Record<string, unknown>;
    await page.getByRole('button', { name: 'Edit watcher' }).click();
    await page
      .getByRole('form', { name: 'Edit harness watcher' })
      .getByLabel('Kind')
      .selectOption('claude-code');
    expect(JSON.stringify(await entryShown(page, 'watcher'))).toBe(
      JSON.stringify({ ...watcher, kind: 'claude-code' }),
    );
    await page.context().close();
  }, 120_000);
});
