// Helpers that several packages' tests need. Tests import this package's TypeScript directly.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export { buildBinIfStale } from './bins';
export { FC_DEFAULT_SEED, fcRuns, fcSeed } from './fast-check';
export { Lines } from './lines';

/** Absolute path of the repository root. */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Absolute path of the repository's `fixtures/` folder. */
export const fixturesDir = join(repoRoot, 'fixtures');

/** A fresh temporary directory; `cleanup()` removes it. */
export function tempDir(prefix = 'harness-test-', parent = tmpdir()): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(parent, prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** Absolute path of an executable on PATH, or undefined when it is not installed. */
export function findBinary(name: string): string | undefined {
  try {
    return (
      execFileSync('sh', ['-c', `command -v "$1"`, 'sh', name], { encoding: 'utf8' }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/**
 * Pids of the live processes whose argv holds `marker`, found through /proc as any user of the
 * machine would find them (a zombie counts as gone: it runs nothing). Linux only.
 */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(marker)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // It exited while we looked.
    }
  }
  return found;
}

/**
 * Resolves once `check()` holds, looking every 25 ms; rejects with `what` after `timeoutMs`. For a
 * condition a test waits on (a process appearing or gone), never for time to pass.
 */
export async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** One captured webhook delivery from `fixtures/webhooks/<scheme>/`. */
export interface WebhookFixture {
  scheme: 'github' | 'gitea' | 'forgejo';
  file: string;
  body: unknown;
}

/** Every captured webhook delivery in `fixtures/webhooks/`. */
export function webhookFixtures(): WebhookFixture[] {
  const out: WebhookFixture[] = [];
  for (const scheme of ['github', 'gitea', 'forgejo'] as const) {
    const dir = join(fixturesDir, 'webhooks', scheme);
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      out.push({ scheme, file, body: JSON.parse(readFileSync(join(dir, file), 'utf8')) });
    }
  }
  return out;
}
