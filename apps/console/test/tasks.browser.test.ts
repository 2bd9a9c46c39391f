// The Tasks view in a real browser: a task against a FAKE OpenAI-compatible model server on loopback
// (scripted; no model runs here) composes into the loom it was given, and the page shows
// `originLoomId` and the `looms` receipts; the origin of a turn stays put when the focus changes;
// without a model the view says how to configure one.
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
import { contextOf, type FakeModelServer, startFakeModelServer } from './helpers/fake-model';
import { makeInstance, type TestInstance } from './helpers/instance';

const ENV = ['HARNESS_MODEL_PROVIDER', 'HARNESS_MODEL', 'HARNESS_MODEL_BASE_URL', 'HARNESS_TASK_TOOLS'];

/** The FAKE model's turn: compose one component (into the context's origin loom when there is one). */
function composing(fake: FakeModelServer, requestId: string): void {
  fake.script((request, step) => {
    if (step > 0) return { content: `Added the notes page (request ${requestId}).` };
    const origin = /started it from the loom (\S+) \(/.exec(contextOf(request))?.[1];
    return {
      toolCalls: [
        {
          id: `call-${requestId}`,
          name: 'loom_compose',
          arguments: {
            request_id: requestId,
            ...(origin ? { loom_id: origin } : {}),
            components: [{ ref: 'url:https://example.com/notes', title: 'Notes' }],
          },
        },
      ],
    };
  });
}

/** Runs a task from the form and waits until the page shows that turn's result. */
async function runTask(page: Page, prompt: string): Promise<void> {
  const before = (await page.locator('[data-turn-id]').count())
    ? await page.locator('[data-turn-id]').getAttribute('data-turn-id')
    : null;
  await page.getByLabel('Prompt').fill(prompt);
  await page.getByRole('button', { name: 'Run the task' }).click();
  const next = before === null ? '[data-turn-id]' : `[data-turn-id]:not([data-turn-id="${before}"])`;
  await page.locator(next).waitFor({ timeout: 90_000 });
}

inBrowser.describe('Tasks view', () => {
  let t: TestInstance;
  let fake: FakeModelServer;
  let running: RunningConsole;
  let bare: RunningConsole;
  let browser: TestBrowser;
  const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));

  beforeAll(async () => {
    t = await makeInstance();
    for (const k of ENV) delete process.env[k];
    bare = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    fake = await startFakeModelServer(() => ({ content: 'unused' }));
    Object.assign(process.env, {
      HARNESS_MODEL_PROVIDER: 'openai-compatible',
      HARNESS_MODEL: 'fake-scripted-model',
      HARNESS_MODEL_BASE_URL: fake.baseUrl,
    });
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await running?.close();
    await bare?.close();
    await fake?.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    t?.cleanup();
  });

  it('a task composes into the loomId it was given; the page shows originLoomId and the loom receipts, opened by receipt id [LA-137]', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/tasks');
    composing(fake, 'start');
    await runTask(page, 'Start a collection of my notes.');
    const made = page.getByRole('link', { name: /^Open loom / });
    const loomId = ((await made.textContent()) ?? '').replace('Open loom ', '');
    expect(loomId).not.toBe('');
    expect(await page.locator('[data-origin]').textContent()).toBe('none');

    await page.goto(new URL(`#/tasks/from/${loomId}`, page.url()).href);
    await page.reload();
    expect(await page.getByLabel('Origin loom (optional)').inputValue()).toBe(loomId);
    await page.getByLabel('Session').selectOption('');
    composing(fake, 'add-notes');
    await runTask(page, 'Add my notes page to this loom.');
    expect(await page.locator('[data-origin]').textContent()).toBe(loomId);
    const link = page.getByRole('link', { name: `Open loom ${loomId}` });
    expect(await link.locator('..').textContent()).toContain('request add-notes, committed version 2, now 2');
    await expectAccessible(page);
    await screenshot(page, 'tasks');

    await link.click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Looms');
    await expect
      .poll(() => page.getByRole('heading', { level: 2 }).first().textContent())
      .toContain(`${loomId} version 2`);
    await page.context().close();
  }, 120_000);

  it('changing the focus (the origin field) or running a later turn does not replace an earlier turn’s origin [LA-125] [LA-124]', async () => {
    const page = await openConsole(browser, running.loginUrl(), '#/tasks');
    composing(fake, 'first-of-session');
    await runTask(page, 'Make a collection.');
    const loomId = ((await page.getByRole('link', { name: /^Open loom / }).textContent()) ?? '').replace(
      'Open loom ',
      '',
    );
    await page.getByLabel('Origin loom (optional)').fill(loomId);
    fake.script(() => ({ content: 'Looked.' }));
    await runTask(page, 'Look at it.');
    expect(await page.locator('[data-origin]').textContent()).toBe(loomId);
    // The focus moves: the field is emptied; the shown result and the session's turns keep their origins.
    await page.getByLabel('Origin loom (optional)').fill('');
    expect(await page.locator('[data-origin]').textContent()).toBe(loomId);
    fake.script(() => ({ content: 'Again, without a loom.' }));
    await runTask(page, 'And now without one.');
    const turns = page.getByRole('region', { name: 'Turns of this session' }).getByRole('listitem');
    await expect
      .poll(() => turns.allTextContents())
      .toEqual([
        'Make a collection. — origin none — completed',
        `Look at it. — origin ${loomId} — completed`,
        'And now without one. — origin none — completed',
      ]);
    await page.context().close();
  }, 120_000);

  it('without a model the view says how to configure one', async () => {
    const page = await openConsole(browser, bare.loginUrl(), '#/tasks');
    await page.getByRole('heading', { name: 'No model is configured' }).waitFor({ timeout: 90_000 });
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('no model is configured, so tasks cannot run');
    expect(text).toContain('HARNESS_MODEL_PROVIDER=openai-compatible HARNESS_MODEL_BASE_URL=');
    await expectAccessible(page);
    await screenshot(page, 'tasks-no-model');
    await page.context().close();
  }, 120_000);
});
