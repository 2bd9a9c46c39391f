import { join } from 'node:path';
import { buildBinIfStale, repoRoot } from '@harness/test-utils';

/** Builds the `harness` and `loom` bins when missing or stale: Claude Code starts `harness serve` from one. */
export function setup(): void {
  buildBinIfStale(repoRoot, join(repoRoot, 'apps', 'cli'), 'harness.js');
  buildBinIfStale(repoRoot, join(repoRoot, 'apps', 'loom'), 'loom.js');
}
