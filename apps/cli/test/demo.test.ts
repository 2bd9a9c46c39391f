// harness demo runs in the suite and must pass, with jq and on a PATH without jq.
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { findBinary, needs } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, sandbox } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());

/**
 * Checks that the transcript's summary counts the steps it printed: its numbered headings, each
 * once and in order.
 */
function expectSummaryCountsSteps(stdout: string): void {
  const numbers = stdout
    .split('\n')
    .map((line) => /^(\d+)\. /.exec(line)?.[1])
    .filter((n) => n !== undefined)
    .map(Number);
  expect(numbers.length).toBeGreaterThan(0);
  expect(numbers).toEqual(numbers.map((_, i) => i + 1));
  expect(stdout).toContain(`\ndemo passed: ${numbers.length} steps behaved as expected\n`);
}

describe('harness demo', () => {
  needs('jq').it(
    'passes every step with jq installed (json-tools pack), and its summary counts the steps it printed',
    async () => {
      const r = await runCli(['demo'], { home: box.home, timeoutMs: 55_000 });
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
      expectSummaryCountsSteps(r.stdout);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('json-tools.query');
      expect(r.stdout).toContain('jq: error');
      expect(r.stdout).toMatch(/retry: \{"replayed":true/);
    },
  );

  it('passes every step on a PATH without jq, over the fallback packs, says so, and counts the steps it printed', async () => {
    const binDir = join(box.root, 'bin-without-jq');
    mkdirSync(binDir, { recursive: true });
    for (const name of ['node', 'git', 'grep', 'sh', 'env', 'cat', 'ls']) {
      const path = findBinary(name);
      if (path) symlinkSync(path, join(binDir, name));
    }
    const r = await runCli(['demo'], { home: box.home, env: { PATH: binDir }, timeoutMs: 55_000 });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('jq is not installed: the json-tools pack is left out');
    expect(r.stdout).toContain('fallback packs repo, echo and notes');
    expect(r.stdout).not.toContain('json-tools.query(');
    expect(r.stdout).toContain('argv received: ["; rm -rf /"]');
    expectSummaryCountsSteps(r.stdout);
    expect(r.code).toBe(0);
  });

  it("records the demo instance's audit key under the XDG_CONFIG_HOME it was given, not in the home", async () => {
    const home = join(box.root, 'xdg-home');
    const config = join(box.root, 'xdg-config');
    mkdirSync(home, { recursive: true });
    const r = await runCli(['demo'], {
      home,
      env: { XDG_CONFIG_HOME: config },
      timeoutMs: 55_000,
    });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(readdirSync(join(config, 'harness', 'audit-keys')).filter((f) => f.endsWith('.pub'))).toHaveLength(
      1,
    );
    expect(existsSync(join(home, '.config', 'harness', 'audit-keys'))).toBe(false);
  });
});
