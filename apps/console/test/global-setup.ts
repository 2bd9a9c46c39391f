import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBinIfStale, repoRoot } from '@harness/test-utils';

/**
 * Builds the page (dist/web, a second or so) and, when stale, the `harness` and `loom` bins the tests
 * drive a real MCP client through.
 */
export function setup(): void {
  const app = join(dirname(fileURLToPath(import.meta.url)), '..');
  execFileSync(process.execPath, [join(app, 'scripts', 'build-web.mjs')], { stdio: 'inherit' });
  buildBinIfStale(repoRoot, join(repoRoot, 'apps', 'cli'), 'harness.js');
  buildBinIfStale(repoRoot, join(repoRoot, 'apps', 'loom'), 'loom.js');
}
