// Helpers that several packages' tests need. Tests import this package's TypeScript directly.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export { buildBinIfStale } from './bins';
export { FC_DEFAULT_SEED, fcRuns, fcSeed } from './fast-check';

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
