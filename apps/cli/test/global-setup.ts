import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBinIfStale, repoRoot } from '@harness/test-utils';

/**
 * Builds dist/harness.js, and the loom bin it ships with, when missing or older than their sources
 * (a few seconds each), so the tests spawn the real bins.
 */
export function setup(): void {
  const app = join(dirname(fileURLToPath(import.meta.url)), '..');
  buildBinIfStale(repoRoot, app, 'harness.js');
  buildBinIfStale(repoRoot, join(app, '..', 'loom'), 'loom.js');
}
