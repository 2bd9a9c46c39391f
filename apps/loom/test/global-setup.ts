import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBinIfStale, repoRoot } from '@harness/test-utils';

/** Builds dist/loom.js (tsup only, a few seconds) when it is missing or stale, so the tests spawn the real bin. */
export function setup(): void {
  buildBinIfStale(repoRoot, join(dirname(fileURLToPath(import.meta.url)), '..'), 'loom.js');
}
