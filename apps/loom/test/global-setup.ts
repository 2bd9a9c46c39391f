import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Builds dist/loom.js (tsup only, a few seconds) so the tests spawn the real bin. */
export function setup(): void {
  const app = join(dirname(fileURLToPath(import.meta.url)), '..');
  execFileSync('pnpm', ['exec', 'tsup', '--silent'], { cwd: app, stdio: 'inherit' });
}
